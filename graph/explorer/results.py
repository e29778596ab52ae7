"""The results of the page: a row per Result node, and the leaderboard of each dataset.

``results`` rows (papers' results, by paper then place in the abstract)::

    [paper, kind, value, dataset, metric, method, task, sentence, marks?]

``paper`` and the four slots are universe indices (-1: empty slot), ``kind`` indexes
``meta.resultKinds``, ``value`` is the text as written, ``sentence`` indexes the page's
``sentences`` (shared with the paper-entity evidence; -1: none) and ``marks`` the value's
UTF-16 range in it (as the ``has`` rows' marks).

``boards`` (one per Dataset or Benchmark with scores, by universe index)::

    [dataset, [[metric, direction, [result row...]], ...]]

the rows of :func:`paperkg.graph.results.leaderboard` for that dataset, in its order (by
metric, results without a metric last, best first where the direction is known), grouped by
metric (-1: none); ``direction`` 1 higher is better, -1 lower is, 0 unknown.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from paperkg.graph.analytics import entity_for_key
from paperkg.graph.build import PAPER_PREFIX, result_slots
from paperkg.graph.explorer.text import JsonChunks, as_text, int_or_none, mark_ranges
from paperkg.graph.results import leaderboard
from paperkg.types import RESULT_KINDS, RESULT_SLOTS

#: The slots in a row's order (after paper, kind, value).
ROW_SLOTS: tuple[str, ...] = ("dataset", "metric", "method", "task")
DIRECTIONS = {"higher": 1, "lower": -1}
BOARD_TYPES = ("Dataset", "Benchmark")
assert set(ROW_SLOTS) == set(RESULT_SLOTS)


def value_marks(abstract: Any, evidence: str, start: Any, end: Any, value: str) -> list[int]:
    """The value's UTF-16 range inside its evidence sentence ([] when it is not in it).

    The sentence's place in the abstract is its first occurrence that can hold ``start``;
    :func:`~paperkg.graph.explorer.text.mark_ranges` checks the text there and else looks
    the value up in the sentence.

    >>> value_marks("A b. We reach 76.2% top-1.", "We reach 76.2% top-1.", 14, 19, "76.2%")
    [9, 14]
    >>> value_marks(None, "No such value.", 3, 5, "9x")
    []
    """
    begin, finish = int_or_none(start), int_or_none(end)
    if begin is None or finish is None:  # no offsets: mark_ranges looks the value up
        begin = finish = -1
    abstract = abstract if isinstance(abstract, str) else ""
    offset = abstract.find(evidence, max(0, begin - len(evidence)))
    if offset < 0:
        offset = abstract.find(evidence)
    return mark_ranges(evidence, max(offset, 0), [[begin, finish, value]])


def add_results(g: nx.Graph, index: dict[str, int], sentence_of: Any, data: dict[str, JsonChunks]) -> int:
    """Fill ``data["results"]`` and ``data["boards"]`` from the Result nodes of ``g``; returns
    the number of result rows. ``sentence_of(text)`` gives a sentence's index in the page's
    ``sentences`` (adding it when new). A result whose paper is not in ``index`` is left out."""
    kinds = {k: i for i, k in enumerate(RESULT_KINDS)}
    found: list[tuple[int, int, str, dict]] = []
    for node, attrs in g.nodes(data=True):
        if attrs.get("kind") != "Result" or attrs.get("result_kind") not in kinds:
            continue
        paper = index.get(PAPER_PREFIX + str(attrs.get("paper_id")))
        if paper is not None:
            found.append((paper, int_or_none(attrs.get("index")) or 0, node, attrs))
    found.sort(key=lambda t: (t[0], t[1], t[2]))
    row_of: dict[tuple[str, int], int] = {}
    metric_of: list[int] = []
    boarded: set[int] = set()
    for k, (paper, place, node, attrs) in enumerate(found):
        slots = result_slots(g, node)
        value = as_text(attrs.get("value")) or ""
        evidence = as_text(attrs.get("evidence")) or ""
        row: list[Any] = [paper, kinds[attrs["result_kind"]], value,
                          *(index.get(slots[s], -1) if slots[s] else -1 for s in ROW_SLOTS),
                          sentence_of(evidence) if evidence else -1]
        marks = value_marks(g.nodes[PAPER_PREFIX + str(attrs.get("paper_id"))].get("abstract"), evidence,
                            attrs.get("start"), attrs.get("end"), value) if evidence and value else []
        if marks:
            row.append(marks)
        data["results"].add(row)
        row_of[str(attrs.get("paper_id")), place] = k
        metric_of.append(row[4])
        if attrs["result_kind"] == "score" and row[3] >= 0:
            boarded.add(row[3])
    ids = {u: n for n, u in index.items() if u in boarded}
    for dataset in sorted(boarded):
        board = _board(g, ids[dataset], row_of, metric_of)
        if board:
            data["boards"].add([dataset, board])
    return len(found)


def _board(g: nx.Graph, node: str, row_of: dict[tuple[str, int], int], metric_of: list[int]) -> list[list[Any]]:
    """A dataset's leaderboard as metric groups of result rows (see the module docstring)."""
    attrs = g.nodes[node]
    key = as_text(attrs.get("key"))
    # leaderboard() finds its dataset by key: only when that key names this very node
    if attrs.get("type") not in BOARD_TYPES or not key or entity_for_key(g, key) != node:
        return []
    groups: list[list[Any]] = []
    for row in leaderboard(g, key, k=g.number_of_nodes()):
        k = row_of.get((row["paper_id"], row["index"]))
        if k is None:
            continue
        metric = metric_of[k]
        if not groups or groups[-1][0] != metric:
            groups.append([metric, DIRECTIONS.get(row["direction"] or "", 0), []])
        groups[-1][2].append(k)
    return groups
