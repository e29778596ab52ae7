"""The Dask engine: the per-document NLP as ``map_partitions`` over a Dask cluster.

``paperkg build --engine dask --scheduler ADDRESS`` sends the abstracts the store lacks to the
cluster as a Dask bag of ``(masked text, index)`` pairs; each partition runs through
``nlp.pipe(..., as_tuples=True)`` on a worker, which loads the pipeline once (per worker
thread: a spaCy pipeline is not safe to share between threads) and returns only the plain
mention rows. The client writes each partition to the extraction store as it completes, then
runs corpus-level resolution and linking itself over the gathered plain records: they need
the whole corpus and take seconds next to extraction. Without ``--scheduler`` a
``LocalCluster`` of ``--n-process`` single-threaded workers is started for the build.

Workers must run the same paperkg (same code, gazetteer and model): each partition checks the
extractor version and fails the build with :class:`ExtractionError` on a mismatch.

Dask is an optional extra (``pip install 'paperkg[dask]'``), imported only here.
"""

from __future__ import annotations

import threading
from typing import Iterator, Sequence

from paperkg.errors import ExtractionError
from paperkg.extract.nlp.records import DocMentions, doc_record
from paperkg.extract.run.corpus import nlp_items
from paperkg.extract.run.store import extractor_version
from paperkg.extract.run.workers import one_blas_thread
from paperkg.types import Paper

#: Abstracts per partition: enough to amortize the task overhead, few enough to spread the
#: work over the workers and to keep each result small. Partitions are cut at whole batches of
#: ``batch_size`` (8 of the default 64), so every abstract meets the NER in the same batch as
#: in one local process, and the output is the same bit for bit.
PARTITION_SIZE = 512

_thread = threading.local()


def _dask():
    try:
        import dask.bag
        import distributed
    except ImportError as exc:
        raise ExtractionError(
            "the Dask engine needs Dask: pip install 'paperkg[dask]' (dask[distributed]), or use --engine local"
        ) from exc
    return dask.bag, distributed


def _worker_pipeline(use_model: bool):
    from paperkg.extract.nlp.pipeline import build_pipeline

    pipelines = _thread.__dict__.setdefault("pipelines", {})
    if use_model not in pipelines:
        # build_pipeline is cached per process; each thread needs its own copy.
        pipelines[use_model] = build_pipeline.__wrapped__(use_model)
    return pipelines[use_model]


def extract_partition(items: list[tuple[str, int]], use_model: bool, version: str,
                      batch_size: int) -> list[tuple[int, DocMentions, tuple[str, ...]]]:
    """One partition on a worker: ``(index, DocMentions, notes)`` for each ``(text, index)``."""
    found = extractor_version(use_model)
    if found != version:
        raise ExtractionError(
            f"a Dask worker runs extractor version {found}, the client {version}: install the same paperkg on every worker"
        )
    nlp = _worker_pipeline(use_model)
    with one_blas_thread():  # the cluster's workers are the parallelism; more BLAS threads only spin
        return [(index, *doc_record(doc)) for doc, index in nlp.pipe(items, as_tuples=True, batch_size=batch_size)]


def _client(distributed, scheduler: str | None, n_workers: int):
    if scheduler is None:
        cluster = distributed.LocalCluster(n_workers=max(n_workers, 1), threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(scheduler, timeout="30s"), None
    except (OSError, TimeoutError, ValueError) as exc:
        raise ExtractionError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from exc


def dask_stream(
    papers: Sequence[Paper],
    indices: Sequence[int],
    *,
    use_model: bool,
    version: str,
    scheduler: str | None = None,
    n_workers: int = 1,
    batch_size: int = 64,
) -> Iterator[tuple[int, DocMentions, tuple[str, ...]]]:
    """``(index, DocMentions, notes)`` for ``papers[i]``, ``i`` in ``indices``, partition by partition
    as they complete (in no fixed order: the store is keyed, so order does not matter)."""
    bag, distributed = _dask()
    client, cluster = _client(distributed, scheduler, n_workers)
    try:
        items = list(nlp_items(papers, indices))
        # At least two partitions per worker thread, so that a small build still uses them all.
        threads = sum(client.nthreads().values()) or 1
        count = min(len(items), max(-(-len(items) // PARTITION_SIZE), 2 * threads))
        batches = max(1, -(-len(items) // count) // batch_size)
        partitions = bag.from_sequence(items, partition_size=batches * batch_size)
        results = partitions.map_partitions(extract_partition, use_model, version, batch_size)
        # Keep no list of futures: a released future frees its partition on the cluster.
        for future in distributed.as_completed(client.compute(results.to_delayed())):
            part = future.result()
            future.release()
            yield from part
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
