"""Louvain communities as NetworkX 3.6's ``louvain_communities`` finds them on an undirected
weighted graph of numbered nodes: the same moves in the same order from the same seed, so the same topics, at
about half its cost.

NetworkX keeps each level's graph as a ``Graph`` of attribute dicts, copies the input first, and
scores each level with ``modularity``, which walks an edge view per community: at 95k papers
those were ~40% of the communities stage. Here a level is a list of ``{neighbour: weight}``
dicts over node numbers, filled in the order NetworkX fills its adjacency (so every float sum
runs in the same order), and a level's modularity is one pass over its edges. The modularity
only decides when to stop (a gain of at most :data:`THRESHOLD`); its last digits may differ from
NetworkX's, whose own sums follow the order of sets of node labels.
"""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Iterable

THRESHOLD = 1e-7


def numbered_communities(n: int, edges: Iterable[tuple[int, int, float]], *, seed: int,
                         resolution: float = 1.0) -> list[set[int]]:
    """The communities, as sets of nodes, of the graph of nodes ``0 .. n-1`` whose edges
    ``(u, v, weight)`` NetworkX's edge view lists in this order (for a graph built from edges
    sorted by (smaller, larger) node: that order), as ``nx.community.louvain_communities(graph,
    weight="weight", seed=seed, resolution=resolution)`` finds them. ``edges`` is read once.

    >>> import networkx as nx
    >>> g = nx.convert_node_labels_to_integers(nx.karate_club_graph())
    >>> ours = numbered_communities(len(g), g.edges(data="weight"), seed=0, resolution=2.0)
    >>> ours == nx.community.louvain_communities(g, weight="weight", seed=0, resolution=2.0), len(ours)
    (True, 7)
    """
    adjacency: list[dict[int, float]] = [{} for _ in range(n)]
    for a, b, weight in edges:
        adjacency[a][b] = adjacency[b][a] = weight
    if not any(adjacency):
        return [{index} for index in range(n)]
    rng = random.Random(seed)
    members = [{index} for index in range(n)]
    mod = _modularity(adjacency, [{index} for index in range(n)], resolution)
    m = sum(map(_degree, adjacency, range(n))) / 2
    partition, inner, improved = _one_level(adjacency, members, m, resolution, rng)
    while True:
        found = partition
        new_mod = _modularity(adjacency, inner, resolution)
        if new_mod - mod <= THRESHOLD:
            break
        mod = new_mod
        adjacency, members = _next_level(adjacency, members, inner)
        partition, inner, improved = _one_level(adjacency, members, m, resolution, rng)
        if not improved:
            break
    return found


def _degree(neighbours: dict[int, float], node: int) -> float:
    # As Graph.degree(weight=...): a self-loop counts twice.
    return sum(neighbours.values()) + (node in neighbours and neighbours[node])


def _one_level(adjacency: list[dict[int, float]], members: list[set[int]], m: float, resolution: float,
               rng: random.Random) -> tuple[list[set[int]], list[set[int]], bool]:
    """One level of moves: (communities as sets of original nodes, as sets of this level's
    nodes, whether any node moved), empty communities left out."""
    n = len(adjacency)
    node2com = list(range(n))
    inner = [{u} for u in range(n)]
    degrees = [_degree(adjacency[u], u) for u in range(n)]
    totals = list(degrees)
    neighbours = [{v: weight for v, weight in adjacency[u].items() if v != u} for u in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    scale = 2 * m**2
    moves, improved = 1, False
    while moves > 0:
        moves = 0
        for u in order:
            best_mod, best_com = 0, node2com[u]
            weights: defaultdict[int, float] = defaultdict(float)
            for v, weight in neighbours[u].items():
                weights[node2com[v]] += weight
            degree = degrees[u]
            totals[best_com] -= degree
            remove_cost = -weights[best_com] / m + resolution * (totals[best_com] * degree) / scale
            for com, weight in weights.items():
                gain = remove_cost + weight / m - resolution * (totals[com] * degree) / scale
                if gain > best_mod:
                    best_mod, best_com = gain, com
            totals[best_com] += degree
            if best_com != node2com[u]:
                inner[node2com[u]].remove(u)
                inner[best_com].add(u)
                improved = True
                moves += 1
                node2com[u] = best_com
    inner = [group for group in inner if group]
    return [set().union(*(members[u] for u in group)) for group in inner], inner, improved


def _next_level(adjacency: list[dict[int, float]], members: list[set[int]],
                inner: list[set[int]]) -> tuple[list[dict[int, float]], list[set[int]]]:
    """The graph of communities: one node per community, edge weights summed in the order
    NetworkX's edge view yields them (each edge once, from its smaller node)."""
    node2com = [0] * len(adjacency)
    for index, group in enumerate(inner):
        for node in group:
            node2com[node] = index
    merged: list[dict[int, float]] = [{} for _ in inner]
    for u, neighbours in enumerate(adjacency):
        for v, weight in neighbours.items():
            if v >= u:
                a, b = node2com[u], node2com[v]
                merged[a][b] = merged[b][a] = weight + merged[a].get(b, 0)
    return merged, [set().union(*(members[u] for u in group)) for group in inner]


def _modularity(adjacency: list[dict[int, float]], communities: list[set[int]], resolution: float) -> float:
    """Modularity of ``communities`` (sets of node numbers covering the graph)."""
    community = [0] * len(adjacency)
    for index, group in enumerate(communities):
        for node in group:
            community[node] = index
    inside = [0.0] * len(communities)
    degree_sums = [0.0] * len(communities)
    for u, neighbours in enumerate(adjacency):
        degree_sums[community[u]] += _degree(neighbours, u)
        for v, weight in neighbours.items():
            if v >= u and community[v] == community[u]:
                inside[community[u]] += weight
    total = sum(degree_sums)
    return sum(inside[c] / (total / 2) - resolution * degree_sums[c] ** 2 / total**2 for c in range(len(communities)))

