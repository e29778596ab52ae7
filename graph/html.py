"""Offline, self-contained HTML explorer for the paper knowledge graph.

One public entry point writes every page: :func:`write_html` (one view, or ``view="all"``) and
:func:`write_views` (all views into one directory). :func:`render_html` returns the page text and
:func:`explorer_data` the JSON payload the page is built from (for tests and other front ends).

Design
  * pyvis assembles the vis-network node/edge lists (``Network.add_node`` / ``add_edge``); the page
    itself is our own Jinja template (``templates/explorer.html.j2``) with the vis-network JS/CSS
    from the installed pyvis package inlined. No Bootstrap, no CDN, zero network requests; a
    Content-Security-Policy (``default-src 'none'``, scripts and styles pinned by SHA-256)
    enforces that and would block any injected script or event handler.
  * All graph text travels as JSON inside ``<script type="application/json">`` (``<``, ``>``,
    ``&``, U+2028/9 escaped) and the page script builds every tooltip and panel with DOM text
    nodes - never ``innerHTML`` with data. Canvas labels are plain text (vis ``font.multi`` off).
  * Every view is capped (see :data:`DEFAULT_CAPS`) and laid out in Python with a fixed seed, so
    the page draws once with physics off and is interactive immediately. Search, the side panel
    and focus mode still reach every node of the graph: the page carries the whole graph compactly
    (papers, entities, paper-entity links with their evidence sentences, similarity links).
  * Same graph + same arguments -> byte-identical HTML (everything is sorted, no timestamps).

Views (file names used by :func:`write_views`)
  ``overview``   -> ``explorer.html``   the top ``max_entities`` entities by number of papers plus
                                        the ``max_papers`` papers most linked to them (HAS edges)
  ``entity-map`` -> ``entities.html``   entities linked by co-occurrence (weight = shared papers)
  ``similarity`` -> ``similarity.html`` the ``max_papers`` papers with the most RELATED_TO weight,
                                        each with its 3 strongest links among them
  ``focus``      -> ``focus-<node>.html`` the ego graph of ``focus`` within ``hops`` hops
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

try:  # the package is installed as paperkg; fall back to the closed sets when used standalone
    from paperkg.errors import GraphError
    from paperkg.types import ENTITY_TYPES, ROLES
except ImportError:  # pragma: no cover - only when this file is used outside the package
    ENTITY_TYPES = ("Method", "Dataset", "Benchmark", "Task", "Metric")
    ROLES = ("proposed", "used", "mentioned")

    class GraphError(Exception):  # type: ignore[no-redef]
        """Stand-in for paperkg.errors.GraphError."""


__all__ = [
    "DEFAULT_CAPS",
    "PALETTE",
    "VIEWS",
    "VIEW_FILES",
    "explorer_data",
    "render_html",
    "write_html",
    "write_views",
]

#: The views :func:`write_html` renders; ``"all"`` is accepted there too (= :func:`write_views`).
VIEWS: tuple[str, ...] = ("overview", "entity-map", "similarity", "focus")
#: File names :func:`write_views` and directory outputs of :func:`write_html` use.
VIEW_FILES: dict[str, str] = {
    "overview": "explorer.html",
    "entity-map": "entities.html",
    "similarity": "similarity.html",
}
#: Per-view caps used when an argument is ``None``. ``max_edges`` drops the weakest edges;
#: ``max_focus_nodes`` caps the ego graph (focus pages and the in-page focus mode alike).
DEFAULT_CAPS: dict[str, dict[str, int]] = {
    "overview": {"max_entities": 200, "max_papers": 800, "max_edges": 10_000},
    "entity-map": {"max_entities": 300, "max_edges": 1_500},
    "similarity": {"max_papers": 1_000, "max_edges": 4_000},
    "focus": {"max_focus_nodes": 300, "max_edges": 3_000},
}
DEFAULT_HOPS = 2

#: Headless Chromium (Debian's package) as the browser tests and bench/bench_html.py run it: no
#: background networking, so a page can be checked for making no request of its own.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
)
MAX_HOPS = 3

#: Okabe-Ito colours for the entity types (colour-blind safe), neutral grey for papers; each
#: type also has its own shape, so nothing depends on telling colours apart.
PALETTE: dict[str, str] = {
    "Paper": "#8C8C8C",
    "Method": "#0072B2",
    "Dataset": "#E69F00",
    "Benchmark": "#009E73",
    "Task": "#CC79A7",
    "Metric": "#D55E00",
}
SHAPES: dict[str, str] = {
    "Paper": "square",
    "Method": "dot",
    "Dataset": "diamond",
    "Benchmark": "star",
    "Task": "triangle",
    "Metric": "triangleDown",
}
_EXTRA_COLOURS = ("#56B4E9", "#F0E442", "#000000")
_LABEL_MAX = 32
_MAX_AUTHORS = 12
_MAX_ALIASES = 30
_MAX_SHARED = 3
_LAYOUT_SEED = 20240601
_SPACING = 46.0  # px per layout unit
_GRAVITY = 0.05
_SIMILARITY_K = 3
#: px per layout unit, per view (the entity map has few, large nodes with long labels)
_VIEW_SPACING = {"entity-map": 80.0, "focus": 60.0}

_TEMPLATES = Path(__file__).resolve().parent / "templates"
_SURROGATE = re.compile("[\ud800-\udfff]")


# --------------------------------------------------------------------------------------------
# vendored vis-network (from the installed pyvis package)
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _vis_assets() -> tuple[str, str]:
    """(vis-network.min.js, vis-network.css) from the pyvis package, ready to inline."""
    import pyvis  # light: pyvis/__init__ does not import IPython

    root = Path(pyvis.__file__).resolve().parent
    for lib in (root / "templates" / "lib" / "vis-9.1.2", root / "lib" / "vis-9.1.2"):
        js_path, css_path = lib / "vis-network.min.js", lib / "vis-network.css"
        if js_path.is_file() and css_path.is_file():
            break
    else:  # pragma: no cover - a broken pyvis install
        raise GraphError(f"vis-network 9.1.2 not found in the pyvis package at {root}")
    js = js_path.read_text(encoding="utf-8")
    css = css_path.read_text(encoding="utf-8")
    # The source-map comment would make devtools fetch a file; drop it.
    js = re.sub(r"\n//# sourceMappingURL=\S*\s*$", "\n", js)
    css = re.sub(r"/\*# sourceMappingURL=\S*\s*\*/", "", css)
    if re.search(r"</script|<!--", js, re.I) or re.search(r"</style", css, re.I):
        raise GraphError("the vendored vis-network cannot be inlined safely")  # pragma: no cover
    return js, css


@functools.lru_cache(maxsize=1)
def _app_assets() -> tuple[str, str]:
    js = (_TEMPLATES / "explorer.js").read_text(encoding="utf-8")
    css = (_TEMPLATES / "explorer.css").read_text(encoding="utf-8")
    if re.search(r"</script|<!--", js, re.I) or re.search(r"</style", css, re.I):
        raise GraphError("explorer.js/.css cannot be inlined safely")  # pragma: no cover
    return js, css


@functools.lru_cache(maxsize=1)
def _jinja_env():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(str(_TEMPLATES)),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


# --------------------------------------------------------------------------------------------
# text helpers
# --------------------------------------------------------------------------------------------


def json_for_script(obj: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` become ``\\u003c``... (no ``</script>``, no ``<!--``), U+2028/9 are
    escaped, and lone surrogates (impossible to encode as UTF-8) become ``\\udXXX`` escapes.
    """
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    text = (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return _SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    text = value if isinstance(value, str) else str(value)
    return text


def _short(text: str, limit: int = _LABEL_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _http_url(value: Any) -> str | None:
    """The URL if it is an absolute http(s) URL without whitespace/control characters, else None."""
    url = _text(value)
    if not url:
        return None
    url = url.strip()
    if not re.match(r"(?i)^https?://[^\s/?#]+", url) or re.search(r"[\x00-\x20\x7f]", url):
        return None
    return url


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _finite(value: Any, default: float = 0.0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def _mark_ranges(evidence: str, offset: Any, mentions: Any) -> list[int]:
    """Flat [start, end, ...] UTF-16 ranges of the mentions inside the evidence sentence.

    Mentions carry abstract offsets; inside the evidence a mention starts at
    ``start - evidence_offset``. A mention whose text does not sit there is looked up in the
    sentence instead; mentions outside the sentence are dropped. Overlaps are merged.
    """
    if not evidence or not isinstance(mentions, (list, tuple)):
        return []
    base = _int_or_none(offset) or 0
    spans: list[tuple[int, int]] = []
    for mention in mentions:
        if not isinstance(mention, (list, tuple)) or len(mention) < 2:
            continue
        start, end = _int_or_none(mention[0]), _int_or_none(mention[1])
        text = _text(mention[2]) if len(mention) > 2 else None
        if start is None or end is None:
            continue
        rel_start, rel_end = start - base, end - base
        ok = 0 <= rel_start < rel_end <= len(evidence)
        if ok and text is not None and evidence[rel_start:rel_end] != text:
            ok = False
        if not ok and text:
            found = evidence.find(text)
            if found < 0:
                continue
            rel_start, rel_end = found, found + len(text)
        elif not ok:
            continue
        spans.append((rel_start, rel_end))
    spans.sort()
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    flat: list[int] = []
    for start, end in merged:
        flat += [_utf16_len(evidence[:start]), _utf16_len(evidence[:end])]
    return flat


# --------------------------------------------------------------------------------------------
# the whole graph, compactly (what search, panel and focus mode read)
# --------------------------------------------------------------------------------------------


@dataclass
class _Universe:
    ids: list[str]  # universe index -> node id; papers first, then entities, each sorted
    n_papers: int
    types: list[str]  # "Paper" + entity types
    type_of: list[int]
    index: dict[str, int]
    papers: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    has: list[list[Any]]  # [paper, entity, role, count, sentence, marks]
    related: list[list[Any]]  # [paper, paper, weight, [shared entity...]]
    sentences: list[str]
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


def _as_digraph(graph: Any) -> nx.Graph:
    inner = getattr(graph, "graph", None)
    if isinstance(inner, nx.Graph):
        return inner
    if isinstance(graph, nx.Graph):
        return graph
    raise GraphError(f"expected a networkx graph or a KnowledgeGraph, got {type(graph).__name__}")


def _build_universe(g: nx.Graph) -> _Universe:
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

    papers = []
    for node in paper_ids:
        data = g.nodes[node]
        rec: dict[str, Any] = {"i": node}
        label = _text(data.get("label")) or _text(data.get("paper_id")) or node
        title = _text(data.get("title"))
        if title:
            rec["t"] = title
        if label != title:  # usually the label is the title: do not ship it twice
            rec["l"] = label
        venue = _text(data.get("venue"))
        if venue:
            rec["v"] = venue
        year = _int_or_none(data.get("year"))
        if year is not None:
            rec["y"] = year
        url = _http_url(data.get("url"))
        if url:
            rec["u"] = url
        authors = data.get("authors") or []
        if isinstance(authors, str):
            authors = [authors]
        authors = [a for a in (_text(x) for x in authors) if a]
        if authors:
            rec["a"] = authors[:_MAX_AUTHORS]
            if len(authors) > _MAX_AUTHORS:
                rec["na"] = len(authors)
        papers.append(rec)

    entities = []
    for node in entity_ids:
        data = g.nodes[node]
        name = _text(data.get("name")) or _text(data.get("key")) or node
        rec = {"i": node, "n": name, "ty": type_index[str(data.get("type"))]}
        aliases = data.get("aliases") or []
        if isinstance(aliases, str):
            aliases = [aliases]
        aliases = sorted({a for a in (_text(x) for x in aliases) if a and a != name})
        if aliases:
            rec["a"] = aliases[:_MAX_ALIASES]
            if len(aliases) > _MAX_ALIASES:
                rec["na"] = len(aliases)
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
        evidence = _text(data.get("evidence")) or ""
        if evidence:
            s = sentence_index.get(evidence)
            if s is None:
                s = sentence_index[evidence] = len(sentences)
                sentences.append(evidence)
        else:
            s = -1
        marks = _mark_ranges(evidence, data.get("evidence_offset"), data.get("mentions"))
        count = _int_or_none(data.get("count"))
        if count is None:
            mentions = data.get("mentions")
            count = len(mentions) if isinstance(mentions, (list, tuple)) else 1
        row: list[Any] = [p, e, r, count, s]
        if marks:
            row.append(marks)
        has.append(row)

    related: list[list[Any]] = []
    for a, b, data in rel_raw:
        shared_keys = data.get("shared") or []
        shared = []
        for key in shared_keys if isinstance(shared_keys, (list, tuple)) else []:
            key = _text(key)
            if key is None:
                continue
            j = index.get(key if key.startswith("entity:") else "entity:" + key)
            if j is not None and j >= n_papers:
                shared.append(j)
            if len(shared) >= _MAX_SHARED:
                break
        related.append([a, b, round(_finite(data.get("weight"), 0.0), 4), shared])

    uni = _Universe(
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
    }
    return uni


# --------------------------------------------------------------------------------------------
# views: which nodes and edges are drawn
# --------------------------------------------------------------------------------------------


@dataclass
class _View:
    name: str
    nodes: list[int]
    edges: list[tuple[str, int, int, dict[str, Any]]]  # (id, u, v, extra vis fields)
    weights: list[float]  # layout attraction per edge
    notes: list[str]
    info: dict[str, Any]
    positions: dict[int, tuple[int, int]] = field(default_factory=dict)


def _check_cap(name: str, value: int | None, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GraphError(f"{name} must be a positive integer, got {value!r}")
    return value


def _fmt(n: int) -> str:
    return f"{n:,}"


def _has_edge(uni: _Universe, k: int) -> tuple[str, int, int, dict[str, Any]]:
    row = uni.has[k]
    extra: dict[str, Any] = {"kind": "HAS", "role": row[2]}
    if row[2] == 0:
        extra["width"] = 2
    elif row[2] == 2:
        extra["dashes"] = True
    return (f"h{k}", row[0], row[1], extra)


def _rel_edge(uni: _Universe, k: int) -> tuple[str, int, int, dict[str, Any]]:
    row = uni.related[k]
    return (f"r{k}", row[0], row[1], {"kind": "REL", "w": row[2]})


def _overview(uni: _Universe, max_entities: int, max_papers: int, max_edges: int) -> _View:
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
            f"the {_fmt(len(chosen_entities))} entities with the most papers "
            f"(of {_fmt(n_e)})"
        )
    if len(papers) < n_p:
        notes.append(f"the {_fmt(len(papers))} papers most linked to them (of {_fmt(n_p)})")
    if dropped_edges:
        notes.append(f"the {_fmt(max_edges)} strongest links ({_fmt(dropped_edges)} weaker ones dropped)")
    edges = [_has_edge(uni, k) for k in edge_ids]
    return _View(
        name="overview",
        nodes=papers + entities,
        edges=edges,
        weights=[1.0] * len(edges),
        notes=notes,
        info={"title": "Overview: papers and their entities"},
    )


def _entity_map(uni: _Universe, max_entities: int, max_edges: int) -> _View:
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
        notes.append(f"the {_fmt(len(chosen))} entities with the most papers (of {_fmt(n_e)})")
    if dropped:
        notes.append(f"the {_fmt(max_edges)} strongest co-occurrences ({_fmt(dropped)} weaker ones dropped)")
    assert chosen_set.issuperset(u for _, a, b, _x in edges for u in (a, b))
    return _View(
        name="entity-map",
        nodes=chosen,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": "Entity map: entities linked by shared papers"},
    )


def _similarity(uni: _Universe, max_papers: int, max_edges: int) -> _View:
    """The ``max_papers`` papers with the largest summed link weight, each joined to its
    strongest neighbours among them (a k-nearest-neighbour graph, k = ``_SIMILARITY_K``, which
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
        picked.update(links[:_SIMILARITY_K])
    edge_ids = sorted(picked, key=lambda k: (-uni.related[k][2], k))
    dropped = max(0, len(edge_ids) - max_edges)
    edge_ids = sorted(edge_ids[:max_edges])
    papers = sorted({p for k in edge_ids for p in uni.related[k][:2]})
    notes = []
    linked_total = len(strength)
    if len(papers) < linked_total:
        notes.append(
            f"the {_fmt(len(papers))} most strongly linked papers "
            f"(of {_fmt(linked_total)} with similarity links), each with its "
            f"{_SIMILARITY_K} strongest links among them"
        )
    if uni.n_papers > linked_total:
        notes.append(f"{_fmt(uni.n_papers - linked_total)} papers without similarity links are not drawn")
    if dropped:
        notes.append(f"the {_fmt(max_edges)} heaviest links ({_fmt(dropped)} lighter ones dropped)")
    edges = [_rel_edge(uni, k) for k in edge_ids]
    weights = [max(0.2, min(3.0, 1.0 + row[3]["w"])) for row in edges]
    return _View(
        name="similarity",
        nodes=papers,
        edges=edges,
        weights=weights,
        notes=notes,
        info={"title": "Paper similarity: papers linked through shared entities"},
    )


def _neighbours(uni: _Universe, u: int) -> list[int]:
    out = []
    for k in uni.has_adj[u]:
        row = uni.has[k]
        out.append(row[1] if row[0] == u else row[0])
    for k in uni.rel_adj[u]:
        row = uni.related[k]
        out.append(row[1] if row[0] == u else row[0])
    return out


def ego_nodes(uni: _Universe, center: int, hops: int, cap: int) -> tuple[dict[int, int], bool]:
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
            for v in _neighbours(uni, u):
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


def _resolve_node(uni: _Universe, g: nx.Graph, focus: str) -> int:
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


def ego_edges(uni: _Universe, members: set[int], max_edges: int) -> tuple[list[str], int]:
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


def _focus(uni: _Universe, center: int, hops: int, cap: int, max_edges: int) -> _View:
    dist, truncated = ego_nodes(uni, center, hops, cap)
    nodes = sorted(dist)
    edge_ids, dropped = ego_edges(uni, set(nodes), max_edges)
    edges = [
        _has_edge(uni, int(e[1:])) if e[0] == "h" else _rel_edge(uni, int(e[1:])) for e in edge_ids
    ]
    name = uni.label(center)
    notes = []
    if truncated:
        notes.append(f"capped at {_fmt(cap)} nodes (the most connected first)")
    if dropped:
        notes.append(f"the {_fmt(max_edges)} strongest links ({_fmt(dropped)} weaker ones dropped)")
    return _View(
        name="focus",
        nodes=nodes,
        edges=edges,
        weights=[1.0 if e[3]["kind"] == "HAS" else 0.3 for e in edges],
        notes=notes,
        info={
            "title": f"Focus: {_short(name, 80)} ({hops} hop{'s' if hops != 1 else ''})",
            "center": uni.ids[center],
            "hops": hops,
        },
    )


# --------------------------------------------------------------------------------------------
# layout (deterministic, fast: Fruchterman-Reingold with grid-approximated repulsion)
# --------------------------------------------------------------------------------------------


def _layout(n: int, edges: np.ndarray, weights: np.ndarray, *, seed: int, iterations: int = 0) -> np.ndarray:
    """Positions (n x 2, about one unit apart) for a connected graph on nodes 0..n-1.

    Fruchterman-Reingold: attraction d^2 along edges, repulsion k^2/d - exact for small graphs,
    for large ones approximated through the centres of mass of a grid (O(n * cells) per step)
    plus exact short-range repulsion (cKDTree pairs) - and a weak pull to the centre.
    Deterministic: same input -> same output.
    """
    from scipy.spatial import cKDTree

    if n <= 1:
        return np.zeros((n, 2))
    if not iterations:
        iterations = 60 if n <= 30 else 150 if n <= 1500 else 100
    rng = np.random.RandomState(seed)
    k = 1.0
    side = math.sqrt(n) * k
    pos = rng.uniform(0, side, size=(n, 2))
    t = side / 8.0 + 0.5
    cool = 0.005 ** (1.0 / iterations)
    ei = edges[:, 0] if len(edges) else np.zeros(0, dtype=np.int64)
    ej = edges[:, 1] if len(edges) else np.zeros(0, dtype=np.int64)
    exact = n <= 400
    grid = 24
    for _ in range(iterations):
        disp = np.zeros((n, 2))
        if exact:
            d = pos[:, None, :] - pos[None, :, :]
            f = (k * k) / ((d * d).sum(-1) + 1e-4)
            disp += (d * f[:, :, None]).sum(1)
        else:
            lo = pos.min(0)
            cell = np.maximum((pos.max(0) - lo) / grid, 1e-9)
            ij = np.minimum(((pos - lo) / cell).astype(np.int64), grid - 1)
            cid = ij[:, 0] * grid + ij[:, 1]
            cnt = np.bincount(cid, minlength=grid * grid)
            nz = np.nonzero(cnt)[0]
            m = cnt[nz].astype(float)
            cx = np.bincount(cid, pos[:, 0], grid * grid)[nz] / m
            cy = np.bincount(cid, pos[:, 1], grid * grid)[nz] / m
            dx = pos[:, 0:1] - cx[None, :]
            dy = pos[:, 1:2] - cy[None, :]
            soft = float((cell**2).sum()) * 0.25 + k * k
            f = m[None, :] * (k * k) / (dx * dx + dy * dy + soft)
            disp[:, 0] += (dx * f).sum(1)
            disp[:, 1] += (dy * f).sum(1)
            radius = max(k, float(np.sqrt((cell**2).sum())))
            pairs = cKDTree(pos).query_pairs(radius, output_type="ndarray")
            if len(pairs):
                i, j = pairs[:, 0], pairs[:, 1]
                d = pos[i] - pos[j]
                d2 = (d * d).sum(1)
                # exact minus the (softened) part the grid already counted
                ff = (k * k) / (d2 + 1e-4) - (k * k) / (d2 + soft)
                fx, fy = d[:, 0] * ff, d[:, 1] * ff
                disp[:, 0] += np.bincount(i, fx, n) - np.bincount(j, fx, n)
                disp[:, 1] += np.bincount(i, fy, n) - np.bincount(j, fy, n)
        if len(ei):
            d = pos[ei] - pos[ej]
            f2 = np.sqrt((d * d).sum(1)) * weights / k
            fx, fy = d[:, 0] * f2, d[:, 1] * f2
            disp[:, 0] -= np.bincount(ei, fx, n) - np.bincount(ej, fx, n)
            disp[:, 1] -= np.bincount(ei, fy, n) - np.bincount(ej, fy, n)
        disp -= _GRAVITY * (pos - pos.mean(0))
        length = np.sqrt((disp * disp).sum(1)) + 1e-9
        pos = pos + disp * (np.minimum(length, t) / length)[:, None]
        # quantise every step: last-bit differences between numpy builds/CPUs cannot grow
        pos = np.round(pos, 7)
        t *= cool
    return pos - pos.mean(0)


def _components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(n):
        groups[find(i)].append(i)
    return sorted(groups.values(), key=lambda c: (-len(c), c[0]))


def _packed_layout(n: int, pairs: list[tuple[int, int]], weights: list[float], *, seed: int) -> np.ndarray:
    """Lay out each connected component on its own, then pack them in rows (largest first;
    isolated nodes end up in a tidy grid instead of being flung to the edges)."""
    pos = np.zeros((n, 2))
    comps = _components(n, pairs)
    by_comp: dict[int, list[int]] = defaultdict(list)
    comp_of = {}
    for c, members in enumerate(comps):
        for i in members:
            comp_of[i] = c
    for e, (a, b) in enumerate(pairs):
        by_comp[comp_of[a]].append(e)
    blocks = []
    for c, members in enumerate(comps):
        local = {u: i for i, u in enumerate(members)}
        es = by_comp[c]
        sub_edges = np.array([(local[pairs[e][0]], local[pairs[e][1]]) for e in es], dtype=np.int64).reshape(-1, 2)
        sub_w = np.array([weights[e] for e in es], float)
        if len(members) == 2:
            p = np.array([[-0.5, 0.0], [0.5, 0.0]])
        else:
            p = _layout(len(members), sub_edges, sub_w, seed=seed + c)
        p = p - p.min(0)
        blocks.append((members, p))
    margin = 1.2
    area = sum((float(p[:, 0].max()) + margin) * (float(p[:, 1].max()) + margin) for _, p in blocks)
    widest = max((float(p[:, 0].max()) for _, p in blocks), default=0.0)
    width = max(widest, math.sqrt(area) * 1.3)
    x = y = row = 0.0
    for members, p in blocks:
        w, h = float(p[:, 0].max()), float(p[:, 1].max())
        if x > 0 and x + w > width:
            x, y, row = 0.0, y + row + margin, 0.0
        pos[members] = p + (x, y)
        x += w + margin
        row = max(row, h)
    return pos - (pos.min(0) + pos.max(0)) / 2 if n else pos


def _place(view: _View) -> None:
    order = view.nodes
    local = {u: i for i, u in enumerate(order)}
    pairs, weights = [], []
    for (_id, a, b, _x), w in zip(view.edges, view.weights):
        if a != b:
            pairs.append((local[a], local[b]))
            weights.append(w)
    pos = _packed_layout(len(order), pairs, weights, seed=_LAYOUT_SEED)
    spacing = _VIEW_SPACING.get(view.name, _SPACING)
    view.positions = {
        u: (int(round(float(x) * spacing)), int(round(float(y) * spacing)))
        for u, (x, y) in zip(order, pos)
    }


# --------------------------------------------------------------------------------------------
# payload
# --------------------------------------------------------------------------------------------


def node_size(uni: _Universe, u: int) -> float:
    """Node radius in px: papers are fixed, entities grow with their number of papers."""
    if u < uni.n_papers:
        return 9
    return round(min(40.0, 9 + 3.5 * math.log2(1 + len(uni.has_adj[u]))), 1)


def _vis_lists(uni: _Universe, view: _View) -> tuple[list[dict], list[dict]]:
    """Assemble the vis-network node and edge dicts with pyvis."""
    from pyvis.network import Network  # imports IPython: keep it out of module import time

    net = Network(directed=True)  # directed: skips pyvis' O(E^2) duplicate-edge scan
    for u in view.nodes:
        t = uni.type_of[u]
        x, y = view.positions.get(u, (0, 0))
        net.add_node(
            uni.ids[u],
            label=_short(uni.label(u)) or uni.ids[u],
            shape=SHAPES.get(uni.types[t], "dot"),
            group=f"g{t}",
            size=node_size(uni, u),
            x=x,
            y=y,
        )
    for edge_id, a, b, extra in view.edges:
        net.add_edge(uni.ids[a], uni.ids[b], id=edge_id, **extra)
    nodes = [dict(n) for n in net.nodes]
    edges = []
    for e in net.edges:
        e = dict(e)
        e.pop("arrows", None)  # only there because of directed=True
        edges.append(e)
    return nodes, edges


def _palette(types: Sequence[str]) -> list[str]:
    colours = []
    extra = 0
    for t in types:
        if t in PALETTE:
            colours.append(PALETTE[t])
        else:
            colours.append(_EXTRA_COLOURS[extra % len(_EXTRA_COLOURS)])
            extra += 1
    return colours


def _prepare(
    graph: Any,
    *,
    view: str,
    max_entities: int | None,
    max_papers: int | None,
    max_edges: int | None,
    focus: str | None,
    hops: int,
    max_focus_nodes: int | None,
) -> tuple[_Universe, _View, dict[str, int]]:
    g = _as_digraph(graph)
    if view not in VIEWS:
        raise GraphError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    if focus is not None and view == "overview":
        view = "focus"
    if focus is not None and view != "focus":
        raise GraphError(f"focus= writes the focus view; it does not combine with view {view!r}")
    for name, value in (
        ("max_entities", max_entities),
        ("max_papers", max_papers),
        ("max_edges", max_edges),
        ("max_focus_nodes", max_focus_nodes),
    ):
        _check_cap(name, value, 1)
    if isinstance(hops, bool) or not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise GraphError(f"hops must be an integer from 1 to {MAX_HOPS}, got {hops!r}")
    uni = _build_universe(g)
    d = DEFAULT_CAPS["focus"]
    caps = {
        "max_focus_nodes": _check_cap("max_focus_nodes", max_focus_nodes, d["max_focus_nodes"]),
        "max_focus_edges": d["max_edges"],
    }
    if view == "overview":
        d = DEFAULT_CAPS["overview"]
        caps.update(
            max_entities=_check_cap("max_entities", max_entities, d["max_entities"]),
            max_papers=_check_cap("max_papers", max_papers, d["max_papers"]),
            max_edges=_check_cap("max_edges", max_edges, d["max_edges"]),
        )
        v = _overview(uni, caps["max_entities"], caps["max_papers"], caps["max_edges"])
    elif view == "entity-map":
        d = DEFAULT_CAPS["entity-map"]
        caps.update(
            max_entities=_check_cap("max_entities", max_entities, d["max_entities"]),
            max_edges=_check_cap("max_edges", max_edges, d["max_edges"]),
        )
        v = _entity_map(uni, caps["max_entities"], caps["max_edges"])
    elif view == "similarity":
        d = DEFAULT_CAPS["similarity"]
        caps.update(
            max_papers=_check_cap("max_papers", max_papers, d["max_papers"]),
            max_edges=_check_cap("max_edges", max_edges, d["max_edges"]),
        )
        v = _similarity(uni, caps["max_papers"], caps["max_edges"])
    else:
        if focus is None:
            raise GraphError("view 'focus' needs focus=<paper or entity id>")
        center = _resolve_node(uni, g, focus)
        caps["max_focus_edges"] = _check_cap("max_edges", max_edges, d["max_edges"])
        v = _focus(uni, center, hops, caps["max_focus_nodes"], caps["max_focus_edges"])
    _place(v)
    return uni, v, caps


def _payload(uni: _Universe, v: _View, caps: dict[str, int], hops: int, title: str, links: list[dict]) -> dict:
    nodes, edges = _vis_lists(uni, v)
    return {
        "meta": {
            "title": title,
            "view": v.name,
            "viewTitle": v.info["title"],
            "center": v.info.get("center"),
            "hops": v.info.get("hops", hops),
            "maxHops": MAX_HOPS,
            "caps": caps,
            "notes": v.notes,
            "types": uni.types,
            "colors": _palette(uni.types),
            "shapes": [SHAPES.get(t, "dot") for t in uni.types],
            "roles": list(ROLES),
            "stats": uni.stats,
            "links": links,
            "labelMax": _LABEL_MAX,
        },
        "papers": uni.papers,
        "entities": uni.entities,
        "sentences": uni.sentences,
        "has": uni.has,
        "related": uni.related,
        "view": {"nodes": nodes, "edges": edges},
    }


def explorer_data(
    graph: Any,
    *,
    view: str = "overview",
    max_entities: int | None = None,
    max_papers: int | None = None,
    max_edges: int | None = None,
    focus: str | None = None,
    hops: int = DEFAULT_HOPS,
    max_focus_nodes: int | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """The JSON payload of one page (what :func:`render_html` embeds), as a dict."""
    uni, v, caps = _prepare(
        graph,
        view=view,
        max_entities=max_entities,
        max_papers=max_papers,
        max_edges=max_edges,
        focus=focus,
        hops=hops,
        max_focus_nodes=max_focus_nodes,
    )
    return _payload(uni, v, caps, hops, title or "paperkg explorer", [])


def render_html(
    graph: Any,
    *,
    view: str = "overview",
    max_entities: int | None = None,
    max_papers: int | None = None,
    max_edges: int | None = None,
    focus: str | None = None,
    hops: int = DEFAULT_HOPS,
    max_focus_nodes: int | None = None,
    title: str | None = None,
    links: Sequence[tuple[str, str]] = (),
) -> str:
    """The complete, self-contained HTML page of one view (see :func:`write_html`).

    ``links``: (label, relative href) pairs for the page's view navigation.
    """
    uni, v, caps = _prepare(
        graph,
        view=view,
        max_entities=max_entities,
        max_papers=max_papers,
        max_edges=max_edges,
        focus=focus,
        hops=hops,
        max_focus_nodes=max_focus_nodes,
    )
    title = _text(title) or "paperkg explorer"
    nav = [{"label": str(label), "href": str(href)} for label, href in links]
    data = _payload(uni, v, caps, hops, title, nav)
    vis_js, vis_css = _vis_assets()
    app_js, app_css = _app_assets()
    # swatch colours per type index (our palette constants only)
    app_css += "".join(f".sw-{i} {{ background: {c}; }}\n" for i, c in enumerate(_palette(uni.types)))
    csp = "; ".join(
        [
            "default-src 'none'",
            f"script-src {_csp_hash(vis_js)} {_csp_hash(app_js)}",
            f"style-src {_csp_hash(vis_css)} {_csp_hash(app_css)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    stats = uni.stats
    template = _jinja_env().get_template("explorer.html.j2")
    from markupsafe import Markup

    return template.render(
        title=title,
        view_title=v.info["title"],
        view_name=v.name,
        notes=v.notes,
        stats=stats,
        fmt=_fmt,
        shown_nodes=len(v.nodes),
        shown_edges=len(v.edges),
        nav=nav,
        csp=Markup(csp),  # our constants and base64 digests only (no quotes)
        vis_css=Markup(vis_css),
        vis_js=Markup(vis_js),
        app_css=Markup(app_css),
        app_js=Markup(app_js),
        data_json=Markup(json_for_script(data)),
    )


def _focus_file(uni_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", uni_id.replace(":", "-")).strip("-.")[:60] or "node"
    if slug.replace("-", ":", 1) != uni_id:
        slug += "-" + hashlib.sha1(uni_id.encode("utf-8")).hexdigest()[:8]
    return f"focus-{slug}.html"


def _is_dir_target(out: Path) -> bool:
    return out.is_dir() or out.suffix.lower() not in (".html", ".htm")


def write_views(
    graph: Any,
    out_dir: str | Path,
    *,
    views: Iterable[str] = ("overview", "entity-map", "similarity"),
    focus: str | Sequence[str] | None = None,
    hops: int = DEFAULT_HOPS,
    max_entities: int | None = None,
    max_papers: int | None = None,
    max_edges: int | None = None,
    max_focus_nodes: int | None = None,
    title: str | None = None,
) -> list[Path]:
    """Write the views into ``out_dir`` (created): ``explorer.html`` (overview), ``entities.html``
    (entity map), ``similarity.html`` and, per ``focus`` node, ``focus-<node>.html``. The pages
    link to each other. Caps left ``None`` take the per-view :data:`DEFAULT_CAPS`.
    Returns the written paths in that order."""
    out = Path(out_dir)
    views = list(views)
    for name in views:
        if name not in VIEW_FILES:
            raise GraphError(f"unknown view {name!r}; expected some of {', '.join(VIEW_FILES)}")
    focus_list: list[str] = [] if focus is None else [focus] if isinstance(focus, str) else list(focus)
    g = _as_digraph(graph)
    if focus_list:
        uni = _build_universe(g)
        focus_ids = [uni.ids[_resolve_node(uni, g, f)] for f in focus_list]
    else:
        focus_ids = []
    nav_labels = {"overview": "Overview", "entity-map": "Entity map", "similarity": "Similarity"}
    links = [(nav_labels[name], VIEW_FILES[name]) for name in views]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    jobs: list[tuple[str, str | None, str]] = [(name, None, VIEW_FILES[name]) for name in views]
    jobs += [("focus", fid, _focus_file(fid)) for fid in focus_ids]
    for name, fid, filename in jobs:
        page = render_html(
            g,
            view=name,
            focus=fid,
            hops=hops,
            max_entities=max_entities,
            max_papers=max_papers,
            max_edges=max_edges,
            max_focus_nodes=max_focus_nodes,
            title=title,
            links=links,
        )
        path = out / filename
        path.write_text(page, encoding="utf-8", newline="\n")
        written.append(path)
    return written


def write_html(
    graph: Any,
    out: str | Path,
    *,
    view: str | None = None,
    max_entities: int | None = None,
    max_papers: int | None = None,
    max_edges: int | None = None,
    focus: str | None = None,
    hops: int = DEFAULT_HOPS,
    max_focus_nodes: int | None = None,
    title: str | None = None,
) -> list[Path]:
    """Write the explorer page(s) for ``graph`` (a ``networkx.DiGraph`` or a ``KnowledgeGraph``).

    ``out`` is a file (``*.html``/``*.htm``) or a directory (created; files named after the
    view, see :data:`VIEW_FILES`). ``view``: ``"overview"``, ``"entity-map"``, ``"similarity"``,
    ``"focus"`` (needs ``focus``) or ``"all"`` (every view into the directory ``out``, plus the
    focus page if ``focus`` is given). ``view=None`` (default) means ``"all"`` for a directory
    (or ``"focus"`` when ``focus`` is given) and ``"overview"`` for a file. ``focus`` (a node id
    such as ``"paper:<id>"`` / ``"entity:<key>"``, a bare paper id / entity key, or an exact
    entity name) writes the focus page: the ego graph within ``hops`` (1-3) hops, at most
    ``max_focus_nodes`` nodes and ``max_edges`` edges. Caps left ``None`` take
    :data:`DEFAULT_CAPS`. Returns the paths written. Raises
    :class:`paperkg.errors.GraphError` on bad arguments.
    """
    out = Path(out)
    if view is None:
        view = "overview" if focus is not None or not _is_dir_target(out) else "all"
    if view == "all":
        if not _is_dir_target(out):
            raise GraphError(f"view 'all' writes several pages; {out} must be a directory")
        return write_views(
            graph,
            out,
            focus=focus,
            hops=hops,
            max_entities=max_entities,
            max_papers=max_papers,
            max_edges=max_edges,
            max_focus_nodes=max_focus_nodes,
            title=title,
        )
    if view not in VIEWS:
        raise GraphError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}, all")
    effective = "focus" if focus is not None and view == "overview" else view
    if effective == "focus" and focus is None:
        raise GraphError("view 'focus' needs focus=<paper or entity id>")
    g = _as_digraph(graph)
    if _is_dir_target(out):
        if effective == "focus":
            uni = _build_universe(g)
            filename = _focus_file(uni.ids[_resolve_node(uni, g, focus)])
        else:
            filename = VIEW_FILES[effective]
        out.mkdir(parents=True, exist_ok=True)
        path = out / filename
    else:
        out.parent.mkdir(parents=True, exist_ok=True)
        path = out
    page = render_html(
        g,
        view=effective,
        focus=focus,
        hops=hops,
        max_entities=max_entities,
        max_papers=max_papers,
        max_edges=max_edges,
        max_focus_nodes=max_focus_nodes,
        title=title,
    )
    path.write_text(page, encoding="utf-8", newline="\n")
    return [path]
