"""Topic communities of papers: deterministic Louvain over the topic graph (:mod:`paperkg.graph.louvain`,
NetworkX's algorithm, move for move).

The topic graph joins each paper to its :data:`TOPIC_NEIGHBOURS` nearest abstracts by TF-IDF
cosine (:mod:`paperkg.graph.text_similarity`) among the linked papers and keeps the RELATED_TO
links (the only edges for papers without text, and below :data:`TOPIC_MIN_PAPERS` linked papers); its Louvain resolution :data:`RESOLUTION` cuts topics a
researcher names ("RLHF", "causal discovery"), not fields. Over the sparse links alone (about two
per paper) Louvain glued unrelated chains: read on ICML 2024, "Graph Transformer / Shapley
values", "feature attribution / federated averaging".

Every paper node gets ``community`` (int): communities are numbered by size, largest first
(ties by their smallest paper node id), so the same graph always gets the same numbers; a
paper without links gets ``-1``. The explorer draws them as its topic map, the loader
stores them as ``Paper.community``, ``paperkg stats`` counts them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import networkx as nx
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from paperkg.graph import text_similarity
from paperkg.graph.louvain import numbered_communities

SEED = 0
TOPIC_NEIGHBOURS = 10
RESOLUTION = 2.0
#: A connected part of the topic graph this small is one topic, not cut further.
SMALL_COMPONENT = 20
#: Below this many linked papers the links alone are the topic graph: ten neighbours of each
#: paper would be a sizable share of the corpus and glue it together.
TOPIC_MIN_PAPERS = 200
NO_COMMUNITY = -1
#: An umbrella term is held by more than this share of the papers (and by UMBRELLA_MIN or
#: more): "large language model" in an ML corpus. It labels no topic (nor, in the explorer's
#: entity map, any neighbourhood): it says nothing about where a paper sits.
UMBRELLA_SHARE = 0.05
UMBRELLA_MIN = 10


def umbrella_threshold(n_papers: int) -> float:
    """The paper count above which an entity is an umbrella term.

    >>> umbrella_threshold(57), umbrella_threshold(2634)
    (10, 131.70000000000002)
    """
    return max(UMBRELLA_SHARE * n_papers, UMBRELLA_MIN)


@dataclass(frozen=True)
class TopicGraph:
    """The topic graph over numbered papers: ``papers`` (node ids, sorted) and the weighted edges
    ``(lefts[i], rights[i], weights[i])``, each pair once with ``left < right``, sorted by
    (left, right): the order that fixes the order of Louvain's every float sum. ``with_text``:
    whether the text neighbours are in (not below :data:`TOPIC_MIN_PAPERS` linked papers)."""

    papers: list[str]
    lefts: np.ndarray
    rights: np.ndarray
    weights: np.ndarray
    with_text: bool


def topic_graph(graph: nx.DiGraph, processes: int = 1) -> TopicGraph:
    """The topic graph: each linked paper's nearest abstracts by text, and the RELATED_TO links
    (an edge in both takes the larger weight; of two links of one pair, the later); the text
    neighbours are found in ``processes`` forked processes. As arrays of paper numbers: a dict
    of pairs of node ids held ~300 MB at 95k papers, the communities stage's peak.

    >>> g = nx.DiGraph()
    >>> g.add_edge("paper:b", "paper:a", kind="RELATED_TO", weight=0.5)
    >>> t = topic_graph(g)
    >>> t.papers, t.lefts.tolist(), t.rights.tolist(), t.weights.tolist(), t.with_text
    (['paper:a', 'paper:b'], [0], [1], [0.5], False)
    """
    links = [(u, v, float(d.get("weight", 1.0))) for u, v, d in graph.edges(data=True)
             if d.get("kind") == "RELATED_TO" and u != v]
    papers = sorted({n for u, v, _ in links for n in (u, v)})  # a paper without links stays without a topic
    number = {paper: index for index, paper in enumerate(papers)}
    ends = np.array([(number[u], number[v]) for u, v, _ in links], dtype=np.int64).reshape(-1, 2)
    codes = ends.min(axis=1) * len(papers) + ends.max(axis=1)
    weights = np.array([weight for *_, weight in links], dtype=np.float64)
    del links, number, ends
    # Of two links of one pair, the later one's weight (as a dict of the pairs would keep it).
    codes, last = np.unique(codes[::-1], return_index=True)
    weights = weights[::-1][last]
    with_text = len(papers) >= TOPIC_MIN_PAPERS
    if with_text:
        rows, df = text_similarity.tfidf_rows(text_similarity.PaperTexts(graph, papers), processes)
        lefts, rights = text_similarity.neighbour_pairs(rows, df, per_row=TOPIC_NEIGHBOURS, processes=processes)
        cosines = text_similarity.pair_cosines(rows, lefts, rights, processes)
        del rows, df
        similar = cosines > 0
        codes = np.concatenate([codes, lefts[similar] * len(papers) + rights[similar]])
        weights = np.concatenate([weights, cosines[similar]])
        order = np.argsort(codes, kind="stable")
        codes, weights = codes[order], weights[order]
        first = np.flatnonzero(np.concatenate([[True], codes[1:] != codes[:-1]]))
        codes, weights = codes[first], np.maximum.reduceat(weights, first) if len(first) else weights[first]
    return TopicGraph(papers, codes // max(len(papers), 1), codes % max(len(papers), 1), weights, with_text)


def topic_edges(graph: nx.DiGraph, processes: int = 1) -> tuple[dict[tuple[str, str], float], bool]:
    """The :func:`topic_graph`'s weighted edges as a dict of (smaller, larger) node ids, and
    whether the text neighbours are in."""
    found = topic_graph(graph, processes)
    pairs = zip(found.lefts.tolist(), found.rights.tolist(), found.weights.tolist())
    return {(found.papers[a], found.papers[b]): weight for a, b, weight in pairs}, found.with_text


def louvain_groups(graph: nx.DiGraph, *, seed: int = SEED, resolution: float | None = None,
                   processes: int = 1) -> list[list[str]]:
    """Louvain communities of the papers in the topic graph (paper node ids, sorted), largest first.

    The topic graph is assembled in sorted order, so insertion order cannot change the result;
    papers in none of its edges are left out. ``resolution``: by default :data:`RESOLUTION`
    with the text neighbours (a connected part of at most :data:`SMALL_COMPONENT` papers is
    one topic), 1 over the links alone.

    >>> g = nx.DiGraph()
    >>> for p in "abcd":
    ...     g.add_node("paper:" + p, kind="Paper")
    >>> g.add_edge("paper:a", "paper:b", kind="RELATED_TO", weight=0.9)
    >>> louvain_groups(g)
    [['paper:a', 'paper:b']]
    """
    topics = topic_graph(graph, processes)
    if not len(topics.lefts):
        return []
    papers, lefts, rights, weights, with_text = topics.papers, topics.lefts, topics.rights, topics.weights, topics.with_text
    if resolution is None:
        resolution = RESOLUTION if with_text else 1.0
    if not with_text:
        found = numbered_communities(len(papers), zip(lefts.tolist(), rights.tolist(), weights.tolist()), seed=seed,
                                     resolution=resolution)
        return sorted((sorted(papers[i] for i in group) for group in found), key=lambda g: (-len(g), g[0]))
    count, part_of = connected_components(sparse.coo_matrix((np.ones(len(lefts)), (lefts, rights)), shape=(len(papers),) * 2),
                                          directed=False)
    # Each part's papers in sorted order, the parts in the order of their first paper.
    members = np.split(np.argsort(part_of, kind="stable"), np.cumsum(np.bincount(part_of, minlength=count))[:-1])
    groups = []
    for part in sorted(members, key=lambda m: m[0]):
        # A small connected group is one topic: at this resolution Louvain would split even a
        # lone triangle into single papers.
        if len(part) <= SMALL_COMPONENT:
            groups.append([papers[i] for i in part])
            continue
        inside = np.flatnonzero(part_of[lefts] == part_of[part[0]])
        local = np.empty(len(papers), dtype=np.int64)
        local[part] = np.arange(len(part))
        edges = zip(local[lefts[inside]].tolist(), local[rights[inside]].tolist(), weights[inside].tolist())
        found = numbered_communities(len(part), edges, seed=seed, resolution=resolution)
        groups.extend(sorted(papers[part[i]] for i in group) for group in found)
    groups.sort(key=lambda g: (-len(g), g[0]))
    return groups


def add_communities(graph: nx.DiGraph, *, seed: int = SEED, processes: int = 1) -> nx.DiGraph:
    """Set ``community`` on every paper node of ``graph`` (in place) and return it; the topic
    graph's text neighbours in ``processes`` forked processes (the same communities as in one).

    >>> g = nx.DiGraph()
    >>> for p in "abcde":
    ...     g.add_node("paper:" + p, kind="Paper")
    >>> for u, v in ["ab", "bc", "ac", "de"]:
    ...     g.add_edge("paper:" + u, "paper:" + v, kind="RELATED_TO", weight=1.0)
    >>> g.add_node("paper:f", kind="Paper")
    >>> g = add_communities(g)
    >>> [g.nodes["paper:" + p]["community"] for p in "abcdef"]
    [0, 0, 0, 1, 1, -1]
    """
    for node, kind in graph.nodes(data="kind"):
        if kind == "Paper":
            graph.nodes[node]["community"] = NO_COMMUNITY
    for number, group in enumerate(louvain_groups(graph, seed=seed, processes=processes)):
        for node in group:
            graph.nodes[node]["community"] = number
    graph.graph["community_seed"] = seed
    return graph


def community_of(graph: nx.DiGraph) -> dict[str, int]:
    """Paper node id -> its community, read from the nodes (computed on a copy if missing).

    >>> g = nx.DiGraph()
    >>> g.add_node("paper:a", kind="Paper", community=3)
    >>> community_of(g)
    {'paper:a': 3}
    """
    papers = [n for n, kind in graph.nodes(data="kind") if kind == "Paper"]
    if any(not isinstance(graph.nodes[n].get("community"), int) for n in papers):
        graph = add_communities(graph.copy())
    return {n: graph.nodes[n]["community"] for n in papers}


#: Entity types that never label a topic.
NOT_LABELS = frozenset({"Dataset", "Benchmark", "Metric"})


def label_coverage(graph: nx.DiGraph, labels: dict[int, list[str]]) -> dict[int, float]:
    """Community -> the share of its papers that hold one of its label entities.

    >>> g = nx.DiGraph()
    >>> for p, ents in [("a", "x"), ("b", "y"), ("c", "z")]:
    ...     g.add_node("paper:" + p, kind="Paper", community=0)
    ...     g.add_edge("paper:" + p, "entity:" + ents, kind="HAS")
    >>> label_coverage(g, {0: ["entity:x", "entity:y"]})
    {0: 0.667}
    """
    of = community_of(graph)
    members: dict[int, list[str]] = {}
    for paper, community in of.items():
        members.setdefault(community, []).append(paper)
    coverage = {}
    for community, entities in labels.items():
        papers = members.get(community, [])
        wanted = set(entities)
        held = sum(1 for p in papers if any(graph.has_edge(p, e) for e in wanted))
        coverage[community] = round(held / len(papers), 3) if papers else 0.0
    return coverage


def community_labels(graph: nx.DiGraph, *, k: int = 3) -> dict[int, list[str]]:
    """Community -> its ``k`` most specific entity node ids (community -1 has none).

    An entity's specificity in a community is ``sqrt(share) * log(lift)``: ``share`` is the
    share of the community's papers holding it, ``lift`` that share over its corpus-wide paper
    share. An umbrella term held everywhere has a lift near 1 and scores about 0 however
    frequent it is, and umbrella terms (:func:`umbrella_threshold`) are never labels. A label
    needs two papers of the community and a lift of at least 2, and an entity labels only the
    community where it scores highest, so labels tell clusters apart. Labels are what a topic is
    about, so Datasets, Benchmarks and Metrics (what it is evaluated on) are never labels.

    >>> g = nx.DiGraph()
    >>> for p, c, ents in [("a", 0, "xu"), ("b", 0, "xu"), ("c", 1, "yu"), ("d", 1, "yu")]:
    ...     g.add_node("paper:" + p, kind="Paper", community=c)
    ...     for e in ents:
    ...         g.add_node("entity:" + e, kind="Entity")
    ...         g.add_edge("paper:" + p, "entity:" + e, kind="HAS")
    >>> community_labels(g)
    {0: ['entity:x'], 1: ['entity:y']}
    """
    of = community_of(graph)
    size = Counter(c for c in of.values() if c != NO_COMMUNITY)
    df: Counter = Counter()
    held: Counter = Counter()
    for paper, community in of.items():
        for _, entity, kind in graph.out_edges(paper, data="kind"):
            if kind == "HAS":
                df[entity] += 1
                if community != NO_COMMUNITY and graph.nodes[entity].get("type") not in NOT_LABELS:
                    held[(community, entity)] += 1
    n_papers = max(len(of), 1)
    umbrella = umbrella_threshold(n_papers)
    best: dict[str, tuple[float, int]] = {}
    for (community, entity), count in sorted(held.items()):
        share = count / size[community]
        lift = share / (df[entity] / n_papers)
        if count >= 2 and lift >= 2 and df[entity] <= umbrella:
            score = math.sqrt(share) * math.log(lift)
            if entity not in best or score > best[entity][0]:
                best[entity] = (score, community)
    scored: dict[int, list[tuple[float, str]]] = {c: [] for c in sorted(size)}
    for entity, (score, community) in best.items():
        scored[community].append((score, entity))
    return {c: [e for _, e in sorted(rows, key=lambda r: (-r[0], r[1]))[:k]] for c, rows in scored.items()}
