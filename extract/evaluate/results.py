"""Scoring results (:mod:`paperkg.extract.results`) against paper-level gold with ``results``.

* **value** P/R/F1: a predicted value matches a gold value of the same paper whose offsets it
  overlaps; precision is the share of predicted values that match one, recall the share of gold
  values some prediction matches;
* **kind accuracy** and **slot accuracy** (metric, dataset, method, task) over matched values
  (each prediction against the gold value it overlaps most): a slot is right when its entity's
  mentions overlap the gold entity's mentions, or both are null;
* **whole-tuple** P/R/F1: value, kind and all four slots right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paperkg.extract.evaluate.spans import Ratio, f1_of
from paperkg.extract.read.gold import GoldPaper, GoldResult

from paperkg.types import RESULT_SLOTS, Extraction, Result


@dataclass(frozen=True)
class ResultsReport:
    """Value, kind, slot and whole-tuple scores over the papers whose gold has ``results``."""

    papers: int
    value_precision: Ratio
    value_recall: Ratio
    kind_accuracy: Ratio
    slot_accuracy: dict[str, Ratio]
    tuple_precision: Ratio
    tuple_recall: Ratio

    @property
    def value_f1(self) -> float:
        return f1_of(self.value_precision.value, self.value_recall.value)

    @property
    def tuple_f1(self) -> float:
        return f1_of(self.tuple_precision.value, self.tuple_recall.value)

    def to_dict(self) -> dict[str, Any]:
        return {"papers": self.papers, "value_precision": self.value_precision.to_dict(),
                "value_recall": self.value_recall.to_dict(), "value_f1": round(self.value_f1, 4),
                "kind_accuracy": self.kind_accuracy.to_dict(),
                "slot_accuracy": {slot: s.to_dict() for slot, s in self.slot_accuracy.items()},
                "tuple_precision": self.tuple_precision.to_dict(), "tuple_recall": self.tuple_recall.to_dict(),
                "tuple_f1": round(self.tuple_f1, 4)}


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return min(a[1], b[1]) - max(a[0], b[0])


def _slot_right(result: Result, gold: GoldResult, slot: str, pred_mentions: dict, gold_mentions: dict) -> bool:
    key, name = getattr(result, slot), getattr(gold, slot)
    if key is None or name is None:
        return key is None and name is None
    return any(_overlap(p, g) > 0 for p in pred_mentions.get(key, ()) for g in gold_mentions.get(name, ()))


def score_results(gold: Sequence[GoldPaper], predictions: Sequence[Extraction]) -> ResultsReport:
    """Score the results of one extraction per gold paper (same order); papers whose gold has
    no ``results`` field are left out."""
    counts = dict.fromkeys(("pred", "pred_hit", "gold", "gold_hit", "kind", "tuple_pred", "tuple_gold"), 0)
    slots = dict.fromkeys(RESULT_SLOTS, 0)
    papers = 0
    for paper, extraction in zip(gold, predictions):
        if paper.results is None:
            continue
        papers += 1
        pred_mentions = {e.key: [(m.start, m.end) for m in e.mentions] for e in extraction.entities}
        gold_mentions = {e.name: list(e.mentions) for e in paper.entities}
        counts["pred"] += len(extraction.results)
        counts["gold"] += len(paper.results)
        gold_tuple_hit = [False] * len(paper.results)
        gold_hit = [False] * len(paper.results)
        for result in extraction.results:
            overlaps = [(_overlap((result.start, result.end), (g.start, g.end)), i) for i, g in enumerate(paper.results)]
            overlaps = [(o, i) for o, i in overlaps if o > 0]
            if not overlaps:
                continue
            for _, i in overlaps:
                gold_hit[i] = True
            counts["pred_hit"] += 1  # each matched prediction: the base of kind and slot accuracy
            best_index = max(overlaps, key=lambda t: (t[0], -t[1]))[1]
            best = paper.results[best_index]
            kind = result.kind == best.kind
            counts["kind"] += kind
            right = {slot: _slot_right(result, best, slot, pred_mentions, gold_mentions) for slot in RESULT_SLOTS}
            for slot, ok in right.items():
                slots[slot] += ok
            if kind and all(right.values()):
                counts["tuple_pred"] += 1
                gold_tuple_hit[best_index] = True
        counts["gold_hit"] += sum(gold_hit)
        counts["tuple_gold"] += sum(gold_tuple_hit)
    return ResultsReport(
        papers=papers,
        value_precision=Ratio(counts["pred_hit"], counts["pred"]),
        value_recall=Ratio(counts["gold_hit"], counts["gold"]),
        kind_accuracy=Ratio(counts["kind"], counts["pred_hit"]),
        slot_accuracy={slot: Ratio(n, counts["pred_hit"]) for slot, n in slots.items()},
        tuple_precision=Ratio(counts["tuple_pred"], counts["pred"]),
        tuple_recall=Ratio(counts["tuple_gold"], counts["gold"]),
    )


def format_results_report(report: ResultsReport) -> list[str]:
    """The lines ``paperkg evaluate`` prints for results."""
    r = report
    lines = [f"Results ({r.value_recall.total} gold results in {r.papers} papers, {r.value_precision.total} predicted)"]
    rows = [("value precision", r.value_precision), ("value recall", r.value_recall)]
    rows += [("kind accuracy", r.kind_accuracy)]
    rows += [(f"{slot} accuracy", share) for slot, share in r.slot_accuracy.items()]
    rows += [("tuple precision", r.tuple_precision), ("tuple recall", r.tuple_recall)]
    for name, share in rows:
        lines.append(f"  {name:<20} {share.value:6.3f}  ({share.hits}/{share.total})")
        if name == "value recall":
            lines.append(f"  {'value F1':<20} {r.value_f1:6.3f}")
    lines.append(f"  {'tuple F1':<20} {r.tuple_f1:6.3f}")
    return lines
