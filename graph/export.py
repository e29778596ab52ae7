"""Exports: node-link JSON (also the save format), GraphML, and graph loading.

GraphML holds only scalar attributes, so lists (aliases, authors, mentions, shared) are written
as JSON strings and ``None`` values are left out.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import networkx as nx

from paperkg.errors import GraphFileError

log = logging.getLogger("paperkg")

FORMAT = "paperkg-graph"
FORMAT_VERSION = 1


def to_node_link(graph: nx.DiGraph) -> dict:
    """The graph as a node-link dict (deterministic: nodes and edges in insertion order)."""
    data = nx.node_link_data(graph, edges="edges")
    data["graph"] = {**data.get("graph", {}), "format": FORMAT, "format_version": FORMAT_VERSION}
    return data


def write_node_link(graph: nx.DiGraph, path: str | Path) -> Path:
    """Write node-link JSON; ``paperkg.load`` reads it back.

    >>> import tempfile, os
    >>> g = nx.DiGraph(); g.add_node("paper:x", kind="Paper", paper_id="x", title=None)
    >>> p = write_node_link(g, os.path.join(tempfile.mkdtemp(), "g.json"))
    >>> read_node_link(p).nodes["paper:x"]
    {'kind': 'Paper', 'paper_id': 'x', 'title': None}
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(to_node_link(graph), handle, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        handle.write("\n")
    return path


def read_node_link(path: str | Path) -> nx.DiGraph:
    """Read a graph written by :func:`write_node_link`, checking its format marker."""
    path = Path(path)
    if not path.exists():
        raise GraphFileError(f"{path}: no such graph file (build one with 'paperkg build INPUT --out DIR')")
    if path.is_dir():
        raise GraphFileError(f"{path}: is a folder; give the graph file in it ({path / 'graph.json'})")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        data = json.loads(text)
        if _SURROGATE_ESCAPE.search(text):
            data = _replace_surrogates(data, path)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, huge numbers
        raise GraphFileError(f"{path}: not a paperkg graph file ({exc})") from exc
    except OSError as exc:
        raise GraphFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    meta = data.get("graph", {}) if isinstance(data, dict) else {}
    if meta.get("format") != FORMAT:
        raise GraphFileError(f"{path}: not a paperkg graph file (no '{FORMAT}' marker)")
    if meta.get("format_version") != FORMAT_VERSION:
        raise GraphFileError(f"{path}: graph format version {meta.get('format_version')!r}; this paperkg reads {FORMAT_VERSION}")
    problem = _schema_problem(data)
    if problem:
        raise GraphFileError(f"{path}: malformed paperkg graph file: {problem}")
    try:
        graph = nx.node_link_graph(data, directed=True, multigraph=False, edges="edges")
    except (KeyError, TypeError) as exc:
        raise GraphFileError(f"{path}: malformed paperkg graph file: a node or edge lacks {exc}") from exc
    graph.graph.pop("format", None)
    graph.graph.pop("format_version", None)
    return graph


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _replace_surrogates(data, path: Path):
    """``data`` with every lone surrogate (a ``"\\udc80"`` escape in a hand-made file) replaced by
    U+FFFD, one character for one, so offsets stay valid and no export or load fails on it."""
    replaced = 0

    def clean(value):
        nonlocal replaced
        if isinstance(value, str):
            fixed, count = _LONE_SURROGATE.subn("\ufffd", value)
            replaced += count
            return fixed
        if isinstance(value, list):
            return [clean(item) for item in value]
        if isinstance(value, dict):
            return {clean(key): clean(item) for key, item in value.items()}
        return value

    data = clean(data)
    if replaced:
        log.warning(f"{path}: replaced {replaced} lone surrogate{'s' if replaced != 1 else ''} with U+FFFD")
    return data


#: The attributes every reader of a graph relies on, per node and edge kind (schema in paperkg.graph).
_REQUIRED = {"Paper": ("paper_id",), "Entity": ("key", "type", "name"), "HAS": ("role",), "RELATED_TO": ("weight",)}


def _schema_problem(data: dict) -> str | None:
    """What makes a node-link dict unusable as a paperkg graph, or None (checked up front, so a
    broken file is one line, not a KeyError deep in a command)."""
    for part in ("nodes", "edges"):
        if not isinstance(data.get(part), list) or not all(isinstance(item, dict) for item in data[part]):
            return f"'{part}' is not a list of objects"
    ids = set()
    for index, node in enumerate(data["nodes"]):
        kind = node.get("kind")
        if "id" not in node or kind not in ("Paper", "Entity"):
            return f"node {index} has no 'id' or no kind Paper/Entity"
        missing = [name for name in _REQUIRED[kind] if name not in node]
        if missing:
            return f"node {node['id']!r} lacks {', '.join(missing)}"
        ids.add(node["id"])
    for index, edge in enumerate(data["edges"]):
        kind = edge.get("kind")
        if edge.get("source") not in ids or edge.get("target") not in ids or kind not in ("HAS", "RELATED_TO"):
            return f"edge {index} has an unknown source or target, or no kind HAS/RELATED_TO"
        missing = [name for name in _REQUIRED[kind] if name not in edge]
        if missing:
            return f"edge {index} lacks {', '.join(missing)}"
    return None


def _scalar(value):
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    return value


def write_graphml(graph: nx.DiGraph, path: str | Path) -> Path:
    """Write GraphML (lists as JSON strings, ``None`` left out)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    flat = nx.DiGraph()
    flat.graph.update({k: _scalar(v) for k, v in graph.graph.items() if v is not None})
    for node, attrs in graph.nodes(data=True):
        flat.add_node(node, **{k: _scalar(v) for k, v in attrs.items() if v is not None})
    for source, target, attrs in graph.edges(data=True):
        flat.add_edge(source, target, **{k: _scalar(v) for k, v in attrs.items() if v is not None})
    nx.write_graphml(flat, path, encoding="utf-8")
    return path
