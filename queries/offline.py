"""The named-query library over the NetworkX graph: the twin of ``queries/*.cypher``.

Each function here answers the same question as the ``.cypher`` file of the same name, with
identical rows in identical order (ties broken by key or paper id), so ``kg.query(name, ...)``
and ``paperkg query NAME --graph graph.json`` work without a Neo4j server and give what
``paperkg query NAME`` gives against a server loaded with the same graph. The parameters (names,
types, defaults) are declared once, in the ``.cypher`` headers; :func:`run_named_query` binds
and converts them, then calls the function.

Entity parameters are names, keys, aliases or acronyms, normalized ("MuJoCo" -> ``mujoco``,
"SAC" -> ``sac``); the entity is the one with that key, else the most-mentioned one listing it
in ``alias_keys`` (:func:`paperkg.graph.analytics.entity_for_key`), as in the Cypher. An unknown
entity or paper gives no rows, as the Cypher does.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping

import networkx as nx

from paperkg.graph import analytics, results
from paperkg.graph.build import ENTITY_PREFIX, PAPER_PREFIX, entity_nodes
from paperkg.graph.communities import community_of
from paperkg.types import ENTITY_TYPES


def _entity(graph: nx.DiGraph, key: str) -> str | None:
    return analytics.entity_for_key(graph, key)


def _paper(graph: nx.DiGraph, paper_id: str) -> str | None:
    node = PAPER_PREFIX + paper_id
    return node if graph.nodes.get(node, {}).get("kind") == "Paper" else None


def _papers_of(graph: nx.DiGraph, entity: str) -> list[str]:
    return [p for p, _, kind in graph.in_edges(entity, data="kind") if kind == "HAS"]


def _entities_of(graph: nx.DiGraph, paper: str) -> list[tuple[str, dict]]:
    return [(e, data) for _, e, data in graph.out_edges(paper, data=True) if data["kind"] == "HAS"]


def strip_entity_prefix(value: str) -> str:
    """An entity key from a key or an ``entity:<key>`` node id."""
    return value[len(ENTITY_PREFIX):] if value.startswith(ENTITY_PREFIX) else value


def paper_communities(graph: nx.DiGraph) -> dict[str, int]:
    """Paper id -> its community number (``community`` of the paper node, -1 without links).

    The communities are :func:`paperkg.graph.communities.add_communities` (Louvain, seed 0); the
    loader stores them as ``Paper.community`` so that ``bridge_entities`` runs in plain Cypher.
    """
    return {graph.nodes[node]["paper_id"]: number for node, number in community_of(graph).items()}


# --------------------------------------------------------------------------- the queries


def top_entities(graph: nx.DiGraph, type: str | None = None, k: int = 10) -> list[dict]:
    rows = []
    for kind in ENTITY_TYPES:
        if type is None or kind == type:
            for row in analytics.entity_frequencies(graph, type=kind, limit=k):
                rows.append({"type": kind, "key": row["key"], "name": row["name"], "paper_count": row["paper_count"]})
    return rows


def papers_with(graph: nx.DiGraph, entity: str, role: str | None = None) -> list[dict]:
    node = _entity(graph, entity)
    if node is None:
        return []
    return [{"paper_id": r["paper_id"], "label": r["label"], "role": r["role"], "count": r["count"]}
            for r in analytics.papers_with(graph, node, role=role)]


def _cooccurring_of_type(graph: nx.DiGraph, node: str, wanted: str) -> tuple[Counter, Counter]:
    papers: Counter = Counter()
    proposed: Counter = Counter()
    for paper in _papers_of(graph, node):
        for other, data in _entities_of(graph, paper):
            if other != node and graph.nodes[other]["type"] == wanted:
                papers[other] += 1
                proposed[other] += data["role"] == "proposed"
    return papers, proposed


def methods_on_dataset(graph: nx.DiGraph, dataset: str, k: int = 20) -> list[dict]:
    node = _entity(graph, dataset)
    if node is None or graph.nodes[node]["type"] not in ("Dataset", "Benchmark"):
        return []
    papers, proposed = _cooccurring_of_type(graph, node, "Method")
    rows = [{"key": graph.nodes[m]["key"], "name": graph.nodes[m]["name"], "papers": n, "proposed": proposed[m]}
            for m, n in papers.items()]
    rows.sort(key=lambda r: (-r["papers"], r["key"]))
    return rows[:k]


def tasks_for_method(graph: nx.DiGraph, method: str, k: int = 20) -> list[dict]:
    node = _entity(graph, method)
    if node is None:
        return []
    papers, _ = _cooccurring_of_type(graph, node, "Task")
    rows = [{"key": graph.nodes[t]["key"], "name": graph.nodes[t]["name"], "papers": n} for t, n in papers.items()]
    rows.sort(key=lambda r: (-r["papers"], r["key"]))
    return rows[:k]


def similar_papers(graph: nx.DiGraph, paper: str, k: int = 10) -> list[dict]:
    if _paper(graph, paper) is None:
        return []
    return [{"paper_id": r["paper_id"], "label": r["label"], "weight": r["weight"], "link_kind": r["link_kind"],
             "shared": [strip_entity_prefix(s) for s in r["shared"]], "terms": r["terms"]}
            for r in analytics.similar_papers(graph, paper, k=k)]


def papers_sharing_entities(graph: nx.DiGraph, paper: str, k: int = 10) -> list[dict]:
    node = _paper(graph, paper)
    if node is None:
        return []
    shared: dict[str, list[str]] = {}
    for entity, _ in _entities_of(graph, node):
        for other in _papers_of(graph, entity):
            if other != node:
                shared.setdefault(other, []).append(graph.nodes[entity]["key"])
    rows = [{"paper_id": graph.nodes[p]["paper_id"], "label": graph.nodes[p]["label"], "shared": len(keys),
             "entities": sorted(keys)} for p, keys in shared.items()]
    rows.sort(key=lambda r: (-r["shared"], r["paper_id"]))
    return rows[:k]


def cooccurring(graph: nx.DiGraph, entity: str, k: int = 10) -> list[dict]:
    node = _entity(graph, entity)
    if node is None:
        return []
    return [{"key": r["key"], "name": r["name"], "type": r["type"], "papers": r["papers"]}
            for r in analytics.cooccurring(graph, node, k=k)]


def _node_row(graph: nx.DiGraph, step: int, node: str) -> dict:
    attrs = graph.nodes[node]
    if attrs["kind"] == "Paper":
        return {"step": step, "kind": "Paper", "id": attrs["paper_id"], "name": attrs["label"]}
    return {"step": step, "kind": attrs["type"], "id": attrs["key"], "name": attrs["name"]}


def shortest_path(graph: nx.DiGraph, from_paper: str, to_paper: str) -> list[dict]:
    source, target = _paper(graph, from_paper), _paper(graph, to_paper)
    if source is None or target is None:
        return []
    if source == target:
        return [_node_row(graph, 0, source)]
    bipartite = nx.Graph()
    bipartite.add_edges_from((u, v) for u, v, kind in graph.edges(data="kind") if kind == "HAS")
    if source not in bipartite or target not in bipartite:
        return []

    def ids(path: list[str]) -> list[str]:
        return [graph.nodes[n]["paper_id"] if graph.nodes[n]["kind"] == "Paper" else graph.nodes[n]["key"] for n in path]

    try:
        best = min(nx.all_shortest_paths(bipartite, source, target), key=ids)
    except nx.NetworkXNoPath:
        return []
    return [_node_row(graph, step, node) for step, node in enumerate(best)]


def proposed_by(graph: nx.DiGraph, paper: str) -> list[dict]:
    node = _paper(graph, paper)
    if node is None:
        return []
    rows = [{"key": graph.nodes[e]["key"], "name": graph.nodes[e]["name"], "type": graph.nodes[e]["type"],
             "count": data["count"], "evidence": data["evidence"]}
            for e, data in _entities_of(graph, node) if data["role"] == "proposed"]
    return sorted(rows, key=lambda r: r["key"])


def bridge_entities(graph: nx.DiGraph, type: str | None = None, k: int = 10) -> list[dict]:
    community = {PAPER_PREFIX + paper: group for paper, group in paper_communities(graph).items()}
    rows = []
    for node in entity_nodes(graph):
        attrs = graph.nodes[node]
        if type is not None and attrs["type"] != type:
            continue
        papers = _papers_of(graph, node)
        if papers:
            rows.append({"key": attrs["key"], "name": attrs["name"], "type": attrs["type"],
                         "communities": len({community[p] for p in papers}), "papers": len(papers)})
    rows.sort(key=lambda r: (-r["communities"], -r["papers"], r["key"]))
    return rows[:k]


def most_linked_papers(graph: nx.DiGraph, k: int = 10) -> list[dict]:
    return [{"paper_id": r["paper_id"], "label": r["label"], "links": r["links"]}
            for r in analytics.most_linked_papers(graph, k=k)]


def _columns(rows: list[dict], columns: tuple[str, ...]) -> list[dict]:
    return [{c: row[c] for c in columns} for row in rows]


def leaderboard(graph: nx.DiGraph, dataset: str, metric: str | None = None, task: str | None = None,
                k: int = 50) -> list[dict]:
    return _columns(results.leaderboard(graph, dataset, metric=metric, task=task, k=k),
                    ("metric", "method", "value", "number", "unit", "direction", "task", "paper_id", "label", "evidence"))


def results_for(graph: nx.DiGraph, method: str, k: int = 50) -> list[dict]:
    return _columns(results.method_results(graph, method, k=k),
                    ("paper_id", "label", "value", "number", "unit", "kind", "metric", "dataset", "task", "evidence"))


#: Query name -> its NetworkX implementation (the keys are exactly the ``.cypher`` names).
NAMED_QUERIES: dict[str, Callable[..., list[dict]]] = {
    "top_entities": top_entities,
    "papers_with": papers_with,
    "methods_on_dataset": methods_on_dataset,
    "tasks_for_method": tasks_for_method,
    "similar_papers": similar_papers,
    "papers_sharing_entities": papers_sharing_entities,
    "cooccurring": cooccurring,
    "shortest_path": shortest_path,
    "proposed_by": proposed_by,
    "bridge_entities": bridge_entities,
    "most_linked_papers": most_linked_papers,
    "leaderboard": leaderboard,
    "results_for": results_for,
}


def run_named_query(graph: nx.DiGraph, name: str, params: Mapping[str, Any] | None = None) -> list[dict]:
    """Run a named query over ``graph``: same parameters, checks and rows as the Cypher version.

    Raises :class:`paperkg.errors.QueryError` for an unknown name or a missing/extra parameter.
    """
    from paperkg.queries.runner import get_query

    spec = get_query(name)
    bound = spec.bind(params)
    return NAMED_QUERIES[name](graph, **bound)


__all__ = ["NAMED_QUERIES", "paper_communities", "run_named_query", "strip_entity_prefix", *NAMED_QUERIES]
