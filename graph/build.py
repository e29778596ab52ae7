"""Build the NetworkX knowledge graph from extraction records (schema in ``paperkg.graph``)."""

from __future__ import annotations

from collections import defaultdict
from contextlib import AbstractContextManager, nullcontext
from typing import Callable, Iterable

import networkx as nx

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.resolve.canonical import MAX_ALIASES
from paperkg.extract.resolve.tallies import display_form
from paperkg.extract.results.direction import metric_direction
from paperkg.graph.communities import add_communities
from paperkg.graph.linking import add_links
from paperkg.types import RESULT_EDGES, Extraction, Result

PAPER_PREFIX = "paper:"
ENTITY_PREFIX = "entity:"
RESULT_PREFIX = "result:"

#: Entity-entity edges derived from results: (kind, source slot, target slot); each edge's
#: ``count`` is the number of results that hold both.
DERIVED_EDGES: tuple[tuple[str, str, str], ...] = (
    ("EVALUATED_ON", "method", "dataset"), ("ADDRESSES", "method", "task"), ("MEASURED_BY", "task", "metric"))


def paper_node(paper_id: str) -> str:
    return PAPER_PREFIX + paper_id


def entity_node(key: str) -> str:
    return ENTITY_PREFIX + key


def result_node(paper_id: str, index: int) -> str:
    """A result's node id: its paper and its place among the paper's results (text order)."""
    return f"{RESULT_PREFIX}{paper_id}:{index}"


#: Below this many papers, linking and communities run in one process: forking cost more than it
#: saved on the 2,634 ICML 2024 papers (``python bench/bench_link_speed.py``: forked, 1.30x the wall
#: time of one process), and saved an eighth to a sixth on the 8,111 corpus papers (0.83-0.88x).
FORKED_MIN_PAPERS = 5_000


def build_graph(extractions: Iterable[Extraction], *, top_k: int = 20,
                stage: Callable[[str], AbstractContextManager] | None = None, processes: int = 1) -> nx.DiGraph:
    """Papers, canonical entities, paper->entity edges, and capped paper-paper links.

    ``extractions`` is read once, in the ``graph`` step: an iterator that makes the records
    as it goes (the build's) is never held whole.

    ``stage(name)``, when given, wraps each step (``graph``, ``link``, ``communities``): the
    build times them with it. Linking and communities score pairs in ``processes`` forked
    processes from :data:`FORKED_MIN_PAPERS` papers on (the same graph as in one).

    >>> from paperkg.types import Paper, PaperEntity, Mention
    >>> def ex(pid, key):
    ...     m = Mention(0, 3, "SAC", "Method", key, "used", "SAC works.")
    ...     e = PaperEntity(key, "SAC", "Method", "used", (m,), "SAC works.")
    ...     return Extraction(Paper(pid, "SAC works."), pid, (e,))
    >>> g = build_graph([ex("a", "sac"), ex("b", "sac"), ex("c", "ppo")])
    >>> sorted(g.nodes)[:3], g.nodes["entity:sac"]["paper_count"], g.has_edge("paper:a", "paper:b")
    (['entity:ppo', 'entity:sac', 'paper:a'], 2, True)
    """
    stage = stage or (lambda name: nullcontext())
    with stage("graph"):
        graph = add_result_edges(add_extractions(nx.DiGraph(paperkg_schema=1), extractions))
    if len(paper_nodes(graph)) < FORKED_MIN_PAPERS:
        processes = 1
    with stage("link"):
        graph = add_links(graph, top_k=top_k, copy=False, processes=processes)
    with stage("communities"):
        return add_communities(graph, processes=processes)


def add_extractions(graph: nx.DiGraph, extractions: Iterable[Extraction]) -> nx.DiGraph:
    """Add papers and entities to ``graph`` in place (used by incremental builds too), reading
    ``extractions`` once: an entity's aliases (every written form across the added papers,
    capped at ``MAX_ALIASES``) and alias keys are tallied on the way and set at the end."""
    forms: dict[str, set[str]] = defaultdict(set)
    keys: dict[str, set[str]] = defaultdict(set)
    names: dict[str, str] = {}
    nodes: dict[str, str] = {}
    # The records arrive unpickled, each offset, text, sentence and score a new object: the graph
    # keeps one object per distinct value (the same values, so the same graph), ~100 MB less at
    # 95k papers. Ints and floats apart, as 1 == 1.0 would give a score a count's int.
    ints, scores = {}, {}
    # Most mentions repeat a text written before (1.3M mentions, 0.25M texts at 95k papers),
    # which normalize_key's bounded cache would mostly have dropped: each text's one object,
    # display form and key.
    texts: dict[str, tuple[str, str, str]] = {}

    def written(text: str) -> tuple[str, str, str]:
        return texts.get(text) or texts.setdefault(text, (text, display_form(text), normalize_key(text)))

    for extraction in extractions:
        paper = extraction.paper
        node = paper_node(paper.id)
        graph.add_node(
            node,
            kind="Paper",
            paper_id=paper.id,
            label=extraction.label,
            title=paper.title,
            abstract=paper.abstract,
            venue=paper.venue,
            year=paper.year,
            url=paper.url,
            authors=list(paper.authors),
            keywords=list(paper.keywords),
            aliases=list(paper.aliases),
            source=paper.source,
            line=paper.line,
        )
        sentences: dict[str, str] = {}  # a paper's entities share its few sentences
        for entity in extraction.entities:
            # One string per entity node: a new one per edge would be kept by the adjacency dicts.
            target = nodes.get(entity.key) or nodes.setdefault(entity.key, entity_node(entity.key))
            if target not in graph:
                graph.add_node(target, kind="Entity", type=entity.type, key=entity.key, name=entity.name, aliases=[],
                               alias_keys=[entity.key], pwc_id=entity.pwc_id, codesota_id=entity.codesota_id,
                               area=entity.area, record_url=entity.record_url, paper_count=0)
            names[entity.key] = entity.name
            mentioned = [written(m.text) for m in entity.mentions]
            forms[entity.key].update(form for _, form, _ in mentioned)
            keys[entity.key].update(entity.alias_keys)
            keys[entity.key].update(key for _, _, key in mentioned)
            first = entity.mentions[0]
            evidence_offset = paper.abstract.find(entity.evidence) if entity.evidence else -1
            offset = max(evidence_offset, 0) if evidence_offset >= 0 else first.start
            graph.add_edge(
                node,
                target,
                kind="HAS",
                role=entity.role,
                count=ints.setdefault(entity.count, entity.count),
                evidence=sentences.setdefault(entity.evidence, entity.evidence),
                evidence_offset=ints.setdefault(offset, offset),
                mentions=[[ints.setdefault(m.start, m.start), ints.setdefault(m.end, m.end), text]
                          for m, (text, _, _) in zip(entity.mentions, mentioned)],
                confidence=scores.setdefault(entity.confidence, entity.confidence),
            )
        for index, result in enumerate(extraction.results):
            add_result(graph, paper.id, index, result)
    for key, found in forms.items():
        attrs = graph.nodes[entity_node(key)]
        added = sorted(f for f in found if f != names[key])[:MAX_ALIASES]
        attrs["aliases"] = sorted(set(attrs["aliases"]) | set(added))
        attrs["alias_keys"] = alias_keys(key, attrs["aliases"], [*attrs.get("alias_keys", ()), *keys[key]])
    for node, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            attrs["paper_count"] = sum(1 for source in graph.predecessors(node) if graph.nodes[source]["kind"] == "Paper")
    return graph


def add_result(graph: nx.DiGraph, paper_id: str, index: int, result: Result) -> str:
    """Add one result of a paper (whose node and entities are in ``graph``): its node, the
    paper's ``REPORTS`` edge to it and an edge to the entity of each filled slot. A slot naming
    an entity the graph lacks gets no edge (it cannot happen for the build's own records)."""
    node = result_node(paper_id, index)
    graph.add_node(node, kind="Result", paper_id=paper_id, index=index, value=result.text, start=result.start,
                   end=result.end, number=result.number, upper=result.upper, unit=result.unit,
                   result_kind=result.kind, evidence=result.evidence, direction=None)
    graph.add_edge(paper_node(paper_id), node, kind="REPORTS")
    for slot, kind in RESULT_EDGES.items():
        key = getattr(result, slot)
        if key is not None and entity_node(key) in graph:
            graph.add_edge(node, entity_node(key), kind=kind)
            if slot == "metric":
                graph.nodes[node]["direction"] = metric_direction(graph.nodes[entity_node(key)]["name"])
    return node


def result_slots(graph: nx.DiGraph, node: str) -> dict[str, str | None]:
    """A Result node's slots as entity node ids (None where empty), read from its edges."""
    by_kind = {data["kind"]: target for _, target, data in graph.out_edges(node, data=True)}
    return {slot: by_kind.get(kind) for slot, kind in RESULT_EDGES.items()}


def add_result_edges(graph: nx.DiGraph) -> nx.DiGraph:
    """(Re)compute the entity-entity edges of :data:`DERIVED_EDGES` from every Result node, in
    place: a Method ``EVALUATED_ON`` the Dataset of one of its results, ``ADDRESSES`` its Task,
    a Task ``MEASURED_BY`` its Metric, each with the ``count`` of results behind it.

    >>> from paperkg.types import Paper, PaperEntity, Mention
    >>> def ent(key, type):
    ...     m = Mention(0, 1, key, type, key, "used", "s")
    ...     return PaperEntity(key, key, type, "used", (m,), "s")
    >>> r = Result(0, 3, "76%", 76.0, "%", "score", "acc", "imagenet", "vit", None, "s")
    >>> x = Extraction(Paper("a", "s"), "a", (ent("acc", "Metric"), ent("imagenet", "Dataset"), ent("vit", "Method")), (r,))
    >>> g = add_result_edges(add_extractions(nx.DiGraph(), [x]))
    >>> g.edges["entity:vit", "entity:imagenet"], result_slots(g, "result:a:0")["dataset"]
    ({'kind': 'EVALUATED_ON', 'count': 1}, 'entity:imagenet')
    """
    derived = {kind for kind, _, _ in DERIVED_EDGES}
    stale = [(u, v) for u, v, kind in graph.edges(data="kind")
             if kind in derived and graph.nodes[u].get("kind") == "Entity"]
    graph.remove_edges_from(stale)
    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    for node, kind in graph.nodes(data="kind"):
        if kind == "Result":
            slots = result_slots(graph, node)
            for edge_kind, source, target in DERIVED_EDGES:
                if slots[source] and slots[target]:
                    counts[edge_kind, slots[source], slots[target]] += 1
    for (kind, source, target), count in sorted(counts.items()):
        graph.add_edge(source, target, kind=kind, count=count)
    return graph


def result_nodes(graph: nx.DiGraph, paper: str) -> list[str]:
    """The paper's Result nodes, in text order."""
    return [target for _, target, kind in graph.out_edges(paper, data="kind") if kind == "REPORTS"]


def alias_keys(key: str, aliases: Iterable[str], known: Iterable[str] = ()) -> list[str]:
    """The sorted normalized keys that resolve to an entity: its key, its aliases' keys, ``known``.

    >>> alias_keys("soft actor critic", ["SAC", "Soft Actor-Critic"])
    ['sac', 'soft actor critic']
    """
    return sorted({key, *known, *(normalize_key(alias) for alias in aliases)} - {""})


def paper_nodes(graph: nx.DiGraph) -> list[str]:
    """Paper node ids in insertion (input) order."""
    return [n for n, kind in graph.nodes(data="kind") if kind == "Paper"]


def entity_nodes(graph: nx.DiGraph) -> list[str]:
    return [n for n, kind in graph.nodes(data="kind") if kind == "Entity"]


def has_edges(graph: nx.DiGraph, paper: str) -> list[tuple[str, dict]]:
    """The paper's entity edges, in the order they were added (first mention first)."""
    return [(target, data) for _, target, data in graph.out_edges(paper, data=True) if data["kind"] == "HAS"]
