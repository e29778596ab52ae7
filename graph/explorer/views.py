"""Views: which nodes and edges each page draws."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from paperkg.errors import GraphError
from paperkg.graph.communities import NO_COMMUNITY, umbrella_threshold
from paperkg.graph.explorer.config import MAX_TOPICS, MIN_SHARED, MIN_TOPIC_PAPERS, SIMILARITY_K, TOPIC_K
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
    boxes: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # label half w, half h, radius


def check_cap(name: str, value: int | None, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GraphError(f"{name} must be a positive integer, got {value!r}")
    return value


def fmt(n: int) -> str:
    return f"{n:,}"


def strongest(ranked: list, cap: int) -> tuple[list, int]:
    """The first ``cap`` of ``ranked`` (strongest first) in sorted order, and how many were dropped."""
    return sorted(ranked[:cap]), max(0, len(ranked) - cap)


def dropped_note(cap: int, dropped: int, what: str, weaker: str = "weaker") -> list[str]:
    """The note of a capped view, ``["the 2,000 strongest links (35 weaker ones dropped)"]``; ``[]``
    when nothing was dropped."""
    return [f"the {fmt(cap)} {what} ({fmt(dropped)} {weaker} ones dropped)"] if dropped else []


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


def cluster_node(community: int) -> int:
    """The view node of a community (-1: the papers without links) on the topic map: negative,
    so it never meets a universe index (``payload`` turns it into the vis node ``community:<n>``)."""
    return -2 - community


def cluster_radius(papers: int) -> float:
    """Radius in px of a topic on the map: its area grows with its papers."""
    return round(14 + 3.2 * math.sqrt(papers), 1)


def topic_lines(uni: Universe, community: int, labels: list[int], papers: int) -> list[str]:
    """The label of a topic on the map: its two most specific entities, then its size."""
    if community == NO_COMMUNITY:
        return ["no similarity link", f"{fmt(papers)} papers"]
    names = [short(uni.label(u)) for u in labels[:2]] or ["(no shared entity)"]
    return [*names, f"{fmt(papers)} papers"]


def topic_map_view(uni: Universe, max_edges: int) -> View:
    """Communities of papers as clusters sized by papers, each joined to the communities it
    shares the most link weight with (per pair: summed RELATED_TO weight over the square root
    of the two sizes; each cluster keeps its ``TOPIC_K`` strongest, at most ``max_edges``).
    Drawn: the ``MAX_TOPICS`` largest topics of ``MIN_TOPIC_PAPERS`` papers or more (of any
    size when none is that large); a paper of another topic opens it from the search."""
    size = {c: n for c, n, _labels in uni.communities}
    floor = min(MIN_TOPIC_PAPERS, max((n for c, n in size.items() if c != NO_COMMUNITY), default=0))
    big = [c for c, n, _labels in uni.communities if n >= floor]
    drawn = set(big[:MAX_TOPICS])
    community = {p: c for p, c in enumerate(uni.community) if c in drawn}
    between: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0])
    for a, b, w in uni.related:
        ca, cb = community.get(a), community.get(b)
        if ca is not None and cb is not None and ca != cb:
            pair = between[(min(ca, cb), max(ca, cb))]
            pair[0] += w
            pair[1] += 1
    strength = {pair: total / math.sqrt(size[pair[0]] * size[pair[1]]) for pair, (total, _n) in between.items()}
    per_cluster: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for pair in strength:
        per_cluster[pair[0]].append(pair)
        per_cluster[pair[1]].append(pair)
    picked: set[tuple[int, int]] = set()
    for pairs in per_cluster.values():
        pairs.sort(key=lambda pair: (-strength[pair], pair))
        picked.update(pairs[:TOPIC_K])
    ranked, dropped = strongest(sorted(picked, key=lambda pair: (-strength[pair], pair)), max_edges)
    edges, weights = [], []
    top = max((strength[pair] for pair in ranked), default=1.0) or 1.0
    for i, (ca, cb) in enumerate(ranked):
        edges.append((f"t{i}", cluster_node(ca), cluster_node(cb),
                       {"kind": "TOPIC", "w": round(strength[(ca, cb)], 4), "n": between[(ca, cb)][1]}))
        weights.append(0.2 + strength[(ca, cb)] / top)
    nodes = [cluster_node(c) for c in sorted(drawn)]
    boxes = {}
    for c, n, labels in uni.communities:
        if c not in drawn:
            continue
        radius, lines = cluster_radius(n), topic_lines(uni, c, labels, n)
        # about 7.2 px per character and 16 px per line at the map's 13 px label font
        boxes[cluster_node(c)] = (max(len(line) for line in lines) * 3.6, len(lines) * 8.0, radius)
    unlinked = size.get(NO_COMMUNITY, 0)
    topics = len(size) - (1 if unlinked else 0)
    notes = []
    if len(drawn) < len(size):
        left = sum(n for c, n in size.items() if c not in drawn)
        notes.append(f"the {fmt(len(drawn))} largest clusters (of {fmt(len(size))}; the other {fmt(left)} papers are in smaller ones)")
    if unlinked:
        notes.append(f"{fmt(unlinked)} papers without similarity links are the grey cluster “no similarity link”")
    notes += dropped_note(max_edges, dropped, "strongest links between topics")
    return View(
        name="overview",
        nodes=nodes,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": f"Topic map: {fmt(topics)} {'community' if topics == 1 else 'communities'} of papers, "
                       "labelled by their most specific entities"},
        boxes=boxes,
    )


def entity_map_view(uni: Universe, max_entities: int, max_edges: int) -> View:
    """Entities linked by the papers they share: only pairs shared by ``MIN_SHARED`` papers or
    more, ranked by association (shared papers over the geometric mean of both paper counts,
    so hubs do not win by size alone); umbrella terms
    (:func:`paperkg.graph.communities.umbrella_threshold`) are left out. The ``max_entities``
    entities with the most papers among the rest are candidates; the drawn ones have a link."""
    n_p = uni.n_papers
    umbrella_at = umbrella_threshold(n_p)
    umbrellas = [u for u in range(n_p, len(uni.ids)) if len(uni.has_adj[u]) > umbrella_at]
    candidates = [u for u in range(n_p, len(uni.ids)) if 1 < len(uni.has_adj[u]) <= umbrella_at]
    entity_rank = sorted(candidates, key=lambda u: (-len(uni.has_adj[u]), uni.ids[u]))
    chosen = sorted(entity_rank[:max_entities])
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
    papers_of = {u: len(uni.has_adj[u]) for u in chosen}
    assoc = {pair: w / math.sqrt(papers_of[pair[0]] * papers_of[pair[1]]) for pair, w in co.items() if w >= MIN_SHARED}
    pairs, dropped = strongest(
        sorted(assoc, key=lambda pair: (-assoc[pair], -co[pair], uni.ids[pair[0]], uni.ids[pair[1]])), max_edges)
    edges = []
    weights = []
    deg = Counter()
    for a, b in pairs:
        deg[a] += 1
        deg[b] += 1
    mean_deg = (2 * len(pairs) / len(deg)) if deg else 1.0
    for i, (a, b) in enumerate(pairs):
        w = co[(a, b)]
        edges.append((f"c{i}", a, b, {"kind": "CO", "w": w, "value": w}))
        # hubs would pull everything into one knot: damp attraction by the endpoints' degrees
        weights.append(math.log2(1 + w) * mean_deg / math.sqrt(deg[a] * deg[b]) * 0.5)
    drawn = sorted(deg)
    notes = [f"entities linked by {MIN_SHARED} or more shared papers"]
    if umbrellas:
        names = ", ".join(uni.label(u) for u in sorted(umbrellas, key=lambda u: (-len(uni.has_adj[u]), uni.ids[u]))[:5])
        notes.append(f"{fmt(len(umbrellas))} umbrella terms left out ({names}{', …' if len(umbrellas) > 5 else ''})")
    if len(entity_rank) > len(chosen):
        notes.append(f"candidates: the {fmt(len(chosen))} entities with the most papers (of {fmt(len(entity_rank))} in two or more)")
    notes += dropped_note(max_edges, dropped, "strongest co-occurrences")
    return View(
        name="entity-map",
        nodes=drawn,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": "Entity map: entities that share papers"},
    )


def similarity_view(uni: Universe, max_papers: int, max_edges: int) -> View:
    """The ``max_papers`` papers with the largest summed link weight, each joined to its
    strongest neighbours among them (a k-nearest-neighbour graph, k = ``SIMILARITY_K``, which
    stays readable where the globally heaviest links would only draw near-duplicate cliques);
    papers left without a link are not drawn."""
    strength: dict[int, float] = defaultdict(float)
    for a, b, w in uni.related:
        strength[a] += w
        strength[b] += w
    ranked = sorted(strength, key=lambda p: (-strength[p], uni.ids[p]))
    chosen = set(ranked[:max_papers])
    picked: set[int] = set()
    for p in sorted(chosen):
        links = [k for k in uni.rel_adj[p] if uni.related[k][0] in chosen and uni.related[k][1] in chosen]
        links.sort(key=lambda k: (-uni.related[k][2], k))
        picked.update(links[:SIMILARITY_K])
    edge_ids, dropped = strongest(sorted(picked, key=lambda k: (-uni.related[k][2], k)), max_edges)
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
    notes += dropped_note(max_edges, dropped, "heaviest links", "lighter")
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
    hits = [u for u in range(uni.n_papers, len(uni.ids)) if uni.labels[u].casefold() == lowered]
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
    return strongest(ranked, max_edges)


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
    notes += dropped_note(max_edges, dropped, "strongest links")
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
