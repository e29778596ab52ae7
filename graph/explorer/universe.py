"""The whole graph, compactly: what search, the side panel and focus mode read in the page."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from paperkg.errors import GraphError
from paperkg.graph.communities import NO_COMMUNITY, community_labels, community_of
from paperkg.graph.explorer.config import MAX_ALIASES, MAX_AUTHORS, MAX_SHARED
from paperkg.graph.explorer.text import as_text, finite, http_url, int_or_none, mark_ranges
from paperkg.types import ENTITY_TYPES, ROLES


@dataclass
class Universe:
    ids: list[str]  # universe index -> node id; papers first, then entities, each sorted
    n_papers: int
    types: list[str]  # "Paper" + entity types
    type_of: list[int]
    index: dict[str, int]
    papers: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    has: list[list[Any]]  # [paper, entity, role, count, sentence, marks]
    related: list[list[Any]]  # [paper, paper, weight, [[shared entity, contribution | None]...]]
    sentences: list[str]
    communities: list[list[Any]]  # [number, papers, [label entity...]], largest first; -1 (no links) last
    has_adj: list[list[int]] = field(default_factory=list)
    rel_adj: list[list[int]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    def degree(self, u: int) -> int:
        return len(self.has_adj[u]) + len(self.rel_adj[u])

    def label(self, u: int) -> str:
        if u < self.n_papers:
            rec = self.papers[u]
            return rec.get("l") or rec.get("t") or rec["i"]
        return self.entities[u - self.n_papers]["n"]


def as_digraph(graph: Any) -> nx.Graph:
    inner = getattr(graph, "graph", None)
    if isinstance(inner, nx.Graph):
        return inner
    if isinstance(graph, nx.Graph):
        return graph
    raise GraphError(f"expected a networkx graph or a KnowledgeGraph, got {type(graph).__name__}")


def shared_evidence(data: dict, index: dict[str, int], n_papers: int) -> list[list[Any]]:
    """A link's shared entities as [universe index, contribution or None], strongest first.

    The link's ``evidence`` (entity key and contribution, in ``shared`` order) when the graph
    has it; otherwise its ``shared`` keys without contributions.
    """
    evidence = data.get("evidence")
    if isinstance(evidence, (list, tuple)) and evidence:
        items = [(e.get("key"), e.get("contribution")) for e in evidence if isinstance(e, dict)]
    else:
        keys = data.get("shared")
        items = [(key, None) for key in (keys if isinstance(keys, (list, tuple)) else [])]
    shared: list[list[Any]] = []
    for key, contribution in items:
        key = as_text(key)
        j = None if key is None else index.get(key if key.startswith("entity:") else "entity:" + key)
        if j is None or j < n_papers:
            continue
        share = None if contribution is None else round(finite(contribution, 0.0), 4)
        shared.append([j, share])
        if len(shared) >= MAX_SHARED:
            break
    return shared


def build_universe(g: nx.Graph) -> Universe:
    paper_ids = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "Paper")
    entity_ids = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "Entity")
    for node in (*paper_ids, *entity_ids):
        if not isinstance(node, str):
            raise GraphError(f"node ids must be strings, got {node!r}")
    extra_types = sorted(
        {str(g.nodes[n].get("type")) for n in entity_ids} - set(ENTITY_TYPES)
    )
    types = ["Paper", *ENTITY_TYPES, *extra_types]
    type_index = {t: i for i, t in enumerate(types)}
    ids = paper_ids + entity_ids
    index = {n: i for i, n in enumerate(ids)}
    n_papers = len(paper_ids)
    type_of = [0] * n_papers + [type_index[str(g.nodes[n].get("type"))] for n in entity_ids]

    community = community_of(g) if paper_ids else {}
    papers = []
    for node in paper_ids:
        data = g.nodes[node]
        rec: dict[str, Any] = {"i": node}
        label = as_text(data.get("label")) or as_text(data.get("paper_id")) or node
        title = as_text(data.get("title"))
        if title:
            rec["t"] = title
        if label != title:  # usually the label is the title: do not ship it twice
            rec["l"] = label
        venue = as_text(data.get("venue"))
        if venue:
            rec["v"] = venue
        year = int_or_none(data.get("year"))
        if year is not None:
            rec["y"] = year
        url = http_url(data.get("url"))
        if url:
            rec["u"] = url
        if community.get(node, NO_COMMUNITY) != NO_COMMUNITY:
            rec["c"] = community[node]
        authors = data.get("authors") or []
        if isinstance(authors, str):
            authors = [authors]
        authors = [a for a in (as_text(x) for x in authors) if a]
        if authors:
            rec["a"] = authors[:MAX_AUTHORS]
            if len(authors) > MAX_AUTHORS:
                rec["na"] = len(authors)
        papers.append(rec)

    entities = []
    for node in entity_ids:
        data = g.nodes[node]
        name = as_text(data.get("name")) or as_text(data.get("key")) or node
        rec = {"i": node, "n": name, "ty": type_index[str(data.get("type"))]}
        aliases = data.get("aliases") or []
        if isinstance(aliases, str):
            aliases = [aliases]
        aliases = sorted({a for a in (as_text(x) for x in aliases) if a and a != name})
        if aliases:
            rec["a"] = aliases[:MAX_ALIASES]
            if len(aliases) > MAX_ALIASES:
                rec["na"] = len(aliases)
        key = as_text(data.get("key"))
        if key:
            rec["k"] = key
        for field_name, short_name in (("pwc_id", "pw"), ("codesota_id", "cs")):
            value = as_text(data.get(field_name))
            if value:
                rec[short_name] = value
        record = http_url(data.get("record_url"))
        if record:
            rec["ru"] = record
        entities.append(rec)  # paper counts: the page counts the entity's links

    role_index = {r: i for i, r in enumerate(ROLES)}
    sentences: list[str] = []
    sentence_index: dict[str, int] = {}
    has_raw: list[tuple[int, int, dict]] = []
    rel_raw: list[tuple[int, int, dict]] = []
    undirected_seen: set[tuple[int, int]] = set()
    for u, v, data in g.edges(data=True):
        kind = data.get("kind")
        iu, iv = index.get(u), index.get(v)
        if iu is None or iv is None:
            continue
        if kind == "HAS":
            if iu >= n_papers and iv < n_papers:  # tolerate entity -> paper
                iu, iv = iv, iu
            if iu < n_papers <= iv:
                has_raw.append((iu, iv, data))
        elif kind == "RELATED_TO" and iu < n_papers and iv < n_papers and iu != iv:
            a, b = min(iu, iv), max(iu, iv)
            if (a, b) not in undirected_seen:
                undirected_seen.add((a, b))
                rel_raw.append((a, b, data))
    has_raw.sort(key=lambda t: (t[0], t[1]))
    rel_raw.sort(key=lambda t: (t[0], t[1]))

    has: list[list[Any]] = []
    by_role = Counter()
    for p, e, data in has_raw:
        role = str(data.get("role") or "mentioned")
        r = role_index.get(role, len(ROLES) - 1)
        by_role[ROLES[r]] += 1
        evidence = as_text(data.get("evidence")) or ""
        if evidence:
            s = sentence_index.get(evidence)
            if s is None:
                s = sentence_index[evidence] = len(sentences)
                sentences.append(evidence)
        else:
            s = -1
        marks = mark_ranges(evidence, data.get("evidence_offset"), data.get("mentions"))
        count = int_or_none(data.get("count"))
        if count is None:
            mentions = data.get("mentions")
            count = len(mentions) if isinstance(mentions, (list, tuple)) else 1
        row: list[Any] = [p, e, r, count, s]
        if marks:
            row.append(marks)
        has.append(row)

    related: list[list[Any]] = []
    for a, b, data in rel_raw:
        related.append([a, b, round(finite(data.get("weight"), 0.0), 4), shared_evidence(data, index, n_papers)])

    sizes = Counter(c for c in community.values() if c != NO_COMMUNITY)
    labels = community_labels(g)
    communities = [
        [c, n, [index[e] for e in labels.get(c, []) if e in index]]
        for c, n in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    ]
    unlinked = sum(1 for c in community.values() if c == NO_COMMUNITY)
    if unlinked:  # the papers without links: one more cluster on the map, last
        communities.append([NO_COMMUNITY, unlinked, []])

    uni = Universe(
        ids=ids,
        n_papers=n_papers,
        types=types,
        type_of=type_of,
        index=index,
        papers=papers,
        entities=entities,
        has=has,
        related=related,
        sentences=sentences,
        communities=communities,
    )
    uni.has_adj = [[] for _ in ids]
    uni.rel_adj = [[] for _ in ids]
    for k, row in enumerate(has):
        uni.has_adj[row[0]].append(k)
        uni.has_adj[row[1]].append(k)
    for k, row in enumerate(related):
        uni.rel_adj[row[0]].append(k)
        uni.rel_adj[row[1]].append(k)
    by_type = Counter(types[t] for t in type_of[n_papers:])
    uni.stats = {
        "papers": n_papers,
        "entities": len(entity_ids),
        "by_type": {t: by_type.get(t, 0) for t in types[1:]},
        "has": len(has),
        "by_role": {r: by_role.get(r, 0) for r in ROLES},
        "related": len(related),
        "communities": len(sizes),
    }
    return uni
