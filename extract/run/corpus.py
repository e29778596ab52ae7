"""Run extraction over papers: the per-document NLP into the extraction store, then resolve.

Two steps, so that a build streams and re-uses work:

1. :func:`extract_to_store` runs the spaCy stage only for the papers the store lacks (same id,
   same abstract, same extractor version) and writes the plain results in bounded batches as
   they stream out of ``nlp.pipe(..., as_tuples=True)``: in this process, in worker processes
   (``n_process > 1``, :mod:`paperkg.extract.run.workers`) or on a Dask cluster (``engine="dask"``,
   :mod:`paperkg.extract.run.dask_engine`). The NLP reads masked text; the
   client widens each span over the raw abstract's markup before it stores the row.
2. :func:`stream_stored` runs corpus-level resolution over every paper's stored results
   (:class:`~paperkg.extract.resolve.canonical.Resolved`: extractions and the resolution report), then
   the learned roles and the results (:mod:`paperkg.extract.results`), making the records one
   batch at a time as they are consumed.

:func:`extracted` runs both over one store; the build and :func:`extract_corpus` use it.
"""

from __future__ import annotations

import logging
import os
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from tqdm import tqdm

from paperkg.errors import ExtractionError
from paperkg.forks import can_fork, fork_ranges, indexed_slices
from paperkg.extract.nlp.filtering import on_raw_text
from paperkg.extract.nlp.guard import split_punctuation_runs
from paperkg.extract.nlp.markup import mask_markup
from paperkg.extract.nlp.records import DocMentions, doc_record
from paperkg.extract.resolve.canonical import Records, Resolved, resolve_stream
from paperkg.extract.resolve.confidence import DEFAULT_MIN_CONFIDENCE, assign_confidence, curated_keys, keep_confident
from paperkg.extract.resolve.roles import assign_roles
from paperkg.extract.results.extract import with_results
from paperkg.extract.run.store import BATCH, ExtractionStore, StoredDocs, extractor_version, text_hash
from paperkg.extract.run.workers import keep_freed_memory, one_blas_thread, pool_stream
from paperkg.types import Extraction, Paper

log = logging.getLogger("paperkg")
ENGINES = ("local", "dask")
#: With ``n_process=0`` (the CLI's default), workers start from this many papers to extract:
#: below it, loading the pipeline in each worker costs more than the other cores save.
AUTO_MIN_PAPERS = 500
#: ... and at most this many (each holds a pipeline: 0.3 to 0.6 GB).
AUTO_MAX_PROCESSES = 4


def worker_count(n_process: int, papers: int) -> int:
    """The extraction processes for ``papers`` papers: ``n_process``, or for 0 one per usable
    core (at most :data:`AUTO_MAX_PROCESSES`) from :data:`AUTO_MIN_PAPERS` papers on, else 1.

    >>> worker_count(3, 10), worker_count(0, 10), worker_count(0, 5000) == min(len(os.sched_getaffinity(0)), 4)
    (3, 1, True)
    """
    if n_process:
        return n_process
    if papers < AUTO_MIN_PAPERS:
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), AUTO_MAX_PROCESSES))


@dataclass(frozen=True)
class ExtractStats:
    """What one :func:`extract_to_store` did: papers run through the NLP vs found in the store."""

    extracted: int
    reused: int
    version: str

    def describe(self) -> str:
        return f"extraction: {self.extracted} papers extracted, {self.reused} reused from the store (extractor {self.version})"


def nlp_items(papers: Sequence[Paper], indices: Iterable[int]) -> Iterator[tuple[str, int]]:
    """``(text, index)`` pairs for ``nlp.pipe``: the abstract with markup blanked out and long
    punctuation runs split (:mod:`~paperkg.extract.nlp.guard`), both keeping its length, so every
    offset indexes ``paper.abstract`` exactly as read."""
    return ((split_punctuation_runs(mask_markup(papers[index].abstract)), index) for index in indices)


def _local_stream(papers, indices, *, use_model, n_process, batch_size) -> Iterator[tuple[int, DocMentions, tuple[str, ...]]]:
    items = nlp_items(papers, indices)
    if n_process > 1:
        yield from pool_stream(items, use_model=use_model, n_process=n_process, batch_size=batch_size)
        return
    from paperkg.extract.nlp.pipeline import build_pipeline

    nlp = build_pipeline(use_model)
    keep_freed_memory()
    with one_blas_thread():
        for doc, index in nlp.pipe(items, as_tuples=True, batch_size=batch_size):
            yield index, *doc_record(doc)


def paper_keys(papers: Sequence[Paper]) -> list[tuple[str, str]]:
    """The store key of each paper: its id and the hash of its abstract."""
    return [(paper.id, text_hash(paper.abstract)) for paper in papers]


def extract_to_store(
    papers: Sequence[Paper],
    store: ExtractionStore,
    *,
    use_model: bool = True,
    n_process: int = 1,
    batch_size: int = 64,
    engine: str = "local",
    scheduler: str | None = None,
    progress: bool = True,
) -> ExtractStats:
    """Extract every paper the store lacks and write the results, :data:`BATCH` at a time, in
    ``n_process`` processes (0: as many as :func:`worker_count` gives)."""
    if engine not in ENGINES:
        raise ExtractionError(f"unknown extraction engine {engine!r}; use one of {', '.join(ENGINES)}")
    version = extractor_version(use_model)
    keys = paper_keys(papers)
    have = store.existing(keys, version)
    missing = [index for index, key in enumerate(keys) if key not in have]
    n_process = worker_count(n_process, len(missing))
    if missing:
        if engine == "dask":
            from paperkg.extract.run.dask_engine import dask_stream

            stream = dask_stream(papers, missing, use_model=use_model, version=version, scheduler=scheduler,
                                 n_workers=n_process, batch_size=batch_size)
        else:
            stream = _local_stream(papers, missing, use_model=use_model, n_process=n_process, batch_size=batch_size)
        stream = iter(progress_bar(stream, len(missing), enabled=progress))
        while batch := list(islice(stream, BATCH)):
            # Widening over markup needs the raw abstract, which only the client holds.
            store.put(version, [(keys[index], replace(doc, mentions=on_raw_text(papers[index].abstract, doc.mentions)), notes)
                                for index, doc, notes in batch])
    return ExtractStats(extracted=len(missing), reused=len(papers) - len(missing), version=version)


def progress_bar(stream: Iterable, total: int, *, enabled: bool = True, file: Any = None) -> Iterator:
    """``stream`` behind the extraction's progress bar, whose clock starts again when the first
    paper is done: loading the model takes seconds, and a rate that counted them made the first
    estimate hours ("4 h 47 min" on ICML 2024)."""
    bar = tqdm(total=total, desc="extract", unit="abstract", disable=not enabled, file=file)
    try:
        for done, item in enumerate(stream):
            if done == 0:
                bar.reset(total=total)
            bar.update(1)
            yield item
    finally:
        bar.close()


def stream_stored(papers: Sequence[Paper], store: ExtractionStore, *, use_model: bool = True,
                  min_confidence: float = DEFAULT_MIN_CONFIDENCE, n_process: int = 1) -> Resolved:
    """Corpus-level resolution over the stored results of ``papers`` (read in batches), with the
    resolution report, then the learned roles (:mod:`~paperkg.extract.resolve.roles`) over the rule cues
    and each paper entity's confidence (:mod:`~paperkg.extract.resolve.confidence`); entities below
    ``min_confidence`` are left out before results bind to entities.

    The records come as a one-pass iterator that reads ``store`` as it is consumed (keep the
    store open until then): the build adds each batch to the graph and spills it, so a corpus's
    records are never all in memory. With ``n_process`` other than 1 the records are made in
    forked processes (:func:`corpus_processes`), a batch of stored documents each, identical to
    those made here.

    The stored notes are said first, for reused papers too, so every build of the same inputs
    warns alike."""
    keys, version = paper_keys(papers), extractor_version(use_model)
    for index, notes in store.notes(keys, version):
        for note in notes:
            # Over the per-document work budget (paperkg.extract.nlp.budget): said, never silent.
            log.warning(f"{papers[index].source or papers[index].id}:{papers[index].line}: {note}")
    processes = corpus_processes(n_process, len(papers))
    resolved = resolve_stream(papers, StoredDocs(store, keys, version), processes)
    finish = partial(_finished, resolved.extractions, use_model, min_confidence)
    done = fork_ranges(indexed_slices(resolved.extractions.docs, finish), len(papers), BATCH, processes,
                       what="the papers' records")
    # A record from a forked process holds a copy of its paper: the read papers' own objects
    # take their place, or the graph would keep a second copy of every abstract (~160 MB at
    # 95k papers) beside the ones the build holds.
    return replace(resolved, extractions=(replace(record, paper=paper) if record.paper is not paper else record
                                          for paper, record in zip(papers, chain.from_iterable(done))))


def corpus_processes(n_process: int, papers: int) -> int:
    """The forked processes of the corpus stages after resolution over ``papers`` papers (the
    records, then linking and communities): as for extraction (:func:`worker_count`), but one
    wherever there is a single batch of :data:`BATCH` papers, or no fork (:mod:`paperkg.forks`).

    >>> corpus_processes(2, BATCH), corpus_processes(1, 10**5), corpus_processes(2, 10**5) == (2 if can_fork() else 1)
    (1, 1, True)
    """
    if papers <= BATCH or not can_fork():
        return 1
    return worker_count(n_process, papers)


def _finished(records: Records, use_model: bool, min_confidence: float,
              batch: list[tuple[int, DocMentions]]) -> list[Extraction]:
    """The finished records of one batch of stored documents: roles over the whole batch at
    once, then confidence, then results. A pure function of the batch and the resolution, so
    a forked process makes the same records as this one."""
    roled = assign_roles([records.record(index, doc) for index, doc in batch])
    # The confidence model was fitted on the statistical model's entities: a rules-only
    # build has no confidence to give.
    return [with_results(keep_confident(extraction, min_confidence, curated_keys()))
            for extraction in (assign_confidence(roled) if use_model else roled)]


def extract_papers(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
    store: str | Path | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> list[Extraction]:
    """Typed, canonical entities for each paper, in input order.

    The NLP reads the abstract with markup blanked out (same length), so every offset indexes
    ``paper.abstract`` exactly as read. ``store`` is the SQLite file to re-use and fill (see
    :mod:`paperkg.extract.run.store`); without it, a throwaway in-memory store is used.
    """
    return extract_corpus(papers, n_process=n_process, batch_size=batch_size, use_model=use_model,
                          progress=progress, store=store, engine=engine, scheduler=scheduler,
                          min_confidence=min_confidence).extractions


def extract_corpus(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
    store: str | Path | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> Resolved:
    """As :func:`extract_papers`, plus the entity-resolution report (``resolution.jsonl``)."""
    with extracted(papers, n_process=n_process, batch_size=batch_size, use_model=use_model, progress=progress,
                   store=store, engine=engine, scheduler=scheduler, min_confidence=min_confidence) as (_, resolved):
        return replace(resolved, extractions=list(resolved.extractions))


@contextmanager
def extracted(
    papers: Sequence[Paper],
    *,
    n_process: int = 1,
    batch_size: int = 64,
    use_model: bool = True,
    progress: bool = True,
    store: str | Path | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    stage: Callable[[str], AbstractContextManager] | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> Iterator[tuple[ExtractStats, Resolved]]:
    """Extract what the store lacks, then resolve: ``(stats, resolved)`` with the records
    streaming from the store (:func:`stream_stored`) until the block ends and the store closes.
    ``stage(name)`` wraps the ``extract`` and ``resolve`` steps (the build times them).

    Without ``store``, a throwaway in-memory store is used."""
    stage = stage or (lambda name: nullcontext())
    db = ExtractionStore(store if store is not None else ":memory:")
    try:
        with stage("extract"):
            stats = extract_to_store(papers, db, use_model=use_model, n_process=n_process, batch_size=batch_size,
                                     engine=engine, scheduler=scheduler, progress=progress)
        with stage("resolve"):
            resolved = stream_stored(papers, db, use_model=use_model, min_confidence=min_confidence,
                                     n_process=n_process)
        yield stats, resolved
    finally:
        db.close()
