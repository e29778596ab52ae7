"""The JSON payload of a page: vis-network lists assembled with pyvis, plus the universe."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from paperkg.errors import GraphError
from paperkg.graph.explorer.config import (
    DEFAULT_CAPS, DEFAULT_HOPS, EXTRA_COLOURS, LABEL_MAX, MAX_HOPS, PALETTE, SHAPES, VIEWS,
)
from paperkg.graph.explorer.layout import place
from paperkg.graph.explorer.text import JsonChunks, as_text, short
from paperkg.graph.explorer.universe import Universe, as_digraph, build_universe
from paperkg.graph.explorer.views import (
    View, check_cap, cluster_node, cluster_radius, entity_map_view, focus_view, resolve_node, similarity_view,
    topic_lines, topic_map_view,
)
from paperkg.types import RESULT_KINDS, ROLES


def node_size(uni: Universe, u: int) -> float:
    """Node radius in px: papers are fixed, entities grow with their number of papers."""
    if u < uni.n_papers:
        return 9
    return round(min(40.0, 9 + 3.5 * math.log2(1 + len(uni.has_adj[u]))), 1)


def vis_lists(uni: Universe, view: View) -> tuple[list[dict], list[dict]]:
    """Assemble the vis-network node and edge dicts with pyvis."""
    from pyvis.network import Network  # imports IPython: keep it out of module import time

    net = Network(directed=True)  # directed: skips pyvis' O(E^2) duplicate-edge scan
    topics = {cluster_node(c): (c, n, labels) for c, n, labels in uni.communities}
    ids = {u: f"community:{topics[u][0]}" if u < 0 else uni.ids[u] for u in view.nodes}
    for u in view.nodes:
        if u < 0:
            c, n, labels = topics[u]
            x, y = view.positions.get(u, (0, 0))
            net.add_node(ids[u], label="\n".join(topic_lines(uni, c, labels, n)), shape="dot", group="topic",
                         size=cluster_radius(n), x=x, y=y)
            continue
        t = uni.type_of[u]
        x, y = view.positions.get(u, (0, 0))
        net.add_node(
            uni.ids[u],
            label=short(uni.label(u)) or uni.ids[u],
            shape=SHAPES.get(uni.types[t], "dot"),
            group=f"g{t}",
            size=node_size(uni, u),
            x=x,
            y=y,
        )
    for edge_id, a, b, extra in view.edges:
        net.add_edge(ids[a], ids[b], id=edge_id, **extra)
    nodes = [dict(n) for n in net.nodes]
    edges = []
    for e in net.edges:
        e = dict(e)
        e.pop("arrows", None)  # only there because of directed=True
        edges.append(e)
    return nodes, edges


def palette(types: Sequence[str]) -> list[str]:
    colours = []
    extra = 0
    for t in types:
        if t in PALETTE:
            colours.append(PALETTE[t])
        else:
            colours.append(EXTRA_COLOURS[extra % len(EXTRA_COLOURS)])
            extra += 1
    return colours


def prepare(
    graph: Any,
    *,
    view: str = "overview",
    max_entities: int | None = None,
    max_papers: int | None = None,
    max_edges: int | None = None,
    focus: str | None = None,
    hops: int = DEFAULT_HOPS,
    max_focus_nodes: int | None = None,
    universe: Universe | None = None,
) -> tuple[Universe, View, dict[str, int]]:
    """The universe of ``graph``, the view drawn of it (laid out) and its caps, checked.

    ``view``: ``"overview"``, ``"entity-map"``, ``"similarity"`` or ``"focus"`` (the latter,
    also ``overview`` with ``focus`` given, draws the ego graph of ``focus`` within ``hops``).
    Caps left ``None`` take :data:`DEFAULT_CAPS`; see :func:`~paperkg.graph.explorer.write_html`.
    ``universe``: :func:`build_universe` of ``graph`` when the caller already has it (the pages
    of one export share one; views only read it).
    """
    g = as_digraph(graph)
    if view not in VIEWS:
        raise GraphError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")
    if focus is not None and view == "overview":
        view = "focus"
    if focus is not None and view != "focus":
        raise GraphError(f"focus= writes the focus view; it does not combine with view {view!r}")
    given = {"max_entities": max_entities, "max_papers": max_papers, "max_edges": max_edges,
             "max_focus_nodes": max_focus_nodes}
    for name, value in given.items():
        check_cap(name, value, 1)
    if isinstance(hops, bool) or not isinstance(hops, int) or not 1 <= hops <= MAX_HOPS:
        raise GraphError(f"hops must be an integer from 1 to {MAX_HOPS}, got {hops!r}")
    uni = build_universe(g) if universe is None else universe
    d = DEFAULT_CAPS["focus"]
    caps = {
        "max_focus_nodes": check_cap("max_focus_nodes", max_focus_nodes, d["max_focus_nodes"]),
        "max_focus_edges": d["max_edges"],
    }
    if view != "focus":  # the caps this view has (DEFAULT_CAPS[view]), given or default
        caps.update({name: check_cap(name, given[name], default) for name, default in DEFAULT_CAPS[view].items()})
    if view == "overview":
        v = topic_map_view(uni, caps["max_edges"])
    elif view == "entity-map":
        v = entity_map_view(uni, caps["max_entities"], caps["max_edges"])
    elif view == "similarity":
        v = similarity_view(uni, caps["max_papers"], caps["max_edges"])
    else:
        if focus is None:
            raise GraphError("view 'focus' needs focus=<paper or entity id>")
        center = resolve_node(uni, g, focus)
        caps["max_focus_edges"] = check_cap("max_edges", max_edges, d["max_edges"])
        v = focus_view(uni, center, hops, caps["max_focus_nodes"], caps["max_focus_edges"])
    place(v)
    return uni, v, caps


def payload(uni: Universe, v: View, caps: dict[str, int], hops: int, title: str, links: list[dict]) -> dict:
    nodes, edges = vis_lists(uni, v)
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
            "colors": palette(uni.types),
            "shapes": [SHAPES.get(t, "dot") for t in uni.types],
            "roles": list(ROLES),
            "resultKinds": list(RESULT_KINDS),
            "stats": uni.stats,
            "links": links,
            "labelMax": LABEL_MAX,
        },
        **uni.data,  # papers, entities, sentences, has, related, results, boards (JsonChunks)
        "communities": uni.communities,
        "view": {"nodes": nodes, "edges": edges},
    }


def page_data(graph: Any, *, title: str | None = None, links: Sequence[tuple[str, str]] = (),
              **options: Any) -> dict[str, Any]:
    """The payload of one page with the universe's arrays still compressed
    (:class:`~paperkg.graph.explorer.text.JsonChunks`), as the page writer streams it."""
    uni, v, caps = prepare(graph, **options)
    nav = [{"label": str(label), "href": str(href)} for label, href in links]
    return payload(uni, v, caps, options.get("hops", DEFAULT_HOPS), as_text(title) or "paperkg explorer", nav)


def explorer_data(graph: Any, *, title: str | None = None, links: Sequence[tuple[str, str]] = (),
                  **options: Any) -> dict[str, Any]:
    """The JSON payload of one page (what :func:`render_html` embeds), as a dict.

    ``options`` choose the view and its caps, as in :func:`prepare`; ``links``: (label, relative
    href) pairs for the page's view navigation.
    """
    data = page_data(graph, title=title, links=links, **options)
    return {name: value.decode() if isinstance(value, JsonChunks) else value for name, value in data.items()}
