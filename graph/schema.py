"""The check a saved graph passes before any command reads it (issue 21 M13).

A hand-edited ``graph.json`` with ``"year": "soon"`` or ``"count": null`` used to load and then
fail deep inside stats, export, html or a query with a TypeError. :func:`schema_problem` checks
every attribute of the schema in :mod:`paperkg.graph` up front, type included (lists item by
item), and says in one line which node or edge and which field is wrong.

A field the readers cannot do without must be present; the others may be absent (graphs made by
hand or by older versions), but when present they must have their type.
"""

from __future__ import annotations

from paperkg.types import ENTITY_TYPES, LINK_KINDS, ROLES

_STR, _INT, _NUM, _LIST, _NONE = (str,), (int,), (int, float), (list,), (type(None),)


def _value(types: tuple, choices: tuple = (), items=None, nullable: bool = False, required: bool = False):
    """A field rule: (types, allowed values or (), a rule for list items or None, required)."""
    return (types + (_NONE if nullable else ()), choices, items, required)


def _mention(item) -> bool:
    return (isinstance(item, list) and len(item) == 3 and _is(item[0], _INT) and _is(item[1], _INT)
            and isinstance(item[2], str))


def _link_evidence(item) -> bool:
    return isinstance(item, dict) and isinstance(item.get("key"), str)


_OPT_STR = _value(_STR, nullable=True)
_STRS = _value(_LIST, items=str)
#: Field rules per node and edge kind: the schema documented in paperkg.graph.
SCHEMA: dict[str, dict[str, tuple]] = {
    "Paper": {"paper_id": _value(_STR, required=True), "label": _value(_STR, required=True), "title": _OPT_STR,
              "abstract": _value(_STR), "venue": _OPT_STR, "year": _value(_INT, nullable=True), "url": _OPT_STR,
              "authors": _STRS, "keywords": _STRS, "aliases": _STRS, "source": _OPT_STR,
              "line": _value(_INT, nullable=True), "community": _value(_INT)},
    "Entity": {"key": _value(_STR, required=True), "type": _value(_STR, ENTITY_TYPES, required=True),
               "name": _value(_STR, required=True), "aliases": _STRS, "alias_keys": _STRS, "pwc_id": _OPT_STR,
               "codesota_id": _OPT_STR, "area": _OPT_STR, "record_url": _OPT_STR,
               "paper_count": _value(_INT, required=True)},
    "Result": {"paper_id": _value(_STR, required=True), "index": _value(_INT, required=True),
               "value": _value(_STR, required=True), "start": _value(_INT), "end": _value(_INT),
               "number": _value(_NUM, required=True), "upper": _value(_NUM, nullable=True),
               "unit": _value(_STR, required=True), "result_kind": _value(_STR, ("score", "gain"), required=True),
               "evidence": _value(_STR), "direction": _value(_STR, ("higher", "lower"), nullable=True)},
    "HAS": {"role": _value(_STR, ROLES, required=True), "count": _value(_INT, required=True),
            "evidence": _value(_STR, required=True), "evidence_offset": _value(_INT),
            "mentions": _value(_LIST, items=_mention), "confidence": _value(_NUM, nullable=True)},
    "RELATED_TO": {"weight": _value(_NUM, required=True), "shared": _value(_LIST, items=str, required=True),
                   "evidence": _value(_LIST, items=_link_evidence), "reason": _value(_STR),
                   "link_kind": _value(_STR, LINK_KINDS), "terms": _value(_LIST, items=str)},
    "REPORTS": {}, "ON_DATASET": {}, "ACHIEVED_BY": {}, "FOR_TASK": {},
    "MEASURED_BY": {"count": _value(_INT)},  # required between entities only (see ENDS)
    "EVALUATED_ON": {"count": _value(_INT, required=True)}, "ADDRESSES": {"count": _value(_INT, required=True)},
}
NODE_KINDS = ("Paper", "Entity", "Result")
#: The node kinds each edge kind joins (source kinds, target kinds).
ENDS = {"HAS": (("Paper",), ("Entity",)), "RELATED_TO": (("Paper",), ("Paper",)), "REPORTS": (("Paper",), ("Result",)),
        "ON_DATASET": (("Result",), ("Entity",)), "ACHIEVED_BY": (("Result",), ("Entity",)),
        "FOR_TASK": (("Result",), ("Entity",)), "MEASURED_BY": (("Result", "Entity"), ("Entity",)),
        "EVALUATED_ON": (("Entity",), ("Entity",)), "ADDRESSES": (("Entity",), ("Entity",))}
_TYPE_NAMES = {str: "text", int: "an integer", float: "a number", list: "a list", type(None): "null"}


def _is(value, types: tuple) -> bool:
    # bool is an int to Python, never to the schema ("year": true is not a year).
    return isinstance(value, types) and not (isinstance(value, bool) and bool not in types)


def _describe(value) -> str:
    if value is None:
        return "null"
    text = repr(value)
    return f"{type(value).__name__} {text[:40] + '...' if len(text) > 40 else text}"


def field_problem(attrs: dict, kind: str, required_extra: tuple = ()) -> str | None:
    """What is wrong with one node's or edge's attributes, e.g. ``field 'year' is str 'soon',
    not an integer or null``; None when they fit :data:`SCHEMA`.

    >>> field_problem({"role": "used", "count": None, "evidence": "x"}, "HAS")
    "field 'count' is null, not an integer"
    >>> field_problem({"weight": 0.5, "shared": ["a", 3]}, "RELATED_TO")
    "field 'shared' holds int 3, not an item of the schema"
    """
    for name, (types, choices, items, required) in SCHEMA[kind].items():
        if name not in attrs:
            if required or name in required_extra:
                return f"lacks field {name!r}"
            continue
        value = attrs[name]
        if not _is(value, types):
            return f"field {name!r} is {_describe(value)}, not {' or '.join(_TYPE_NAMES[t] for t in types)}"
        if choices and value is not None and value not in choices:
            return f"field {name!r} is {value!r}, not one of {', '.join(choices)}"
        if items is not None and value is not None:
            check = (lambda item: _is(item, (items,))) if isinstance(items, type) else items
            bad = next((item for item in value if not check(item)), _OK)
            if bad is not _OK:
                return f"field {name!r} holds {_describe(bad)}, not an item of the schema"
    return None


_OK = object()


def schema_problem(data: dict) -> str | None:
    """What makes a node-link dict unusable as a paperkg graph, in one line naming the node or
    edge and the field, or None (checked up front, so a broken file is one line, not a
    TypeError deep in a command)."""
    for part in ("nodes", "edges"):
        if not isinstance(data.get(part), list) or not all(isinstance(item, dict) for item in data[part]):
            return f"'{part}' is not a list of objects"
    kinds: dict[str, str] = {}
    for index, node in enumerate(data["nodes"]):
        kind = node.get("kind")
        if not isinstance(node.get("id"), str) or kind not in NODE_KINDS:
            return f"node {index} has no text 'id' or no kind {'/'.join(NODE_KINDS)}"
        problem = field_problem(node, kind)
        if problem:
            return f"node {node['id']!r} ({kind}) {problem}"
        kinds[node["id"]] = kind
    for index, edge in enumerate(data["edges"]):
        kind, source, target = edge.get("kind"), edge.get("source"), edge.get("target")
        if not isinstance(source, str) or not isinstance(target, str) or source not in kinds or target not in kinds:
            return f"edge {index} ({kind}) has an unknown source or target"
        where = f"edge {index} ({kind} {source!r} -> {target!r})"
        if kind not in ENDS:
            return f"{where} has no edge kind of the schema"
        sources, targets = ENDS[kind]
        if kinds[source] not in sources or kinds[target] not in targets:
            return f"{where} joins a {kinds[source]} to a {kinds[target]}, not {'/'.join(sources)} to {'/'.join(targets)}"
        problem = field_problem(edge, kind, ("count",) if kind == "MEASURED_BY" and kinds[source] == "Entity" else ())
        if problem:
            return f"{where} {problem}"
    return None
