"""Build the NetworkX knowledge graph from extraction records (schema in ``paperkg.graph``)."""

from __future__ import annotations

from collections import defaultdict
from contextlib import AbstractContextManager, nullcontext
from typing import Callable, Iterable

import networkx as nx

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.resolve.canonical import MAX_ALIASES, display_form
from paperkg.graph.communities import add_communities
from paperkg.graph.linking import add_links
from paperkg.types import Extraction

PAPER_PREFIX = "paper:"
ENTITY_PREFIX = "entity:"


def paper_node(paper_id: str) -> str:
    return PAPER_PREFIX + paper_id


def entity_node(key: str) -> str:
    return ENTITY_PREFIX + key


def build_graph(extractions: Iterable[Extraction], *, top_k: int = 20,
                stage: Callable[[str], AbstractContextManager] | None = None) -> nx.DiGraph:
    """Papers, canonical entities, paper->entity edges, and capped paper-paper links.

    ``extractions`` is read once, in the ``graph`` step: an iterator that makes the records
    as it goes (the build's) is never held whole.

    ``stage(name)``, when given, wraps each step (``graph``, ``link``, ``communities``): the
    build times them with it.

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
        graph = add_extractions(nx.DiGraph(paperkg_schema=1), extractions)
    with stage("link"):
        graph = add_links(graph, top_k=top_k, copy=False)
    with stage("communities"):
        return add_communities(graph)


def add_extractions(graph: nx.DiGraph, extractions: Iterable[Extraction]) -> nx.DiGraph:
    """Add papers and entities to ``graph`` in place (used by incremental builds too), reading
    ``extractions`` once: an entity's aliases (every written form across the added papers,
    capped at ``MAX_ALIASES``) and alias keys are tallied on the way and set at the end."""
    forms: dict[str, set[str]] = defaultdict(set)
    keys: dict[str, set[str]] = defaultdict(set)
    names: dict[str, str] = {}
    nodes: dict[str, str] = {}
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
        for entity in extraction.entities:
            # One string per entity node: a new one per edge would be kept by the adjacency dicts.
            target = nodes.get(entity.key) or nodes.setdefault(entity.key, entity_node(entity.key))
            if target not in graph:
                graph.add_node(target, kind="Entity", type=entity.type, key=entity.key, name=entity.name, aliases=[],
                               alias_keys=[entity.key], pwc_id=entity.pwc_id, codesota_id=entity.codesota_id,
                               area=entity.area, record_url=entity.record_url, paper_count=0)
            names[entity.key] = entity.name
            forms[entity.key].update(display_form(m.text) for m in entity.mentions)
            keys[entity.key].update(entity.alias_keys)
            keys[entity.key].update(normalize_key(m.text) for m in entity.mentions)
            first = entity.mentions[0]
            evidence_offset = paper.abstract.find(entity.evidence) if entity.evidence else -1
            graph.add_edge(
                node,
                target,
                kind="HAS",
                role=entity.role,
                count=entity.count,
                evidence=entity.evidence,
                evidence_offset=max(evidence_offset, 0) if evidence_offset >= 0 else first.start,
                mentions=[[m.start, m.end, m.text] for m in entity.mentions],
            )
    for key, found in forms.items():
        attrs = graph.nodes[entity_node(key)]
        added = sorted(f for f in found if f != names[key])[:MAX_ALIASES]
        attrs["aliases"] = sorted(set(attrs["aliases"]) | set(added))
        attrs["alias_keys"] = alias_keys(key, attrs["aliases"], [*attrs.get("alias_keys", ()), *keys[key]])
    for node, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            attrs["paper_count"] = sum(1 for source in graph.predecessors(node) if graph.nodes[source]["kind"] == "Paper")
    return graph


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
