"""The whole graph, compactly: what search, the side panel and focus mode read in the page."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import networkx as nx

from paperkg.errors import GraphError
from paperkg.graph.communities import NO_COMMUNITY, community_labels, community_of
from paperkg.graph.explorer.config import MAX_ALIASES, MAX_AUTHORS, MAX_SHARED
from paperkg.graph.explorer.results import add_results
from paperkg.graph.explorer.text import JsonChunks, as_text, finite, http_url, int_or_none, mark_ranges
from paperkg.types import ENTITY_TYPES, LINK_KINDS, ROLES


class Rows:
    """Rows of equal-length columns (compact arrays), read as tuples: ``rows[k]``, iteration.

    >>> rows = Rows(array("i", [1, 2]), array("d", [0.5, 0.25]))
    >>> rows[1], list(rows), len(rows)
    ((2, 0.25), [(1, 0.5), (2, 0.25)], 2)
    """

    def __init__(self, *columns: Sequence) -> None:
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, k: int) -> tuple:
        return tuple(column[k] for column in self.columns)

    def __iter__(self) -> Iterator[tuple]:
        return zip(*self.columns)


class Adjacency:
    """Per node, the rows (increasing) of the ``rows`` that touch it, in two flat arrays.

    >>> adj = Adjacency(3, Rows(array("i", [0, 0]), array("i", [2, 1])))
    >>> [list(adj[u]) for u in range(3)]
    [[0, 1], [1], [0]]
    """

    def __init__(self, n_nodes: int, rows: Rows) -> None:
        a, b = rows.columns[0], rows.columns[1]
        count = [0] * (n_nodes + 1)
        for u in chain(a, b):
            count[u + 1] += 1
        for u in range(n_nodes):
            count[u + 1] += count[u]
        self.offsets = array("l", count)
        fill = count[:-1]
        self.rows = array("i", [0]) * count[-1]
        for k, (u, v) in enumerate(zip(a, b)):  # k increases: each node's rows stay sorted
            self.rows[fill[u]] = k
            fill[u] += 1
            self.rows[fill[v]] = k
            fill[v] += 1

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, u: int) -> array:
        return self.rows[self.offsets[u]:self.offsets[u + 1]]


@dataclass
class Universe:
    ids: list[str]  # universe index -> node id; papers first, then entities, each sorted
    n_papers: int
    types: list[str]  # "Paper" + entity types
    type_of: list[int]
    index: dict[str, int]
    labels: list[str]  # per node: a paper's label or title (else its id), an entity's name
    community: list[int | None]  # per paper; None: no links
    has: Rows  # (paper, entity, role, count)
    related: Rows  # (paper, paper, weight)
    communities: list[list[Any]]  # [number, papers, [label entity...]], largest first; -1 (no links) last
    #: The page's arrays: papers, entities, sentences, has ([paper, entity, role, count,
    #: sentence, marks]), related ([paper, paper, weight, [[shared entity, contribution | None]...], link kind,
    #: [shared word...]]),
    #: results and boards (the rows of ``paperkg.graph.explorer.results``)
    data: dict[str, JsonChunks]
    has_adj: Adjacency
    rel_adj: Adjacency
    stats: dict[str, Any] = field(default_factory=dict)

    def degree(self, u: int) -> int:
        return len(self.has_adj[u]) + len(self.rel_adj[u])

    def label(self, u: int) -> str:
        return self.labels[u]


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
    """The compact whole graph of the explorer (:class:`Universe`): what the views read, and the
    page's data as compressed JSON, each record encoded as soon as it is made."""
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
    labels: list[str] = []
    data = {name: JsonChunks() for name in ("papers", "entities", "sentences", "has", "related", "results", "boards")}

    community = community_of(g) if paper_ids else {}
    community_names = community_labels(g)  # first: its working memory is freed before ours grows
    paper_community: list[int | None] = []
    for node in paper_ids:
        attrs = g.nodes[node]
        rec: dict[str, Any] = {"i": node}
        label = as_text(attrs.get("label")) or as_text(attrs.get("paper_id")) or node
        title = as_text(attrs.get("title"))
        if title:
            rec["t"] = title
        if label != title:  # usually the label is the title: do not ship it twice
            rec["l"] = label
        labels.append(rec.get("l") or rec.get("t") or node)
        venue = as_text(attrs.get("venue"))
        if venue:
            rec["v"] = venue
        year = int_or_none(attrs.get("year"))
        if year is not None:
            rec["y"] = year
        url = http_url(attrs.get("url"))
        if url:
            rec["u"] = url
        if community.get(node, NO_COMMUNITY) != NO_COMMUNITY:
            rec["c"] = community[node]
        paper_community.append(rec.get("c"))
        authors = attrs.get("authors") or []
        if isinstance(authors, str):
            authors = [authors]
        authors = [a for a in (as_text(x) for x in authors) if a]
        if authors:
            rec["a"] = authors[:MAX_AUTHORS]
            if len(authors) > MAX_AUTHORS:
                rec["na"] = len(authors)
        data["papers"].add(rec)

    for node in entity_ids:
        attrs = g.nodes[node]
        name = as_text(attrs.get("name")) or as_text(attrs.get("key")) or node
        labels.append(name)
        rec = {"i": node, "n": name, "ty": type_index[str(attrs.get("type"))]}
        aliases = attrs.get("aliases") or []
        if isinstance(aliases, str):
            aliases = [aliases]
        aliases = sorted({a for a in (as_text(x) for x in aliases) if a and a != name})
        if aliases:
            rec["a"] = aliases[:MAX_ALIASES]
            if len(aliases) > MAX_ALIASES:
                rec["na"] = len(aliases)
        key = as_text(attrs.get("key"))
        if key:
            rec["k"] = key
        for field_name, short_name in (("pwc_id", "pw"), ("codesota_id", "cs")):
            value = as_text(attrs.get(field_name))
            if value:
                rec[short_name] = value
        record = http_url(attrs.get("record_url"))
        if record:
            rec["ru"] = record
        data["entities"].add(rec)  # paper counts: the page counts the entity's links

    role_index = {r: i for i, r in enumerate(ROLES)}
    sentence_index: dict[str, int] = {}

    def sentence_of(text: str) -> int:
        """The sentence's index in the page's ``sentences``, added when new (each once)."""
        s = sentence_index.get(text)
        if s is None:
            s = sentence_index[text] = len(sentence_index)
            data["sentences"].add(text)
        return s

    has_raw: list[tuple[int, int, dict]] = []
    rel_raw: list[tuple[int, int, dict]] = []
    for u, v, attrs in g.edges(data=True):
        kind = attrs.get("kind")
        iu, iv = index.get(u), index.get(v)
        if iu is None or iv is None:
            continue
        if kind == "HAS":
            if iu >= n_papers and iv < n_papers:  # tolerate entity -> paper
                iu, iv = iv, iu
            if iu < n_papers <= iv:
                has_raw.append((iu, iv, attrs))
        elif kind == "RELATED_TO" and iu < n_papers and iv < n_papers and iu != iv:
            rel_raw.append((min(iu, iv), max(iu, iv), attrs))
    has_raw.sort(key=lambda t: (t[0], t[1]))
    # Stable: of a pair linked both ways, its first edge in the graph's order comes first and is
    # kept below (no set of seen pairs: that was a tenth of the explorer's memory).
    rel_raw.sort(key=lambda t: (t[0], t[1]))

    has = Rows(array("i"), array("i"), array("b"), [])
    by_role = Counter()
    for p, e, attrs in has_raw:
        role = str(attrs.get("role") or "mentioned")
        r = role_index.get(role, len(ROLES) - 1)
        by_role[ROLES[r]] += 1
        evidence = as_text(attrs.get("evidence")) or ""
        s = sentence_of(evidence) if evidence else -1
        marks = mark_ranges(evidence, attrs.get("evidence_offset"), attrs.get("mentions"))
        count = int_or_none(attrs.get("count"))
        if count is None:
            mentions = attrs.get("mentions")
            count = len(mentions) if isinstance(mentions, (list, tuple)) else 1
        row: list[Any] = [p, e, r, count, s]
        if marks:
            row.append(marks)
        data["has"].add(row)
        for column, value in zip(has.columns, (p, e, r, count)):
            column.append(value)
    n_results = add_results(g, index, sentence_of, data)
    sentence_index.clear()  # its memory: the closure above keeps the dict itself
    del has_raw

    related = Rows(array("i"), array("i"), array("d"))
    previous = None
    for a, b, attrs in rel_raw:
        if (a, b) == previous:
            continue
        previous = (a, b)
        weight = round(finite(attrs.get("weight"), 0.0), 4)
        kind = attrs.get("link_kind")
        terms = attrs.get("terms")
        data["related"].add([a, b, weight, shared_evidence(attrs, index, n_papers),
                             kind if kind in LINK_KINDS else "entities",
                             [t for t in map(as_text, terms[:MAX_SHARED]) if t] if isinstance(terms, (list, tuple)) else []])
        for column, value in zip(related.columns, (a, b, weight)):
            column.append(value)
    del rel_raw

    sizes = Counter(c for c in community.values() if c != NO_COMMUNITY)
    communities = [
        [c, n, [index[e] for e in community_names.get(c, []) if e in index]]
        for c, n in sorted(sizes.items(), key=lambda item: (-item[1], item[0]))
    ]
    unlinked = sum(1 for c in community.values() if c == NO_COMMUNITY)
    if unlinked:  # the papers without links: one more cluster on the map, last
        communities.append([NO_COMMUNITY, unlinked, []])

    by_type = Counter(types[t] for t in type_of[n_papers:])
    return Universe(
        ids=ids,
        n_papers=n_papers,
        types=types,
        type_of=type_of,
        index=index,
        labels=labels,
        community=paper_community,
        has=has,
        related=related,
        communities=communities,
        data={name: chunks.close() for name, chunks in data.items()},
        has_adj=Adjacency(len(ids), has),
        rel_adj=Adjacency(len(ids), related),
        stats={
            "papers": n_papers,
            "entities": len(entity_ids),
            "by_type": {t: by_type.get(t, 0) for t in types[1:]},
            "has": len(has),
            "by_role": {r: by_role.get(r, 0) for r in ROLES},
            "related": len(related),
            "communities": len(sizes),
            "results": n_results,
        },
    )
