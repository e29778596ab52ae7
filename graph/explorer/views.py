"""Views: which nodes and edges each page draws."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from paperkg.errors import GraphError
from paperkg.graph.explorer.config import SIMILARITY_K
from paperkg.graph.explorer.text import short
from paperkg.graph.explorer.universe import Universe


@dataclass
class View:
    name: str
    nodes: list[int]
    edges: list[tuple[str, int, int, dict[str, Any]]]  # (id, u, v, extra vis fields)
    weights: list[float]  # layout attraction per edge
    notes: list[str]
    info: dict[str, Any]
    positions: dict[int, tuple[int, int]] = field(default_factory=dict)


def check_cap(name: str, value: int | None, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GraphError(f"{name} must be a positive integer, got {value!r}")
    return value


def fmt(n: int) -> str:
    return f"{n:,}"


def has_edge(uni: Universe, k: int) -> tuple[str, int, int, dict[str, Any]]:
    row = uni.has[k]
    extra: dict[str, Any] = {"kind": "HAS", "role": row[2]}
    if row[2] == 0:
        extra["width"] = 2
    elif row[2] == 2:
        extra["dashes"] = True
    return (f"h{k}", row[0], row[1], extra)


def rel_edge(uni: Universe, k: int) -> tuple[str, int, int, dict[str, Any]]:
    row = uni.related[k]
    return (f"r{k}", row[0], row[1], {"kind": "REL", "w": row[2]})


def overview_view(uni: Universe, max_entities: int, max_papers: int, max_edges: int) -> View:
    n_p = uni.n_papers
    entity_rank = sorted(range(n_p, len(uni.ids)), key=lambda u: (-len(uni.has_adj[u]), uni.ids[u]))
    chosen_entities = entity_rank[:max_entities]
    chosen = set(chosen_entities)
    score = Counter()
    for u in chosen_entities:
        for k in uni.has_adj[u]:
            score[uni.has[k][0]] += 1
    paper_rank = sorted(range(n_p), key=lambda p: (-score[p], -len(uni.has_adj[p]), uni.ids[p]))
    chosen_papers = paper_rank[:max_papers]
    paper_set = set(chosen_papers)
    edge_ids = [
        k
        for p in sorted(chosen_papers)
        for k in uni.has_adj[p]
        if uni.has[k][1] in chosen
    ]
    dropped_edges = 0
    if len(edge_ids) > max_edges:
        # keep the strongest: proposed > used > mentioned, then more mentions
        edge_ids.sort(key=lambda k: (uni.has[k][2], -uni.has[k][3], k))
        dropped_edges = len(edge_ids) - max_edges
        edge_ids = sorted(edge_ids[:max_edges])
    linked = {uni.has[k][1] for k in edge_ids} | {uni.has[k][0] for k in edge_ids}
    entities = sorted(u for u in chosen_entities if u in linked or not uni.has_adj[u])
    papers = sorted(paper_set)
    notes = []
    n_e = len(uni.ids) - n_p
    if len(chosen_entities) < n_e:
        notes.append(
            f"the {fmt(len(chosen_entities))} entities with the most papers "
            f"(of {fmt(n_e)})"
        )
    if len(papers) < n_p:
        notes.append(f"the {fmt(len(papers))} papers most linked to them (of {fmt(n_p)})")
    if dropped_edges:
        notes.append(f"the {fmt(max_edges)} strongest links ({fmt(dropped_edges)} weaker ones dropped)")
    edges = [has_edge(uni, k) for k in edge_ids]
    return View(
        name="overview",
        nodes=papers + entities,
        edges=edges,
        weights=[1.0] * len(edges),
        notes=notes,
        info={"title": "Overview: papers and their entities"},
    )


def entity_map_view(uni: Universe, max_entities: int, max_edges: int) -> View:
    n_p = uni.n_papers
    entity_rank = sorted(range(n_p, len(uni.ids)), key=lambda u: (-len(uni.has_adj[u]), uni.ids[u]))
    chosen = sorted(entity_rank[:max_entities])
    chosen_set = set(chosen)
    per_paper: dict[int, list[int]] = defaultdict(list)
    for u in chosen:
        for k in uni.has_adj[u]:
            per_paper[uni.has[k][0]].append(u)
    co = Counter()
    for members in per_paper.values():
        members = sorted(set(members))
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                co[(a, b)] += 1
    pairs = sorted(co.items(), key=lambda kv: (-kv[1], uni.ids[kv[0][0]], uni.ids[kv[0][1]]))
    dropped = max(0, len(pairs) - max_edges)
    pairs = sorted(pairs[:max_edges])
    edges = []
    weights = []
    deg = Counter()
    for (a, b), _w in pairs:
        deg[a] += 1
        deg[b] += 1
    mean_deg = (2 * len(pairs) / len(deg)) if deg else 1.0
    for i, ((a, b), w) in enumerate(pairs):
        edges.append((f"c{i}", a, b, {"kind": "CO", "w": w, "value": w}))
        # hubs would pull everything into one knot: damp attraction by the endpoints' degrees
        weights.append(math.log2(1 + w) * mean_deg / math.sqrt(deg[a] * deg[b]) * 0.5)
    notes = []
    n_e = len(uni.ids) - n_p
    if len(chosen) < n_e:
        notes.append(f"the {fmt(len(chosen))} entities with the most papers (of {fmt(n_e)})")
    if dropped:
        notes.append(f"the {fmt(max_edges)} strongest co-occurrences ({fmt(dropped)} weaker ones dropped)")
    assert chosen_set.issuperset(u for _, a, b, _x in edges for u in (a, b))
    return View(
        name="entity-map",
        nodes=chosen,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": "Entity map: entities linked by shared papers"},
    )


def similarity_view(uni: Universe, max_papers: int, max_edges: int) -> View:
    """The ``max_papers`` papers with the largest summed link weight, each joined to its
    strongest neighbours among them (a k-nearest-neighbour graph, k = ``SIMILARITY_K``, which
    stays readable where the globally heaviest links would only draw near-duplicate cliques);
    papers left without a link are not drawn."""
    strength: dict[int, float] = defaultdict(float)
    for a, b, w, _shared in uni.related:
        strength[a] += w
        strength[b] += w
    ranked = sorted(strength, key=lambda p: (-strength[p], uni.ids[p]))
    chosen = set(ranked[:max_papers])
    picked: set[int] = set()
    for p in sorted(chosen):
        links = [k for k in uni.rel_adj[p] if uni.related[k][0] in chosen and uni.related[k][1] in chosen]
        links.sort(key=lambda k: (-uni.related[k][2], k))
        picked.update(links[:SIMILARITY_K])
    edge_ids = sorted(picked, key=lambda k: (-uni.related[k][2], k))
    dropped = max(0, len(edge_ids) - max_edges)
    edge_ids = sorted(edge_ids[:max_edges])
    papers = sorted({p for k in edge_ids for p in uni.related[k][:2]})
    notes = []
    linked_total = len(strength)
    if len(papers) < linked_total:
        notes.append(
            f"the {fmt(len(papers))} most strongly linked papers "
            f"(of {fmt(linked_total)} with similarity links), each with its "
            f"{SIMILARITY_K} strongest links among them"
        )
    if uni.n_papers > linked_total:
        notes.append(f"{fmt(uni.n_papers - linked_total)} papers without similarity links are not drawn")
    if dropped:
        notes.append(f"the {fmt(max_edges)} heaviest links ({fmt(dropped)} lighter ones dropped)")
    edges = [rel_edge(uni, k) for k in edge_ids]
    weights = [max(0.2, min(3.0, 1.0 + row[3]["w"])) for row in edges]
    return View(
        name="similarity",
        nodes=papers,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": "Paper similarity: papers linked through shared entities"},
    )


def neighbours(uni: Universe, u: int) -> list[int]:
    out = []
    for k in uni.has_adj[u]:
        row = uni.has[k]
        out.append(row[1] if row[0] == u else row[0])
    for k in uni.rel_adj[u]:
        row = uni.related[k]
        out.append(row[1] if row[0] == u else row[0])
    return out


def ego_nodes(uni: Universe, center: int, hops: int, cap: int) -> tuple[dict[int, int], bool]:
    """Nodes within ``hops`` of ``center`` (node -> hop), at most ``cap`` of them.

    Hop by hop; when a ring does not fit, its nodes with the most links into the previous ring
    win (then higher degree, then id) and the walk stops. ``explorer.js`` (``egoGraph``) runs
    the same algorithm for the in-page focus mode, so both give the same node set.
    """
    dist = {center: 0}
    frontier = [center]
    truncated = False
    for hop in range(1, hops + 1):
        links = Counter()
        for u in frontier:
            for v in neighbours(uni, u):
                if v not in dist:
                    links[v] += 1
        if not links:
            break
        ring = sorted(links, key=lambda v: (-links[v], -uni.degree(v), uni.ids[v]))
        room = cap - len(dist)
        if len(ring) > room:
            ring = ring[: max(room, 0)]
            truncated = True
        for v in ring:
            dist[v] = hop
        frontier = ring
        if truncated:
            break
    return dist, truncated


def resolve_node(uni: Universe, g: nx.Graph, focus: str) -> int:
    focus = str(focus)
    for candidate in (focus, "paper:" + focus, "entity:" + focus):
        if candidate in uni.index:
            return uni.index[candidate]
    lowered = focus.casefold()
    hits = [
        uni.n_papers + j
        for j, rec in enumerate(uni.entities)
        if rec["n"].casefold() == lowered
    ]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        options = ", ".join(uni.ids[h] for h in hits[:5])
        raise GraphError(f"focus {focus!r} names several entities: {options}")
    raise GraphError(f"focus {focus!r} is not a paper or entity of this graph")


def ego_edges(uni: Universe, members: set[int], max_edges: int) -> tuple[list[str], int]:
    """Edge ids among ``members``: paper-entity links first (strongest first), then the
    heaviest similarity links, at most ``max_edges``; sorted by id. Mirrors ``egoEdges`` in
    explorer.js. Returns (ids, number dropped)."""
    has_ids, rel_ids = [], []
    for u in sorted(members):
        for k in uni.has_adj[u]:
            if uni.has[k][0] == u and uni.has[k][1] in members:
                has_ids.append(k)
        for k in uni.rel_adj[u]:
            if uni.related[k][0] == u and uni.related[k][1] in members:
                rel_ids.append(k)
    has_ids.sort(key=lambda k: (uni.has[k][2], -uni.has[k][3], k))
    rel_ids.sort(key=lambda k: (-uni.related[k][2], k))
    ranked = [f"h{k}" for k in has_ids] + [f"r{k}" for k in rel_ids]
    kept = ranked[:max_edges]
    return sorted(kept), len(ranked) - len(kept)


def focus_view(uni: Universe, center: int, hops: int, cap: int, max_edges: int) -> View:
    dist, truncated = ego_nodes(uni, center, hops, cap)
    nodes = sorted(dist)
    edge_ids, dropped = ego_edges(uni, set(nodes), max_edges)
    edges = [
        has_edge(uni, int(e[1:])) if e[0] == "h" else rel_edge(uni, int(e[1:])) for e in edge_ids
    ]
    name = uni.label(center)
    notes = []
    if truncated:
        notes.append(f"capped at {fmt(cap)} nodes (the most connected first)")
    if dropped:
        notes.append(f"the {fmt(max_edges)} strongest links ({fmt(dropped)} weaker ones dropped)")
    return View(
        name="focus",
        nodes=nodes,
        edges=edges,
        weights=[1.0 if e[3]["kind"] == "HAS" else 0.3 for e in edges],
        notes=notes,
        info={
            "title": f"Focus: {short(name, 80)} ({hops} hop{'s' if hops != 1 else ''})",
            "center": uni.ids[center],
            "hops": hops,
        },
    )
