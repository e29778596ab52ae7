"""The Python API. The CLI calls exactly these functions and methods.

>>> import paperkg
>>> kg = paperkg.build(["examples/abstracts.txt"], progress=False)   # doctest: +SKIP
>>> kg.entities(type="Dataset")[:3]                                     # doctest: +SKIP
>>> kg.papers_with("MuJoCo")                                            # doctest: +SKIP
>>> kg.similar_papers(kg.papers()[0]["paper_id"], k=10)                 # doctest: +SKIP
>>> kg.save("out/graph.json"); paperkg.load("out/graph.json")           # doctest: +SKIP
"""

from __future__ import annotations

import os
import resource
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

import networkx as nx

from paperkg.build_record import BuildRecord, recorded
from paperkg.errors import BuildFolderError, InputError
from paperkg.extract.output import graph_records, write_mentions_jsonl, write_records
from paperkg.extract.read.readers import DEFAULT_MAX_CHARS, iter_input_files, read_papers
from paperkg.extract.resolve.confidence import DEFAULT_MIN_CONFIDENCE
from paperkg.extract.resolve.report import write_resolution
from paperkg.extract.run.corpus import ExtractStats, corpus_processes, extract_papers, extracted
from paperkg.extract.run.workers import return_freed_memory
from paperkg.graph import analytics
from paperkg.graph.build import build_graph, paper_nodes
from paperkg.graph.export import read_node_link, write_graphml, write_node_link
from paperkg.paths import check_output_file, output_folder
from paperkg.spill import Spill
from paperkg.types import ENTITY_TYPES, Extraction, ReadReport

PathLike = str | Path


@dataclass(frozen=True)
class ExtractResult:
    """What :func:`extract_entities` returns: one record per kept paper (kept on disk, see
    :class:`~paperkg.spill.Spill`), and the read report."""

    extractions: Sequence[Extraction]
    report: ReadReport
    warnings: tuple[str, ...] = ()
    resolution: tuple[dict, ...] = ()


@dataclass(frozen=True)
class BuildStats:
    """What a :func:`build` cost: the store's re-use, and per stage (``read``, ``extract``,
    ``resolve`` (corpus-wide keys, types and names), ``graph`` (each paper's records with the
    learned roles, made as papers and entities join the graph), ``link``, ``communities``) ``(name, wall s, CPU s, start, workers' CPU s)``: CPU of this process, ``start`` its
    ``time.perf_counter()`` at the stage's start (so a memory sampler can tell the stages apart),
    then the CPU of the worker processes that ended within the stage."""

    extraction: ExtractStats
    stages: tuple[tuple[str, float, float, float, float], ...]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def timed(stages: list, name: str, echo: Callable[[str], None] | None = None) -> Iterator[None]:
    """Time one stage into ``stages``; with ``echo``, also say what it cost when it ends (the
    CPU of worker processes that ended within it counted apart). The heap's free pages go back
    to the OS as it ends (:func:`~paperkg.extract.run.workers.return_freed_memory`)."""
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    yield
    return_freed_memory()
    workers = _children_cpu() - children
    stages.append((name, time.perf_counter() - wall, time.process_time() - cpu, wall, workers))
    if echo is not None:
        echo(f"stage {name}: {stages[-1][1]:.1f} s, CPU {stages[-1][2]:.1f} s"
             + (f" + {workers:.1f} s in workers" if workers >= 0.05 else ""))


def stage_line(line: str) -> None:
    """Print a stage's cost line to stderr (what ``progress=True`` does after each stage)."""
    print(line, file=sys.stderr, flush=True)


@dataclass
class KnowledgeGraph:
    """A built knowledge graph: a NetworkX ``DiGraph`` (schema in ``paperkg.graph``) plus the
    read report and costs of the build that made it (``None`` after :func:`load`)."""

    graph: nx.DiGraph
    report: ReadReport | None = None
    #: The build's records, kept on disk (:class:`~paperkg.spill.Spill`) and read back on use.
    extractions: Sequence[Extraction] = field(default=(), repr=False)
    resolution: tuple[dict, ...] = field(default=(), repr=False)
    build_stats: BuildStats | None = None
    #: What :meth:`export` records in the manifest for ``paperkg add``/``remove`` (a build's only).
    build_record: BuildRecord | None = field(default=None, repr=False)

    # --- queries -------------------------------------------------------------------------
    def papers(self) -> list[dict]:
        """Every paper: id, label, title, venue, year, in input order."""
        return [
            {key: self.graph.nodes[n].get(key) for key in ("paper_id", "label", "title", "venue", "year", "url")}
            for n in paper_nodes(self.graph)
        ]

    def entities(self, type: str | None = None, limit: int | None = None) -> list[dict]:
        """Entities (optionally of one type) by paper count, most frequent first."""
        return analytics.entity_frequencies(self.graph, type=type, limit=limit)

    def entity(self, name: str) -> dict:
        """One entity's attributes, found by name, key or alias."""
        return dict(self.graph.nodes[analytics.resolve_entity(self.graph, name)])

    def papers_with(self, name: str, role: str | None = None) -> list[dict]:
        """Papers that mention an entity (by name, key or alias), optionally with one role."""
        return analytics.papers_with(self.graph, name, role=role)

    def similar_papers(self, paper_id: str, k: int = 10) -> list[dict]:
        """The papers most linked to ``paper_id`` through shared entities."""
        return analytics.similar_papers(self.graph, paper_id, k=k)

    def cooccurring(self, name: str, k: int = 10) -> list[dict]:
        """Entities that share papers with ``name``."""
        return analytics.cooccurring(self.graph, name, k=k)

    def communities(self, seed: int = 0) -> list[list[str]]:
        """Louvain communities of paper ids, largest first."""
        return analytics.communities(self.graph, seed=seed)

    def query(self, name: str, **params) -> list[dict]:
        """Run a named query (``queries/NAME.cypher``) over this graph with NetworkX.

        Same parameters and the same rows as ``paperkg query NAME`` against Neo4j; raises
        QueryError for an unknown name (listing the queries) or a missing/extra parameter.
        """
        from paperkg.queries.offline import run_named_query

        return run_named_query(self.graph, name, params)

    def results(self, paper_id: str) -> list[dict]:
        """The results a paper reports (value as written, number, unit, kind, direction, the
        metric/dataset/method/task names and keys, the sentence), in text order."""
        from paperkg.graph.results import paper_results

        return paper_results(self.graph, paper_id)

    def leaderboard(self, dataset: str, metric: str | None = None, task: str | None = None, k: int = 50) -> list[dict]:
        """The scores reported on a dataset or benchmark (by name, key, alias or acronym),
        optionally for one metric and task, best first where the metric's direction is known:
        the rows of the named query ``leaderboard``, as ``paperkg leaderboard`` prints them."""
        return self.query("leaderboard", dataset=dataset, metric=metric, task=task, k=k)

    def counts(self) -> dict:
        """Papers, entities (in all and per type), paper-entity edges, paper links, communities."""
        return analytics.counts(self.graph)

    def stats(self, top: int = 10, pairs: PathLike | None = None) -> dict:
        """Counts, the top entities per type, the singleton share and entities per type and role,
        the remaining duplicate candidates, links per paper, the papers most linked by evidence,
        and the largest communities with their labels; the results with the datasets and metrics
        that have most. With ``pairs`` (a labelled list of twins and pairs that must stay apart,
        :func:`paperkg.graph.quality.read_pairs`), also ``resolution_pairs``: the resolution scored
        on it (:func:`paperkg.graph.quality.pair_scores`)."""
        from paperkg.graph import quality
        from paperkg.graph.results import result_counts

        duplicates = quality.duplicate_candidates(self.graph)
        return {
            "counts": self.counts(),
            "entities": quality.entity_profile(self.graph),
            "top_entities": {t: analytics.entity_frequencies(self.graph, type=t, limit=top) for t in ENTITY_TYPES},
            "duplicate_candidates": {"groups": len(duplicates),
                                     "rate": round(quality.duplicate_rate(self.graph, duplicates), 4),
                                     "top": duplicates[:top]},
            "links": quality.link_profile(self.graph),
            "most_linked_papers": quality.most_linked_by_evidence(self.graph, k=top),
            "communities": analytics.community_summary(self.graph, k=top),
            "results": result_counts(self.graph, top=top),
            **({"resolution_pairs": quality.pair_scores(self.graph, quality.read_pairs(pairs))} if pairs else {}),
        }

    # --- persistence and exports -------------------------------------------------------
    def save(self, path: PathLike) -> Path:
        """Save as node-link JSON; :func:`load` reads it back without rebuilding."""
        return write_node_link(self.graph, path)

    def to_graphml(self, path: PathLike) -> Path:
        """GraphML, valid XML 1.0 whatever the text holds (illegal characters become U+FFFD)."""
        write_graphml(self.graph, path)
        return Path(path)

    def to_mentions_jsonl(self, path: PathLike) -> Path:
        """The mentions JSONL contract file: from the extraction for a graph built in this
        process, else from the graph (then without a mention's ``role`` and ``nested``)."""
        if self.extractions:
            return write_mentions_jsonl(self.extractions, path)
        return write_records(graph_records(self.graph), path)

    def to_html(self, path: PathLike, **options) -> list[Path]:
        """The interactive explorer: a file path writes one view, a directory writes all views."""
        from paperkg.graph.explorer import write_html

        focus = options.get("focus")
        if focus is not None and not self.graph.has_node(str(focus)) and not self.graph.has_node(f"paper:{focus}"):
            # Names, aliases and acronyms resolve as in kg.entity ("SAC" -> entity:soft actor critic).
            found = analytics.find_entity(self.graph, str(focus))
            if found is not None:
                options = {**options, "focus": found}
        return write_html(self.graph, output_folder(path), **options)  # '' would become '.' past here

    def to_neo4j(self, uri: str | None = None, user: str | None = None, password: str | None = None,
                 database: str | None = None, *, batch_size: int = 10_000, progress: bool = True,
                 lock_timeout: float = 3600.0):
        """Load into Neo4j (idempotent, incremental); returns a ``LoadReport``.

        Connection settings default to ``NEO4J_URI/USER/PASSWORD/DATABASE``; arguments override.
        Waits up to ``lock_timeout`` seconds for other loads into the database to finish.
        """
        from paperkg.queries.loader import load_graph
        from paperkg.queries.runner import Neo4jSettings

        settings = Neo4jSettings.from_env(uri=uri, user=user, password=password, database=database)
        return load_graph(self.graph, settings, batch_size=batch_size, progress=progress, lock_timeout=lock_timeout)

    def to_neo4j_admin(self, out_dir: PathLike, *, array_delimiter: str | None = None) -> dict[str, Path]:
        """Node and relationship CSVs (and import.sh) for ``neo4j-admin database import full``;
        ``array_delimiter`` defaults to one that no array value holds."""
        from paperkg.queries.neo4j_admin import write_neo4j_admin

        return write_neo4j_admin(self.graph, out_dir, array_delimiter=array_delimiter)

    def export(self, out_dir: PathLike, *, html: bool = True, n_process: int = 0) -> dict[str, Path]:
        """Write every export into ``out_dir`` as one set: graph.json, graph.graphml,
        mentions.jsonl, resolution.jsonl (the entity-resolution report, for a graph built in
        this process), paperkg-manifest.json and (``html=True``) the explorer pages.

        A killed export leaves the previous complete set or the new one, never a mix, and files
        of the previous set the new one lacks (pages after ``html=False``, old focus pages) are
        removed (see :mod:`paperkg.graph.export_set`). The manifest records each file's sha256
        and ``graphml_replaced_characters``, the characters XML 1.0 could not hold.

        The files are written side by side in ``n_process`` forked processes (0: one per usable
        core from 500 papers on; 1: one after the other in this process), the same bytes either
        way (see :mod:`paperkg.forked`).
        """
        # EXPORT_FILES: what export writes; an earlier build's files the new set lacks are removed,
        # also in a folder written before manifests existed.
        from paperkg.forked import run_writers, writer_processes
        from paperkg.graph.export_set import EXPORT_FILES, write_set

        replaced = {}
        if self.build_record is not None:
            replaced["build"] = self.build_record.to_json(out_dir, html=html)

        def write(folder: Path) -> dict[str, Path]:
            # The longest first (in a 100k build: pages 39% of the CPU, GraphML 31%, mentions 19%).
            writers = [("html", lambda: self.to_html(folder))] if html else []
            writers += [("graphml", lambda: write_graphml(self.graph, folder / "graph.graphml")),
                        ("mentions", lambda: self.to_mentions_jsonl(folder / "mentions.jsonl")),
                        ("graph", lambda: self.save(folder / "graph.json"))]
            if self.extractions:
                writers.append(("resolution", lambda: write_resolution(self.resolution, folder / "resolution.jsonl")))
            done = run_writers(writers, writer_processes(n_process, len(paper_nodes(self.graph)), len(writers)))
            replaced["graphml_replaced_characters"] = done["graphml"]
            written = {"graph": done["graph"], "graphml": folder / "graph.graphml", "mentions": done["mentions"]}
            if "resolution" in done:
                written["resolution"] = done["resolution"]
            for page in done.get("html", ()):
                written[f"html:{page.name}"] = page
            return written

        return write_set(out_dir, write, replaces=EXPORT_FILES, info=replaced)


def extract_entities(
    paths: Iterable[PathLike],
    *,
    output: PathLike | None = None,
    n_process: int = 1,
    use_model: bool = True,
    max_chars: int = DEFAULT_MAX_CHARS,
    progress: bool = True,
    store: PathLike | None = None,
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> ExtractResult:
    """Read inputs and extract typed, canonical entities for every kept paper.

    With ``output``, also write the mentions JSONL contract file there (the path is checked
    before any reading, so a wrong one fails at once). ``store`` is an extraction store to
    re-use and fill (as in :func:`build`); ``min_confidence`` as in :func:`build`.
    """
    if output is not None:
        check_output_file(output)
    result = read_papers(paths, max_chars=max_chars)
    spill = Spill()
    with extracted(result.papers, n_process=n_process, use_model=use_model, progress=progress, store=store,
                   min_confidence=min_confidence) as (_, resolved):
        spill.extend(resolved.extractions)
    if output is not None:
        write_mentions_jsonl(spill, output)
    return ExtractResult(spill, result.report(), tuple(result.warnings), tuple(resolved.report))


def build(
    paths: Iterable[PathLike],
    *,
    top_k: int = 20,
    n_process: int = 1,
    use_model: bool = True,
    max_chars: int = DEFAULT_MAX_CHARS,
    progress: bool = True,
    store: PathLike | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    exclude: Iterable[tuple[str | None, str]] = (),
    min_confidence: float = DEFAULT_MIN_CONFIDENCE,
) -> KnowledgeGraph:
    """Read, extract and link: the whole pipeline, returning a :class:`KnowledgeGraph`.

    ``n_process`` extraction processes (0: one per usable core, at most 4, from 500 papers to
    extract on; see :func:`paperkg.extract.run.corpus.worker_count`), and as many forked processes make the
    papers' records after resolution; more than one needs the caller's
    ``if __name__ == "__main__":`` guard, as workers are spawned. ``store`` is the extraction store (an SQLite file, see :mod:`paperkg.extract.run.store`): papers
    whose text and extractor version it already holds are not extracted again; resolution and
    linking always run over every paper. Without it, a throwaway in-memory store is used.
    ``engine="dask"`` runs extraction on the Dask cluster at ``scheduler`` (a local cluster of
    ``n_process`` workers when ``None``); see :mod:`paperkg.extract.run.dask_engine`.
    ``kg.resolution`` is the entity-resolution report (``resolution.jsonl``); ``kg.build_stats``
    says how many papers were extracted and reused, and what each stage cost.
    ``exclude`` holds ``(input file, paper id)`` pairs (file ``None``: any) left out as if those
    records were not there (what :func:`remove` does); an id of a ``None`` pair that is in no
    input is an InputError. ``kg.build_record`` is what :meth:`KnowledgeGraph.export` records
    for :func:`add` and :func:`remove`. Paper entities whose confidence (the estimated
    probability that they are right, :mod:`paperkg.extract.resolve.confidence`) is below
    ``min_confidence`` are left out; 0 keeps them all (a rules-only build has no confidence).
    """
    stages: list[tuple[str, float, float, float, float]] = []
    exclude = tuple(exclude)
    echo = stage_line if progress else None
    with timed(stages, "read", echo):
        read = read_papers(paths, max_chars=max_chars, exclude=exclude)
        unknown = sorted({i for source, i in exclude if source is None} - {i for _, i in read.excluded})
        if unknown:
            raise InputError(f"paper id {unknown[0]!r}: in none of the inputs, so it cannot be left out"
                             + (f" (nor {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
        record = BuildRecord.of(read.files, read.excluded, top_k=top_k, use_model=use_model, max_chars=max_chars,
                                papers=len(read.papers), store=store, min_confidence=min_confidence)
    spill = Spill()
    with extracted(read.papers, use_model=use_model, n_process=n_process, engine=engine, scheduler=scheduler,
                   progress=progress, store=store, stage=lambda name: timed(stages, name, echo),
                   min_confidence=min_confidence) as (stats, resolved):
        # The records are made (and spilled to disk) as the graph takes them, in its "graph" step.
        graph = build_graph(spill.tee(resolved.extractions), top_k=top_k, stage=lambda name: timed(stages, name, echo),
                            processes=corpus_processes(n_process, len(read.papers)))
    return KnowledgeGraph(graph=graph, report=read.report(), extractions=spill, resolution=tuple(resolved.report),
                          build_stats=BuildStats(extraction=stats, stages=tuple(stages)), build_record=record)


def add(paths: Iterable[PathLike], out_dir: PathLike, *, n_process: int = 1, progress: bool = True,
        engine: str = "local", scheduler: str | None = None) -> KnowledgeGraph:
    """Add the papers of ``paths`` to the build in ``out_dir`` (made by ``paperkg build`` or
    :meth:`KnowledgeGraph.export` of a :func:`build`) and write its exports again.

    The folder's manifest records the build's inputs and options (:mod:`paperkg.build_record`):
    this is :func:`build` of those inputs followed by ``paths``, with the same options, the same
    papers left out, and the extraction store the build used (``out_dir/.paperkg-store.sqlite``
    when it used none), so only the new papers are extracted and the result is a fresh build of
    all the inputs, byte for byte. A killed ``add`` leaves the previous set (see
    :meth:`KnowledgeGraph.export`). An input of the build that changed or vanished since, or a
    path that already is one, is a :class:`~paperkg.errors.BuildFolderError`.
    """
    out_dir = output_folder(out_dir)
    record = recorded(out_dir)
    old = {item.absolute for item in record.inputs}
    for path in iter_input_files(paths):
        if os.path.abspath(path) in old:
            raise BuildFolderError(f"{path}: already an input of the build in {out_dir}")
    return _rebuild(record, out_dir, [*map(record.read_path, record.inputs), *paths], record.exclusions(),
                    n_process=n_process, progress=progress, engine=engine, scheduler=scheduler)


def remove(paper_ids: Iterable[str], out_dir: PathLike, *, n_process: int = 1, progress: bool = True,
           engine: str = "local", scheduler: str | None = None) -> KnowledgeGraph:
    """Take the papers ``paper_ids`` out of the build in ``out_dir`` and write its exports again:
    :func:`build` of the recorded inputs leaving those records out (as if they were not in the
    files), so entities and links that rested only on them go too, and the result is a fresh
    build without them, byte for byte. The ids stay out of later :func:`add` calls; an id in no
    input is an InputError, one removed already is no change. As :func:`add` otherwise.
    """
    ids = [str(paper_id) for paper_id in paper_ids]
    if not ids:
        raise BuildFolderError("give the id of at least one paper to remove")
    out_dir = output_folder(out_dir)
    record = recorded(out_dir)
    return _rebuild(record, out_dir, list(map(record.read_path, record.inputs)),
                    [*record.exclusions(), *((None, paper_id) for paper_id in ids)],
                    n_process=n_process, progress=progress, engine=engine, scheduler=scheduler)


def _rebuild(record: BuildRecord, out_dir: PathLike, paths: list, exclude: list, **run) -> KnowledgeGraph:
    from paperkg.extract.run.store import STORE_NAME

    kg = build(paths, top_k=record.top_k, use_model=record.use_model, max_chars=record.max_chars,
               min_confidence=record.min_confidence, store=record.store or Path(out_dir) / STORE_NAME, exclude=exclude, **run)
    with timed([], "export", stage_line if run["progress"] else None):
        kg.export(out_dir, html=record.html, n_process=run["n_process"])
    return kg


def evaluate(gold_path: PathLike, *, use_model: bool = True, n_process: int = 1,
             min_confidence: float = DEFAULT_MIN_CONFIDENCE):
    """Score the whole extractor on a gold JSONL file, in either format of ``../shared/data/gold``.

    Paper-level gold (records with ``abstract`` and entities with ``name``/``mentions``, as
    ``paperkg_dev.jsonl``) gives a :class:`~paperkg.extract.evaluate.papers.PaperEvaluationReport`
    (core recall, precision, proposed P/R/F1, type accuracy, link precision, mention-level
    P/R/F1 per type); span gold (``text`` + ``entities`` with ``start``/``end``/``label``, as
    SciERC) gives an :class:`~paperkg.extract.evaluate.spans.EvaluationReport`. ``min_confidence``
    cuts as :func:`build` does (the default: what a build keeps).
    """
    from paperkg.extract.evaluate.papers import evaluate_papers
    from paperkg.extract.evaluate.spans import evaluate_spans
    from paperkg.extract.read.gold import is_paper_level
    from paperkg.types import Paper

    if is_paper_level(gold_path):
        return evaluate_papers(
            gold_path, lambda papers: extract_papers(papers, n_process=n_process, use_model=use_model, progress=False,
                                                     min_confidence=min_confidence)
        )

    def predict(texts: list[str]) -> list[list[tuple[int, int, str]]]:
        papers = [Paper(id=str(index), abstract=text) for index, text in enumerate(texts)]
        extractions = extract_papers(papers, n_process=n_process, use_model=use_model, progress=False,
                                     min_confidence=min_confidence)
        return [[(m.start, m.end, m.type) for e in x.entities for m in e.mentions if not m.nested] for x in extractions]

    return evaluate_spans(gold_path, predict)


def load(path: PathLike) -> KnowledgeGraph:
    """Load a graph saved by :meth:`KnowledgeGraph.save` (or ``paperkg build``'s graph.json)."""
    return KnowledgeGraph(graph=read_node_link(path))
