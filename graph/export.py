"""Exports: node-link JSON (also the save format), GraphML, and graph loading.

GraphML holds only scalar attributes, so lists (aliases, authors, mentions, shared) are written
as JSON strings and ``None`` values are left out. Every file is written atomically and is valid
for its format whatever the text holds (see :func:`write_graphml` and :func:`write_node_link`).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Iterator

import networkx as nx

from paperkg.atomic import REPLACE, atomic_open
from paperkg.errors import GraphError, GraphFileError
from paperkg.graph.export_set import reading
from paperkg.graph.schema import schema_problem

log = logging.getLogger("paperkg")

FORMAT = "paperkg-graph"
FORMAT_VERSION = 1


#: Records per write while streaming node-link JSON.
_CHUNK = 2000
_dumps = functools.partial(json.dumps, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def to_node_link(graph: nx.DiGraph) -> dict:
    """The graph as a node-link dict (deterministic: nodes and edges in insertion order)."""
    data = nx.node_link_data(graph, edges="edges")
    data["graph"] = {**data.get("graph", {}), "format": FORMAT, "format_version": FORMAT_VERSION}
    return data


def _records(items: Iterator[dict]) -> Iterator[str]:
    """JSON array members, ``_CHUNK`` joined per string."""
    first = True
    while chunk := list(islice(items, _CHUNK)):
        yield ("" if first else ",") + ",".join(map(_dumps, chunk))
        first = False


def iter_node_link(graph: nx.DiGraph) -> Iterator[str]:
    """The text of ``json.dumps(to_node_link(graph), sort_keys=True, ...)`` in pieces, built one
    record at a time: the whole-graph copy of :func:`to_node_link` never exists (it was the
    export's memory peak at 95k papers).

    >>> g = nx.DiGraph(); g.add_edge("a", "b", w=1)
    >>> "".join(iter_node_link(g)) == _dumps(to_node_link(g))
    True
    """
    meta = {**graph.graph, "format": FORMAT, "format_version": FORMAT_VERSION}
    yield '{"directed":' + _dumps(graph.is_directed()) + ',"edges":['
    yield from _records({**d, "source": u, "target": v} for u, v, d in graph.edges(data=True))
    yield '],"graph":' + _dumps(meta) + ',"multigraph":' + _dumps(graph.is_multigraph()) + ',"nodes":['
    yield from _records({**attrs, "id": n} for n, attrs in graph.nodes(data=True))
    yield "]}"


def write_node_link(graph: nx.DiGraph, path: str | Path) -> Path:
    """Write node-link JSON atomically, streaming (:func:`iter_node_link`); ``paperkg.load``
    reads it back.

    A character UTF-8 cannot hold (a lone surrogate) is written as U+FFFD.

    >>> import tempfile, os
    >>> g = nx.DiGraph(); g.add_node("paper:x", kind="Paper", paper_id="x", label="x", title="a \\udc80 b")
    >>> p = write_node_link(g, os.path.join(tempfile.mkdtemp(), "g.json"))
    >>> read_node_link(p).nodes["paper:x"]["title"] == "a \\ufffd b"
    True
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w", errors=REPLACE) as handle:
        handle.writelines(iter_node_link(graph))
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
        # Through the folder's set: a build killed while it moved its files in is finished first.
        with reading(path) as committed, open(committed, encoding="utf-8") as handle:
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
    problem = schema_problem(data)
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


# --------------------------------------------------------------------------- GraphML

#: Every character XML 1.0 does not allow (C0 controls but tab/LF/CR, lone surrogates, U+FFFE,
#: U+FFFF): GraphML holding one is not well-formed, so each becomes U+FFFD (one for one).
XML_ILLEGAL = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TEXT_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"}
_ATTR_ESCAPES = {**_TEXT_ESCAPES, '"': "&quot;", "\n": "&#10;", "\t": "&#9;"}
_TEXT_SPECIAL = re.compile("[&<>\r]")
_ATTR_SPECIAL = re.compile('[&<>\r"\n\t]')


@dataclass
class XmlText:
    """Makes strings safe for XML 1.0 and counts the characters it had to replace.

    Carriage returns are written as ``&#13;`` (a parser would turn a raw CR LF into LF, moving
    every offset after it), and in attribute values tab and newline too (a parser turns them
    into spaces).

    >>> x = XmlText()
    >>> x.text("a\\x08b <c>\\r\\n") == "a\\ufffdb &lt;c&gt;&#13;\\n", x.replaced
    (True, 1)
    """

    replaced: int = 0

    def _clean(self, value: str) -> str:
        value, n = XML_ILLEGAL.subn("\ufffd", value)
        self.replaced += n
        return value

    def text(self, value: str) -> str:
        return _TEXT_SPECIAL.sub(lambda m: _TEXT_ESCAPES[m.group()], self._clean(value))

    def attr(self, value: str) -> str:
        return _ATTR_SPECIAL.sub(lambda m: _ATTR_ESCAPES[m.group()], self._clean(value))


def _scalar(value):
    # Sorted keys: a graph read back from graph.json must write the same bytes.
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return value


def _graphml_type(values: set[type]) -> str:
    if values == {bool}:
        return "boolean"
    if values == {int}:
        return "long"
    if values and values <= {int, float}:
        return "double"
    return "string"


def _graphml_value(value, kind: str) -> str:
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("long", "double"):
        return repr(float(value)) if kind == "double" else str(value)
    return str(_scalar(value))


def write_graphml(graph: nx.DiGraph, path: str | Path) -> int:
    """Write GraphML atomically, streaming (lists as JSON strings, ``None`` left out).

    The file is valid XML 1.0 for any input: characters XML does not allow are replaced by
    U+FFFD (see :class:`XmlText`). Returns how many were replaced; ``networkx.read_graphml``
    reads the file back with every other value unchanged.

    >>> import tempfile, os
    >>> g = nx.DiGraph(); g.add_node("paper:x", kind="Paper", year=2024, title="bell \\x07")
    >>> p = os.path.join(tempfile.mkdtemp(), "g.graphml")
    >>> write_graphml(g, p)
    1
    >>> nx.read_graphml(p).nodes["paper:x"] == {"kind": "Paper", "year": 2024, "title": "bell \\ufffd"}
    True
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    xml = XmlText()
    domains = (("graph", [graph.graph]), ("node", (a for _, a in graph.nodes(data=True))),
               ("edge", (d for *_, d in graph.edges(data=True))))
    keys: dict[tuple[str, str], tuple[str, str]] = {}  # (domain, name) -> (id, graphml type)
    for domain, records in domains:
        types: dict[str, set[type]] = {}
        for attrs in records:
            for name, value in attrs.items():
                if value is not None:
                    types.setdefault(name, set()).add(type(value))
        for name in sorted(types):
            keys[(domain, name)] = (f"d{len(keys)}", _graphml_type(types[name]))

    def data(domain: str, attrs: dict, indent: str) -> str:  # sorted: the same bytes after a load
        return "".join(
            f'{indent}<data key="{keys[(domain, name)][0]}">'
            f"{xml.text(_graphml_value(value, keys[(domain, name)][1]))}</data>\n"
            for name, value in sorted(attrs.items()) if value is not None)

    ids: dict = {}
    with atomic_open(path, "w", newline="\n") as out:
        out.write('<?xml version="1.0" encoding="utf-8"?>\n'
                  '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
                  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
                  'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
                  'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
        for (domain, name), (key_id, kind) in keys.items():
            out.write(f'  <key id="{key_id}" for="{domain}" attr.name="{xml.attr(name)}" attr.type="{kind}" />\n')
        out.write('  <graph edgedefault="directed">\n')
        out.write(data("graph", graph.graph, "    "))
        seen: set[str] = set()
        for node, attrs in graph.nodes(data=True):
            ids[node] = xml.attr(str(node))
            if ids[node] in seen:
                raise GraphError(f"node id {node!r} is another node's id once made valid XML")
            seen.add(ids[node])
            out.write(f'    <node id="{ids[node]}">\n{data("node", attrs, "      ")}    </node>\n')
        for source, target, attrs in graph.edges(data=True):
            out.write(f'    <edge source="{ids[source]}" target="{ids[target]}">\n'
                      f'{data("edge", attrs, "      ")}    </edge>\n')
        out.write("  </graph>\n</graphml>\n")
    if xml.replaced:
        log.warning("%s: replaced %d character(s) not allowed in XML 1.0 (control characters, lone "
                    "surrogates, U+FFFE/U+FFFF) with U+FFFD", path.name, xml.replaced)
    return xml.replaced
