"""Load a paperkg graph into Neo4j: idempotent, incremental, batched, safe to re-run.

Schema (see ``queries/README.md``)::

    (:Paper {id, title, abstract, venue, year, url, label, authors, community})
    (:Entity:Method|Dataset|Benchmark|Task|Metric {key, type, name, aliases, alias_keys, pwc_id, codesota_id,
                                                   area, record_url, paper_count})
    (:Paper)-[:PROPOSES|USES|MENTIONS {count, evidence, evidence_offset, confidence}]->(:Entity)
    (:Paper)-[:RELATED_TO {weight, link_kind, shared, terms, reason, evidence}]->(:Paper)
    (:Result {id, paper_id, index, value, start, end, number, upper, unit, kind, evidence, direction})
    (:Paper)-[:REPORTS]->(:Result)-[:ON_DATASET|MEASURED_BY|ACHIEVED_BY|FOR_TASK]->(:Entity)
    (:Entity)-[:EVALUATED_ON|ADDRESSES|MEASURED_BY {count}]->(:Entity)   (derived from the Results)

How it writes
-------------
* Uniqueness constraints first (``CREATE CONSTRAINT ... IF NOT EXISTS``), so every ``MERGE`` is an
  index lookup.
* Every write is ``UNWIND $rows AS row MERGE ... SET ...`` from a ``queries/_load_*.cypher`` file,
  ``batch_size`` nodes or relationships per managed write transaction (``session.execute_write``,
  retried by the driver on transient errors). Relationships travel grouped by their start node
  (one row per paper with parallel lists), which halves the index lookups and the driver's
  packing work. Labels and relationship types are never built from input text: each entity
  type and each role has its own fixed statement, chosen from a dict keyed by the closed sets
  :data:`paperkg.types.ENTITY_TYPES` and :data:`paperkg.types.ROLES`; every value travels as a
  parameter.
* Empty lists (an entity without aliases, a paper without authors) are not stored, as
  ``neo4j-admin database import`` cannot store them either: both ways give the same graph.
* Every statement is idempotent and every write is a ``MERGE`` (never ``CREATE``), so loading
  the same graph again changes nothing, and a load that was killed midway converges to the same
  final graph when it is run again. Nodes are unique by their constraint; a relationship
  ``MERGE`` between two bound nodes locks both before it creates (Neo4j's ``MergeInto``).
* Loads into one database run one at a time (issue 21): each holds the database's load lock
  (:mod:`paperkg.queries.load_lock`) from its read of the existing papers to its counts, so
  loads started at once end in the state of loading their files one after the other, in the
  order they took the lock. Before, two loads of overlapping files pruned each paper before the
  other wrote it, and the paper kept the relationships of both files.
* Writers that take no lock (an older paperkg, a user's Cypher) may still run meanwhile: the
  final orphan sweep of such a load may delete an entity this load has written but not linked
  yet (a batch that had just matched it fails with ``EntityNotFound`` and is retried). So after
  its relationships, every load checks that its entities exist and, if some are gone, writes its
  entities and relationships again (idempotent) before its own sweep; deadlocks are transient
  errors that ``execute_write`` retries.
* Incremental: papers of an earlier load that are not in this file are kept. For the papers in
  the file, the file is the truth: their stale entity relationships and stale links to other
  papers of the file are deleted, and so are their Result nodes the file no longer has and the
  slot relationships of their kept Results that it no longer has. Finally entities without
  papers are deleted, and every ``paper_count`` and the derived entity-entity relationships
  (``EVALUATED_ON``, ``ADDRESSES``, ``MEASURED_BY`` with their ``count``) are recomputed in Neo4j
  from the relationships (never taken from the file: a count spans the results of every load).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import networkx as nx

from paperkg.errors import GraphError
from paperkg.extract.nlp.normalize import bound_key
from paperkg.queries.load_lock import DEFAULT_LOCK_TIMEOUT, load_lock
from paperkg.queries.neo4j_admin import KNOWN_ID_PROPERTIES, ROLE_TYPES, evidence_json
from paperkg.queries.offline import paper_communities, strip_entity_prefix
from paperkg.queries.runner import Neo4jSettings, connect, neo4j_errors, statement
from paperkg.graph.build import DERIVED_EDGES, PAPER_PREFIX
from paperkg.types import ENTITY_TYPES, RESULT_EDGES, ROLES

DEFAULT_BATCH_SIZE = 10_000

#: Entity type -> its loader statement (the only place a label is chosen).
ENTITY_STATEMENTS: dict[str, str] = {
    "Method": "entity_method",
    "Dataset": "entity_dataset",
    "Benchmark": "entity_benchmark",
    "Task": "entity_task",
    "Metric": "entity_metric",
}
#: Role -> its loader statement (the only place a relationship type is chosen).
ROLE_STATEMENTS: dict[str, str] = {
    "proposed": "rel_proposes",
    "used": "rel_uses",
    "mentioned": "rel_mentions",
}
#: Result -> entity relationship type (a slot of :data:`paperkg.types.RESULT_EDGES`) -> its
#: loader statement (the only place such a type is chosen).
RESULT_SLOT_STATEMENTS: dict[str, str] = {
    "ON_DATASET": "rel_on_dataset",
    "MEASURED_BY": "rel_measured_by",
    "ACHIEVED_BY": "rel_achieved_by",
    "FOR_TASK": "rel_for_task",
}
#: Derived entity -> entity relationship type -> the final statement that recomputes it.
DERIVED_STATEMENTS: dict[str, str] = {
    "EVALUATED_ON": "derived_evaluated_on",
    "ADDRESSES": "derived_addresses",
    "MEASURED_BY": "derived_measured_by",
}
#: How often a load writes its entities and relationships again when a writer outside the load
#: lock deleted some of its entities in between (see the module docstring).
ENTITY_REPAIR_ROUNDS = 5
assert set(ENTITY_STATEMENTS) == set(ENTITY_TYPES)
assert set(ROLE_STATEMENTS) == set(ROLES) == set(ROLE_TYPES)
assert set(RESULT_SLOT_STATEMENTS) == set(RESULT_EDGES.values())
assert set(DERIVED_STATEMENTS) == {kind for kind, _, _ in DERIVED_EDGES}


@dataclass(frozen=True)
class LoadRows:
    """The graph as the parameter rows of each loader statement, in graph order."""

    papers: list[dict]
    entities: dict[str, list[dict]]
    relationships: dict[str, list[dict]]
    links: list[dict]
    prune_entities: list[dict]
    prune_links: list[dict]
    #: Result nodes (each also carries its paper's REPORTS), their slot relationships by type,
    #: and per paper the Result ids and ``TYPE:index:key`` slot strings to keep.
    results: list[dict] = field(default_factory=list)
    result_slots: dict[str, list[dict]] = field(default_factory=dict)
    prune_results: list[dict] = field(default_factory=list)
    prune_result_slots: list[dict] = field(default_factory=list)
    #: The file's derived entity-entity edges (Neo4j recomputes them; counted for the report).
    derived: int = 0

    @property
    def node_count(self) -> int:
        return len(self.papers) + sum(map(len, self.entities.values())) + len(self.results)

    @property
    def relationship_count(self) -> int:
        return (sum(map(len, self.relationships.values())) + len(self.links) + len(self.results)
                + sum(map(len, self.result_slots.values())) + self.derived)


@dataclass
class LoadReport:
    """What :func:`load_graph` wrote, and how long each part took (seconds)."""

    uri: str
    database: str
    papers: int = 0
    entities: int = 0
    paper_entity_relationships: int = 0
    links: int = 0
    results: int = 0
    #: REPORTS, the Result -> entity slot relationships and the file's derived entity-entity
    #: relationships (recomputed in Neo4j: equal to the file's in a clean load).
    result_relationships: int = 0
    batches: int = 0
    batch_size: int = DEFAULT_BATCH_SIZE
    prepare_seconds: float = 0.0
    node_seconds: float = 0.0
    relationship_seconds: float = 0.0
    finalize_seconds: float = 0.0
    seconds: float = 0.0
    database_counts: dict[str, int] = field(default_factory=dict)

    @property
    def nodes(self) -> int:
        return self.papers + self.entities + self.results

    @property
    def relationships(self) -> int:
        return self.paper_entity_relationships + self.links + self.result_relationships

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.node_seconds if self.node_seconds else 0.0

    @property
    def relationships_per_second(self) -> float:
        return self.relationships / self.relationship_seconds if self.relationship_seconds else 0.0

    def describe(self) -> str:
        """One line for the CLI."""
        db = self.database_counts
        totals = (f"; the database now holds {db.get('nodes', 0)} nodes and {db.get('relationships', 0)} "
                  f"relationships") if db else ""
        return (f"loaded {self.papers} papers, {self.entities} entities, {self.results} results, "
                f"{self.paper_entity_relationships} paper-entity, {self.links} paper-paper and "
                f"{self.result_relationships} result relationships into {self.uri} (database "
                f"{self.database}) in {self.batches} batches, {self.seconds:.1f} s{totals}")


#: The largest indexed value (UTF-8 bytes) the loader sends: Neo4j's range indexes refuse a value
#: over ~8 KB ("Property value is too large to index"), and one such value failed the whole load.
MAX_INDEXED_BYTES = 4000


def _indexed(value: str, what: str) -> str:
    """``value`` when Neo4j can index it; else a GraphError before anything is sent."""
    size = len(str(value).encode("utf-8", "surrogatepass"))
    if size > MAX_INDEXED_BYTES:
        raise GraphError(f"{what} is {size:,} bytes, over the {MAX_INDEXED_BYTES:,} Neo4j can index; nothing was loaded")
    return value


def _key(attrs: dict) -> str:
    """An entity's key as loaded: bounded like every key a build makes (``bound_key``), so a
    graph of an older version with a long key still loads, as the same key a new build gives."""
    return bound_key(attrs["key"])


def prepare_rows(graph: nx.DiGraph) -> LoadRows:
    """The loader's parameter rows; raises :class:`GraphError` for a type or role outside the
    closed sets (labels and relationship types never come from the input)."""
    communities = paper_communities(graph)
    papers: list[dict] = []
    entities: dict[str, list[dict]] = {t: [] for t in ENTITY_TYPES}
    relationships: dict[str, list[dict]] = {r: [] for r in ROLES}
    links: list[dict] = []
    prune_entities: list[dict] = []
    results: list[dict] = []
    result_slots: dict[str, list[dict]] = {kind: [] for kind in RESULT_SLOT_STATEMENTS}
    prune_results: list[dict] = []
    prune_result_slots: list[dict] = []
    derived = 0
    linked: dict[str, list[str]] = {}
    seen_links: set[tuple[str, str]] = set()
    for node, attrs in graph.nodes(data=True):
        kind = attrs.get("kind")
        if kind == "Paper":
            pid = _indexed(attrs["paper_id"], f"paper {node!r}: its id")
            papers.append({
                "id": pid, "title": attrs.get("title"), "abstract": attrs.get("abstract"),
                "venue": attrs.get("venue"), "year": attrs.get("year"), "url": attrs.get("url"),
                "label": attrs.get("label"), "authors": list(attrs.get("authors") or []) or None,
                "community": communities.get(pid),
            })
            keep = []
            for _, target, data in graph.out_edges(node, data=True):
                if data.get("kind") == "HAS" and data.get("role") in ROLE_TYPES:
                    keep.append(f"{ROLE_TYPES[data['role']]}:{_key(graph.nodes[target])}")
            prune_entities.append({"id": pid, "keep": keep})
            reported = [target for _, target, k in graph.out_edges(node, data="kind") if k == "REPORTS"]
            prune_results.append({"id": pid, "keep": reported})
            prune_result_slots.append({"id": pid, "keep": [
                f"{k}:{graph.nodes[r]['index']}:{_key(graph.nodes[e])}"
                for r in reported for _, e, k in graph.out_edges(r, data="kind") if k in RESULT_SLOT_STATEMENTS]})
            linked[pid] = []
        elif kind == "Entity":
            etype = attrs.get("type")
            if etype not in ENTITY_STATEMENTS:
                raise GraphError(f"entity {attrs.get('key')!r} has type {etype!r}, not one of {', '.join(ENTITY_TYPES)}")
            entities[etype].append({"key": _key(attrs), "name": attrs.get("name"),
                                    "aliases": [str(a) for a in attrs.get("aliases") or []] or None,
                                    "alias_keys": [str(a) for a in attrs.get("alias_keys") or [_key(attrs)]],
                                    **{name: attrs.get(name) for name in KNOWN_ID_PROPERTIES}})
        elif kind == "Result":
            if PAPER_PREFIX + str(attrs.get("paper_id")) not in graph:
                raise GraphError(f"result {node!r} belongs to paper {attrs.get('paper_id')!r}, which the graph lacks")
            upper = attrs.get("upper")
            results.append({
                "id": _indexed(node, f"result {node!r}: its id"), "paper_id": attrs["paper_id"], "index": int(attrs["index"]), "value": attrs.get("value"),
                "start": attrs.get("start"), "end": attrs.get("end"), "number": float(attrs["number"]),
                "upper": None if upper is None else float(upper), "unit": attrs.get("unit"),
                "kind": attrs.get("result_kind"), "evidence": attrs.get("evidence"), "direction": attrs.get("direction"),
            })
        else:
            raise GraphError(f"node {node!r} has kind {kind!r}, expected 'Paper', 'Entity' or 'Result'")
    for source, target, data in graph.edges(data=True):
        kind = data.get("kind")
        if kind == "HAS":
            role = data.get("role")
            if role not in ROLE_STATEMENTS:
                raise GraphError(f"edge {source!r} -> {target!r} has role {role!r}, not one of {', '.join(ROLES)}")
            relationships[role].append({
                "paper": graph.nodes[source]["paper_id"], "key": _key(graph.nodes[target]),
                "count": int(data.get("count", 0)), "evidence": data.get("evidence"),
                "evidence_offset": data.get("evidence_offset"), "confidence": data.get("confidence"),
            })
        elif kind == "RELATED_TO":
            a, b = sorted((graph.nodes[source]["paper_id"], graph.nodes[target]["paper_id"]))
            if (a, b) in seen_links:  # one link per pair, whichever way the graph stores it
                continue
            seen_links.add((a, b))
            links.append({"source": a, "target": b, "weight": float(data["weight"]),
                          "shared": [strip_entity_prefix(s) for s in data.get("shared") or []] or None,
                          "reason": data.get("reason") or None, "evidence": evidence_json(data.get("evidence")),
                          "link_kind": data.get("link_kind") or "entities", "terms": list(data.get("terms") or []) or None})
            linked[a].append(b)
            linked[b].append(a)
        elif kind == "REPORTS":
            continue  # written with its Result node (_load_results)
        elif kind in RESULT_SLOT_STATEMENTS and graph.nodes[source].get("kind") == "Result":
            result_slots[kind].append({"id": source, "key": _key(graph.nodes[target])})
        elif kind in DERIVED_STATEMENTS and graph.nodes[source].get("kind") == "Entity":
            derived += 1  # recomputed in Neo4j from the Results at the end of the load
        else:
            raise GraphError(f"edge {source!r} -> {target!r} has kind {kind!r}, expected 'HAS', 'RELATED_TO', "
                             f"'REPORTS', a result slot or a derived entity edge")
    links.sort(key=lambda row: (row["source"], row["target"]))
    prune_links = [{"id": pid, "linked": others} for pid, others in linked.items()]
    return LoadRows(papers, entities, relationships, links, prune_entities, prune_links,
                    results, result_slots, prune_results, prune_result_slots, derived)


def _batches(rows: Sequence[dict], size: int) -> Iterable[list[dict]]:
    for start in range(0, len(rows), size):
        yield list(rows[start : start + size])


#: Relationship statements take one row per start node with parallel lists (see the .cypher
#: files): statement -> (the group field, {list field: relationship row field}).
_HAS_COLUMNS = ("paper", {"keys": "key", "counts": "count", "evidence": "evidence", "offsets": "evidence_offset",
                          "confidences": "confidence"})
_LINK_COLUMNS = ("source", {"targets": "target", "weights": "weight", "shared": "shared", "reasons": "reason",
                            "evidence": "evidence", "kinds": "link_kind", "terms": "terms"})
GROUPED: dict[str, tuple[str, dict[str, str]]] = {
    **{ROLE_STATEMENTS[r]: _HAS_COLUMNS for r in ROLES},
    "links": _LINK_COLUMNS,
}


def group_rows(rows: Sequence[dict], group: str, columns: dict[str, str]) -> list[dict]:
    """Consecutive rows with the same ``group`` value as one row of parallel lists.

    >>> group_rows([{"p": "a", "k": 1}, {"p": "a", "k": 2}, {"p": "b", "k": 3}], "p", {"ks": "k"})
    [{'p': 'a', 'ks': [1, 2]}, {'p': 'b', 'ks': [3]}]
    """
    grouped: list[dict] = []
    for row in rows:
        if not grouped or grouped[-1][group] != row[group]:
            grouped.append({group: row[group], **{name: [] for name in columns}})
        for name, source in columns.items():
            grouped[-1][name].append(row[source])
    return grouped


def batch_params(key: str, rows: Sequence[dict], size: int) -> Iterable[dict]:
    """The ``$rows`` parameter of each transaction: ``size`` relationships (or nodes) each."""
    for batch in _batches(rows, size):
        if key in GROUPED:
            group, columns = GROUPED[key]
            batch = group_rows(batch, group, columns)
        yield {"rows": batch}


def _write(tx, cypher: str, params: dict) -> None:
    tx.run(cypher, params).consume()


#: Attempts of a batch that fails because a writer outside the load lock deleted an entity the
#: batch had just matched (``EntityNotFound``, a client error the driver does not retry).
DELETED_ENTITY_ATTEMPTS = 5


def _write_batch(session, cypher: str, params: dict) -> None:
    from neo4j.exceptions import ClientError

    for attempt in range(DELETED_ENTITY_ATTEMPTS):
        try:
            session.execute_write(_write, cypher, params)
            return
        except ClientError as exc:
            if exc.code != "Neo.ClientError.Statement.EntityNotFound" or attempt == DELETED_ENTITY_ATTEMPTS - 1:
                raise


def create_schema(driver, settings: Neo4jSettings) -> None:
    """The uniqueness constraints and the type index (``IF NOT EXISTS``: safe to repeat).

    Each in a managed transaction: two loaders creating them at once can deadlock, a transient
    error the driver then retries; and the one that loses the race may be told the rule exists
    already, which is what it wanted.
    """
    from neo4j.exceptions import ClientError

    text = "\n".join(line for line in statement("constraints").splitlines() if not line.lstrip().startswith("//"))
    with neo4j_errors(settings, "creating constraints"), driver.session(database=settings.database) as session:
        for cypher in filter(None, (part.strip() for part in text.split(";"))):
            try:
                session.execute_write(_write, cypher, {})
            except ClientError as exc:
                if not (exc.code or "").startswith(_SCHEMA_EXISTS):
                    raise


#: Codes of a schema rule that another loader created a moment earlier.
_SCHEMA_EXISTS = tuple(f"Neo.ClientError.Schema.{name}" for name in (
    "EquivalentSchemaRuleAlreadyExists", "ConstraintAlreadyExists", "IndexAlreadyExists",
    "ConstraintWithNameAlreadyExists", "IndexWithNameAlreadyExists"))


def existing_papers(driver, settings: Neo4jSettings, paper_ids: Sequence[str]) -> set[str]:
    """Which of ``paper_ids`` are already in the database."""
    with neo4j_errors(settings, "reading existing papers"), driver.session(database=settings.database) as session:
        return set(session.execute_read(_read_ids, paper_ids))


def _read_ids(tx, paper_ids: Sequence[str]) -> list[str]:
    result = tx.run("UNWIND $ids AS id MATCH (p:Paper {id: id}) RETURN p.id AS id", ids=list(paper_ids))
    return [record["id"] for record in result]


def missing_entities(driver, settings: Neo4jSettings, keys: Sequence[str]) -> int:
    """How many of the entity ``keys`` are not in the database."""
    with neo4j_errors(settings, "checking entities"), driver.session(database=settings.database) as session:
        return session.execute_read(_count_missing, list(keys))


def _count_missing(tx, keys: list[str]) -> int:
    record = tx.run("UNWIND $keys AS key OPTIONAL MATCH (e:Entity {key: key}) "
                    "RETURN count(*) - count(e) AS missing", keys=keys).single()
    return int(record["missing"])


def database_counts(driver, settings: Neo4jSettings) -> dict[str, int]:
    """Node and relationship totals of the database."""
    with neo4j_errors(settings, "counting"), driver.session(database=settings.database) as session:
        record = session.run("CALL () { MATCH (n) RETURN count(n) AS nodes } "
                             "CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships } "
                             "RETURN nodes, relationships").single()
        return {"nodes": record["nodes"], "relationships": record["relationships"]}


def load_graph(
    graph: nx.DiGraph,
    settings: Any = None,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = True,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    driver=None,
) -> LoadReport:
    """Load ``graph`` into Neo4j (see the module docstring); returns a :class:`LoadReport`.

    ``settings`` defaults to :meth:`Neo4jSettings.from_env`. Waits up to ``lock_timeout``
    seconds for other loads into the database (:mod:`paperkg.queries.load_lock`), saying so
    when ``progress``. Raises :class:`paperkg.errors.Neo4jError` when Neo4j is unreachable,
    refuses the credentials or rejects a statement, and its subclass
    :class:`paperkg.errors.LoadLockTimeoutError` when the wait times out.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise GraphError(f"batch size must be a positive integer, got {batch_size!r}")
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, (int, float)) or not lock_timeout > 0:
        raise GraphError(f"lock timeout must be a positive number of seconds, got {lock_timeout!r}")
    s = Neo4jSettings.coerce(settings)
    started = time.perf_counter()
    rows = prepare_rows(graph)
    report = LoadReport(uri=s.uri, database=s.database, batch_size=batch_size,
                        papers=len(rows.papers), entities=sum(map(len, rows.entities.values())),
                        paper_entity_relationships=sum(map(len, rows.relationships.values())), links=len(rows.links),
                        results=len(rows.results),
                        result_relationships=len(rows.results) + sum(map(len, rows.result_slots.values())) + rows.derived)
    report.prepare_seconds = time.perf_counter() - started

    own = driver is None
    if own:
        driver = connect(s)
    try:
        create_schema(driver, s)
        # From the read of the existing papers to the counts: a load that interleaved with
        # another one's would prune before the other writes (see paperkg.queries.load_lock).
        with load_lock(driver, s, timeout=lock_timeout, say=_say if progress else None):
            _write_rows(driver, s, rows, report, batch_size, progress)
            report.database_counts = database_counts(driver, s)
    finally:
        if own:
            driver.close()
    report.seconds = time.perf_counter() - started
    return report


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _write_rows(driver, s: Neo4jSettings, rows: LoadRows, report: LoadReport, batch_size: int, progress: bool) -> None:
    """Every write of a load, in order (see the module docstring); counts into ``report``."""
    from tqdm import tqdm

    paper_ids = [row["id"] for row in rows.papers]
    # Only papers already in the database can have stale relationships or links to prune.
    existing = existing_papers(driver, s, paper_ids)
    prune_entities = [row for row in rows.prune_entities if row["id"] in existing]
    prune_links = [row for row in rows.prune_links if row["id"] in existing]
    prune_results = [row for row in rows.prune_results if row["id"] in existing]
    prune_result_slots = [row for row in rows.prune_result_slots if row["id"] in existing]
    # (phase, statement, rows, extra parameters): nodes first, then relationships.
    node_phases = [("papers", "papers", rows.papers, {})]
    entity_phases = [(f"{t} entities", ENTITY_STATEMENTS[t], rows.entities[t], {}) for t in ENTITY_TYPES]
    result_phases = [("results", "results", rows.results, {})]  # after the papers they MATCH
    rel_phases = [("stale paper-entity relationships", "prune_entity_rels", prune_entities, {})]
    has_phases = [(f"{role} relationships", ROLE_STATEMENTS[role], rows.relationships[role], {}) for role in ROLES]
    rel_phases += has_phases
    slot_phases = [(f"result {kind} relationships", RESULT_SLOT_STATEMENTS[kind], rows.result_slots[kind], {})
                   for kind in RESULT_SLOT_STATEMENTS]
    rel_phases += [("stale results", "prune_results", prune_results, {}),
                   ("stale result slots", "prune_result_slots", prune_result_slots, {})] + slot_phases
    rel_phases += [("stale paper links", "prune_links", prune_links, {"paper_ids": paper_ids}),
                   ("paper links", "links", rows.links, {})]
    entity_keys = [row["key"] for t in ENTITY_TYPES for row in rows.entities[t]]
    final_steps = ("orphans", "paper_counts", *DERIVED_STATEMENTS.values())
    phases = node_phases + entity_phases + result_phases + rel_phases
    total = sum(-(-len(r) // batch_size) for _, _, r, _ in phases) + len(final_steps)
    with tqdm(total=total, unit="batch", desc="neo4j load", disable=not progress, leave=False) as bar, \
            driver.session(database=s.database) as session:

        def run(phases) -> None:
            for name, key, phase_rows, extra in phases:
                cypher = statement(key)
                bar.set_postfix_str(name)
                for params in batch_params(key, phase_rows, batch_size):
                    with neo4j_errors(s, f"loading {name}"):
                        _write_batch(session, cypher, {**params, **extra})
                    report.batches += 1
                    bar.update()

        phase_start = time.perf_counter()
        run(node_phases + entity_phases + result_phases)
        report.node_seconds = time.perf_counter() - phase_start
        phase_start = time.perf_counter()
        run(rel_phases)
        for _ in range(ENTITY_REPAIR_ROUNDS):
            if not entity_keys or not missing_entities(driver, s, entity_keys):
                break
            run(entity_phases + has_phases + slot_phases)
        report.relationship_seconds = time.perf_counter() - phase_start
        final_start = time.perf_counter()
        bar.set_postfix_str("paper counts, derived relationships")
        for key in final_steps:
            with neo4j_errors(s, f"loader step {key}"):
                session.execute_write(_write, statement(key), {})
            report.batches += 1
            bar.update()
        report.finalize_seconds = time.perf_counter() - final_start


def load_file(path: str | Path, settings: Any = None, **options) -> LoadReport:
    """Load a saved ``graph.json`` (``paperkg build``'s output) into Neo4j."""
    from paperkg.graph.export import read_node_link

    return load_graph(read_node_link(path), settings, **options)
