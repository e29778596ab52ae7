"""Results in the graph: rows for a paper's or a method's results, leaderboards, counts.

A leaderboard is the scores (``result_kind`` "score") reported on one Dataset or Benchmark,
optionally for one Metric and one Task, grouped by metric and best first where the metric's
direction is known (:func:`metric_direction`, stored on each Result node as ``direction``);
gains ("3x faster", "+2.1 BLEU") are differences, not scores, and stay out of it.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterator

import networkx as nx

from paperkg.graph.analytics import entity_for_key
from paperkg.graph.build import PAPER_PREFIX, result_nodes, result_slots

def _name(graph: nx.DiGraph, node: str | None) -> str | None:
    return graph.nodes[node]["name"] if node else None


def result_row(graph: nx.DiGraph, node: str) -> dict:
    """One Result node as a row: its value, parse, kind, slot names and keys, paper, evidence."""
    attrs = graph.nodes[node]
    slots = result_slots(graph, node)
    paper = graph.nodes[PAPER_PREFIX + attrs["paper_id"]]
    return {
        "paper_id": attrs["paper_id"], "label": paper.get("label"), "index": attrs["index"],
        "value": attrs["value"], "number": attrs["number"], "upper": attrs.get("upper"), "unit": attrs["unit"],
        "kind": attrs["result_kind"], "direction": attrs.get("direction"),
        **{slot: _name(graph, n) for slot, n in slots.items()},
        **{f"{slot}_key": graph.nodes[n]["key"] if n else None for slot, n in slots.items()},
        "evidence": attrs.get("evidence"),
    }


def paper_results(graph: nx.DiGraph, paper_id: str) -> list[dict]:
    """The results a paper reports, in text order (no rows for an unknown paper)."""
    node = PAPER_PREFIX + paper_id
    if graph.nodes.get(node, {}).get("kind") != "Paper":
        return []
    return [result_row(graph, r) for r in result_nodes(graph, node)]


def _results_on(graph: nx.DiGraph, entity: str, kind: str) -> Iterator[str]:
    return (r for r, _, k in graph.in_edges(entity, data="kind") if k == kind and graph.nodes[r]["kind"] == "Result")


def _order(row: dict) -> tuple:
    sign = {"higher": -1, "lower": 1}.get(row["direction"] or "", 0)
    return (row["metric_key"] is None, row["metric_key"] or "", sign * row["number"], row["paper_id"], row["index"])


def leaderboard(graph: nx.DiGraph, dataset: str, metric: str | None = None, task: str | None = None,
                k: int = 50) -> list[dict]:
    """The scores reported on a Dataset or Benchmark, optionally for one metric and one task
    (each a normalized key or alias key, as the query runner passes them; ``kg.leaderboard``
    takes names): by metric key (results without a metric last), best first
    where the direction is known, then paper id and place in the abstract.

    No rows when the dataset, the metric or the task is unknown, or the entity is not a Dataset
    or Benchmark.
    """
    node = entity_for_key(graph, dataset)
    if node is None or graph.nodes[node]["type"] not in ("Dataset", "Benchmark"):
        return []
    wanted = {}
    for slot, value in (("metric", metric), ("task", task)):
        if value is not None:
            wanted[slot] = entity_for_key(graph, value)
            if wanted[slot] is None:
                return []
    rows = []
    for result in _results_on(graph, node, "ON_DATASET"):
        if graph.nodes[result]["result_kind"] != "score":
            continue
        slots = result_slots(graph, result)
        if all(slots[slot] == target for slot, target in wanted.items()):
            rows.append(result_row(graph, result))
    rows.sort(key=_order)
    return rows[:k]


def method_results(graph: nx.DiGraph, method: str, k: int = 50) -> list[dict]:
    """Every result whose method slot is the given entity (a normalized key or alias key; scores
    and gains), by paper id and
    place in the abstract; no rows for an unknown entity."""
    node = entity_for_key(graph, method)
    if node is None:
        return []
    rows = [result_row(graph, r) for r in _results_on(graph, node, "ACHIEVED_BY")]
    rows.sort(key=lambda r: (r["paper_id"], r["index"]))
    return rows[:k]


def result_counts(graph: nx.DiGraph, top: int = 10) -> dict:
    """How many results, by kind and unit, and the datasets and metrics with most results.

    >>> result_counts(nx.DiGraph())["results"]
    0
    """
    kinds: Counter = Counter()
    units: Counter = Counter()
    slots: dict[str, Counter] = {"dataset": Counter(), "metric": Counter()}
    papers = set()
    for node, attrs in graph.nodes(data=True):
        if attrs.get("kind") != "Result":
            continue
        kinds[attrs["result_kind"]] += 1
        units[attrs["unit"]] += 1
        papers.add(attrs["paper_id"])
        for slot, target in result_slots(graph, node).items():
            if slot in slots and target:
                slots[slot][target] += 1

    def ranked(counter: Counter) -> list[dict]:
        top_nodes = sorted(counter.items(), key=lambda item: (-item[1], graph.nodes[item[0]]["key"]))[:top]
        return [{"key": graph.nodes[n]["key"], "name": graph.nodes[n]["name"], "results": c} for n, c in top_nodes]

    return {"results": sum(kinds.values()), "papers_with_results": len(papers), "by_kind": dict(sorted(kinds.items())),
            "by_unit": dict(sorted(units.items())), "top_datasets": ranked(slots["dataset"]),
            "top_metrics": ranked(slots["metric"])}
