"""Analytics over the knowledge graph: frequencies, similar papers, co-occurrence, communities.

Every function takes the graph and returns plain rows; ties are broken by id so that results
are deterministic (and match the Cypher versions in ``queries/`` exactly).
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

import networkx as nx

from paperkg.errors import GraphError
from paperkg.extract.nlp.normalize import normalize_key, variant_key
from paperkg.graph.build import ENTITY_PREFIX, PAPER_PREFIX, entity_nodes, paper_nodes
from paperkg.graph.communities import community_labels, community_of, label_coverage, louvain_groups
from paperkg.types import ENTITY_TYPES


def _example_graph() -> nx.DiGraph:
    """Three papers sharing entities, for the examples below."""
    graph = nx.DiGraph()
    for paper, entities in {"p1": ["sac", "mujoco"], "p2": ["sac", "mujoco"], "p3": ["mujoco"]}.items():
        graph.add_node(PAPER_PREFIX + paper, kind="Paper", paper_id=paper, label=paper)
        for key in entities:
            kind = "Benchmark" if key == "mujoco" else "Method"
            graph.add_node(ENTITY_PREFIX + key, kind="Entity", type=kind, key=key, name=key.upper(), aliases=[], paper_count=0)
            graph.add_edge(PAPER_PREFIX + paper, ENTITY_PREFIX + key, kind="HAS", role="used", count=1)
    for key in ("sac", "mujoco"):
        graph.nodes[ENTITY_PREFIX + key]["paper_count"] = graph.in_degree(ENTITY_PREFIX + key)
    graph.add_edge("paper:p1", "paper:p2", kind="RELATED_TO", weight=0.9, shared=["sac"])
    return graph


def entity_for_key(graph: nx.DiGraph, key: str) -> str | None:
    """The entity node whose key is ``key``, else the one with most papers (then the smallest
    key) listing ``key`` in its ``alias_keys``: exactly what the named Cypher queries match.

    >>> g = _example_graph(); g.nodes["entity:sac"]["alias_keys"] = ["sac", "soft actor critic"]
    >>> entity_for_key(g, "soft actor critic"), entity_for_key(g, "nothing")
    ('entity:sac', None)
    """
    node = ENTITY_PREFIX + key
    if graph.nodes.get(node, {}).get("kind") == "Entity":
        return node
    hits = [n for n in entity_nodes(graph) if key in (graph.nodes[n].get("alias_keys") or ())]
    if not hits:
        return None
    return min(hits, key=lambda n: (-graph.nodes[n].get("paper_count", 0), graph.nodes[n]["key"]))


def find_entity(graph: nx.DiGraph, name: str) -> str | None:
    """The entity node for a name, key, alias or acronym (normalized), or None.

    Tries the key and the alias keys (:func:`entity_for_key`), then spelling variants of them
    ("Hotpot QA" finds hotpotqa) and the written aliases (graphs saved before alias keys).
    """
    if name.startswith(ENTITY_PREFIX) and graph.nodes.get(name, {}).get("kind") == "Entity":
        return name
    key = normalize_key(name)
    found = entity_for_key(graph, key)
    if found is not None:
        return found
    variant = variant_key(key)
    hits = []
    for node in entity_nodes(graph):
        attrs = graph.nodes[node]
        keys = {attrs["key"], normalize_key(attrs["name"]), *attrs.get("alias_keys", ()),
                *(normalize_key(a) for a in attrs.get("aliases", ()))}
        if key in keys or variant in {variant_key(k) for k in keys}:
            hits.append(node)
    return min(hits, key=lambda n: (-graph.nodes[n].get("paper_count", 0), n)) if hits else None


def resolve_entity(graph: nx.DiGraph, name: str) -> str:
    """The entity node for a name, key, alias or acronym; raises GraphError naming it.

    >>> resolve_entity(_example_graph(), "Sac")
    'entity:sac'
    """
    found = find_entity(graph, name)
    if found is None:
        raise GraphError(f"no entity named {name!r} in the graph")
    return found


def resolve_paper(graph: nx.DiGraph, paper_id: str) -> str:
    """The paper node for a paper id; raises GraphError naming it."""
    node = paper_id if paper_id.startswith(PAPER_PREFIX) else PAPER_PREFIX + paper_id
    if graph.nodes.get(node, {}).get("kind") != "Paper":
        raise GraphError(f"no paper with id {paper_id!r} in the graph")
    return node


def entity_frequencies(graph: nx.DiGraph, type: str | None = None, limit: int | None = None) -> list[dict]:
    """Entities by the number of papers that mention them, most frequent first.

    >>> [(r["name"], r["paper_count"]) for r in entity_frequencies(_example_graph())]
    [('MUJOCO', 3), ('SAC', 2)]
    """
    if type is not None and type not in ENTITY_TYPES:
        raise GraphError(f"unknown entity type {type!r}; choose one of {', '.join(ENTITY_TYPES)}")
    rows = [
        {"key": attrs["key"], "name": attrs["name"], "type": attrs["type"], "paper_count": attrs["paper_count"]}
        for node, attrs in graph.nodes(data=True)
        if attrs["kind"] == "Entity" and (type is None or attrs["type"] == type)
    ]
    rows.sort(key=lambda r: (-r["paper_count"], r["key"]))
    return rows[:limit] if limit is not None else rows


def papers_with(graph: nx.DiGraph, name: str, role: str | None = None) -> list[dict]:
    """Papers linked to an entity (by name, key or alias), optionally with one role only.

    >>> [r["paper_id"] for r in papers_with(_example_graph(), "SAC")]
    ['p1', 'p2']
    """
    entity = resolve_entity(graph, name)
    rows = []
    for paper, _, data in graph.in_edges(entity, data=True):
        if data["kind"] == "HAS" and (role is None or data["role"] == role):
            attrs = graph.nodes[paper]
            rows.append({"paper_id": attrs["paper_id"], "label": attrs["label"], "role": data["role"], "count": data["count"]})
    return sorted(rows, key=lambda r: r["paper_id"])


def similar_papers(graph: nx.DiGraph, paper_id: str, k: int = 10) -> list[dict]:
    """The papers linked to ``paper_id`` (similar text, shared entities or both), strongest first.

    >>> [(r["paper_id"], r["weight"]) for r in similar_papers(_example_graph(), "p1")]
    [('p2', 0.9)]
    """
    node = resolve_paper(graph, paper_id)
    rows = []
    for other in set(graph.successors(node)) | set(graph.predecessors(node)):
        data = graph.get_edge_data(node, other) or graph.get_edge_data(other, node)
        if data.get("kind") == "RELATED_TO":
            attrs = graph.nodes[other]
            rows.append({"paper_id": attrs["paper_id"], "label": attrs["label"], "weight": data["weight"],
                         "link_kind": data.get("link_kind") or "entities", "shared": list(data["shared"]),
                         "terms": list(data.get("terms") or [])})
    rows.sort(key=lambda r: (-r["weight"], r["paper_id"]))
    return rows[:k]


def cooccurring(graph: nx.DiGraph, name: str, k: int = 10) -> list[dict]:
    """Entities that appear in the same papers as ``name``, by the number of shared papers.

    >>> [(r["name"], r["papers"]) for r in cooccurring(_example_graph(), "sac")]
    [('MUJOCO', 2)]
    """
    entity = resolve_entity(graph, name)
    counts: Counter = Counter()
    for paper, _, kind in graph.in_edges(entity, data="kind"):
        if kind != "HAS":
            continue
        for _, other, other_kind in graph.out_edges(paper, data="kind"):
            if other_kind == "HAS" and other != entity:
                counts[other] += 1
    rows = [
        {"key": graph.nodes[n]["key"], "name": graph.nodes[n]["name"], "type": graph.nodes[n]["type"], "papers": c}
        for n, c in counts.items()
    ]
    rows.sort(key=lambda r: (-r["papers"], r["key"]))
    return rows[:k]


def most_linked_papers(graph: nx.DiGraph, k: int = 10) -> list[dict]:
    """Papers with the most RELATED_TO links (ties by paper id)."""
    degree: Counter = Counter()
    for source, target, kind in graph.edges(data="kind"):
        if kind == "RELATED_TO":
            degree[source] += 1
            degree[target] += 1
    rows = [{"paper_id": graph.nodes[n]["paper_id"], "label": graph.nodes[n]["label"], "links": degree[n]} for n in paper_nodes(graph)]
    rows.sort(key=lambda r: (-r["links"], r["paper_id"]))
    return rows[:k]


def communities(graph: nx.DiGraph, *, seed: int = 0, resolution: float = 1.0) -> list[list[str]]:
    """Louvain communities of papers over the similarity links, largest first (paper ids);
    a paper without links is a community of its own, after the others.

    >>> communities(_example_graph())
    [['p1', 'p2'], ['p3']]
    """
    groups = [[graph.nodes[n]["paper_id"] for n in group] for group in louvain_groups(graph, seed=seed, resolution=resolution)]
    grouped = {p for group in groups for p in group}
    groups += [[p] for p in sorted(graph.nodes[n]["paper_id"] for n in paper_nodes(graph)) if p not in grouped]
    return [sorted(g) for g in groups]


def community_summary(graph: nx.DiGraph, k: int = 10) -> list[dict]:
    """The ``k`` largest paper communities: number, papers, and their most specific entities.
    ``covered``: the share of its papers that hold one of its label entities (under half: the
    label names only part of the topic, and ``paperkg stats`` says so).

    >>> from paperkg.graph.communities import add_communities
    >>> community_summary(add_communities(_example_graph()))
    [{'community': 0, 'papers': 2, 'labels': [], 'covered': 0.0}]
    """
    sizes = Counter(c for c in community_of(graph).values() if c != -1)
    labels = community_labels(graph)
    coverage = label_coverage(graph, labels)
    return [
        {"community": c, "papers": n, "labels": [graph.nodes[e]["name"] for e in labels.get(c, [])],
         "covered": coverage.get(c, 0.0)}
        for c, n in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))[:k]
    ]


def counts(graph: nx.DiGraph) -> dict:
    """Node and edge counts by kind and type."""
    types = Counter(attrs["type"] for _, attrs in graph.nodes(data=True) if attrs["kind"] == "Entity")
    edges = Counter(kind for _, _, kind in graph.edges(data="kind"))
    return {
        "papers": len(paper_nodes(graph)),
        "entities": sum(types.values()),
        "entities_by_type": {t: types.get(t, 0) for t in ENTITY_TYPES},
        "paper_entity_edges": edges.get("HAS", 0),
        "paper_links": edges.get("RELATED_TO", 0),
        "communities": len(set(community_of(graph).values()) - {-1}),
    }


def iter_entities(graph: nx.DiGraph, type: str | None = None) -> Iterator[dict]:
    """Every entity node's attributes (optionally one type), in key order."""
    for row in sorted(
        (attrs for _, attrs in graph.nodes(data=True) if attrs["kind"] == "Entity" and (type is None or attrs["type"] == type)),
        key=lambda a: a["key"],
    ):
        yield dict(row)
