"""Span-level scoring of entity predictions against the gold JSONL files.

Pure functions only: nothing here knows how predictions are made. The gold format is the one
described in ``../shared/data/gold/README.md``::

    {"id": "...", "text": "...", "entities": [{"start": 0, "end": 5, "label": "METHOD", "text": "..."}]}

Scoring rules (from that README):

* gold labels are ``METHOD``, ``TASK``, ``DATASET``, ``METRIC`` and ``OTHER``; ``OTHER`` is never
  scored;
* predictions carry paperkg types (``Method``, ``Dataset``, ``Benchmark``, ``Task``, ``Metric``);
  ``Benchmark`` counts as ``DATASET``. Gold-style upper-case labels are accepted as well, and a
  predicted ``OTHER`` is ignored;
* a file scores only the labels it annotates: a label no gold document uses (CS-NER has no
  ``DATASET``/``METRIC``) is dropped from the predictions too, so it yields no false positives.

Two matchings are reported: *exact* (same start, end and label) and *overlap* (a prediction
matches a same-label gold span it overlaps by at least one character; one-to-one, maximum
matching).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperkg.errors import EvaluationError
from paperkg.extract.read.gold import SCORED_LABELS, GoldDoc, annotated_labels, is_int, read_gold

#: paperkg entity type (or gold label) -> gold label; ``None`` means "ignore this prediction".
TYPE_TO_LABEL: dict[str, str | None] = {
    "method": "METHOD",
    "task": "TASK",
    "dataset": "DATASET",
    "benchmark": "DATASET",
    "material": "DATASET",
    "metric": "METRIC",
    "other": None,
}

Span = tuple[int, int, str]


# --------------------------------------------------------------------------------------------
# Scores
# --------------------------------------------------------------------------------------------


def _ratio(num: int, den: int) -> float:
    return num / den if den else 0.0


@dataclass(frozen=True)
class Ratio:
    """``hits`` out of ``total``; ``value`` is 0 when ``total`` is 0."""

    hits: int
    total: int

    @property
    def value(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"hits": self.hits, "total": self.total, "value": round(self.value, 4)}


def f1_of(p: float, r: float) -> float:
    """The harmonic mean of a precision and a recall (0 when both are 0)."""
    return 2 * p * r / (p + r) if p + r else 0.0


@dataclass(frozen=True)
class TypeScore:
    """Counts and P/R/F1 for one label (or ``"micro"``)."""

    label: str
    tp: int
    fp: int
    fn: int

    @property
    def n_pred(self) -> int:
        return self.tp + self.fp

    @property
    def n_gold(self) -> int:
        return self.tp + self.fn

    @property
    def precision(self) -> float:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return _ratio(self.tp, self.tp + self.fn)

    @property
    def f1(self) -> float:
        return _ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "gold": self.n_gold,
            "predicted": self.n_pred,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass(frozen=True)
class MatchScores:
    """Per-label scores and their micro average under one matching criterion."""

    per_type: tuple[TypeScore, ...]
    micro: TypeScore

    def by_label(self, label: str) -> TypeScore:
        for score_ in self.per_type:
            if score_.label == label:
                return score_
        raise KeyError(label)

    @property
    def macro_f1(self) -> float:
        return _ratio(sum(s.f1 for s in self.per_type), len(self.per_type)) if self.per_type else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_type": {s.label: s.to_dict() for s in self.per_type},
            "micro": self.micro.to_dict(),
            "macro_f1": round(self.macro_f1, 4),
        }


@dataclass(frozen=True)
class ErrorCount:
    """A span text that was wrongly predicted (false positive) or missed (false negative)."""

    text: str
    label: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "label": self.label, "count": self.count}


@dataclass(frozen=True)
class Confusion:
    """A gold span found with exactly the right boundaries but the wrong label."""

    gold_label: str
    predicted_label: str
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {"gold": self.gold_label, "predicted": self.predicted_label, "count": self.count}


@dataclass(frozen=True)
class EvaluationReport:
    """The outcome of :func:`score`. ``exact``/``overlap`` hold P/R/F1 per label and micro."""

    n_docs: int
    labels: tuple[str, ...]
    exact: MatchScores
    overlap: MatchScores
    false_positives: tuple[ErrorCount, ...] = ()
    false_negatives: tuple[ErrorCount, ...] = ()
    confusions: tuple[Confusion, ...] = ()
    ignored_predictions: int = 0
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "n_docs": self.n_docs,
            "labels": list(self.labels),
            "exact": self.exact.to_dict(),
            "overlap": self.overlap.to_dict(),
            "false_positives": [e.to_dict() for e in self.false_positives],
            "false_negatives": [e.to_dict() for e in self.false_negatives],
            "confusions": [c.to_dict() for c in self.confusions],
            "ignored_predictions": self.ignored_predictions,
        }


def _to_label(kind: Any, doc_index: int) -> str | None:
    if not isinstance(kind, str) or kind.lower() not in TYPE_TO_LABEL:
        raise EvaluationError(
            f"prediction for document #{doc_index}: unknown entity type {kind!r} "
            "(expected Method, Dataset, Benchmark, Task or Metric)"
        )
    return TYPE_TO_LABEL[kind.lower()]


def _max_overlap_matching(golds: Sequence[Span], preds: Sequence[Span]) -> int:
    """Size of a maximum one-to-one matching of same-label overlapping spans (Kuhn's algorithm)."""
    adjacency = [
        [g for g, (gs, ge, gl) in enumerate(golds) if gl == pl and ps < ge and gs < pe]
        for (ps, pe, pl) in preds
    ]
    owner: dict[int, int] = {}

    def augment(p: int, visited: set[int]) -> bool:
        for g in adjacency[p]:
            if g in visited:
                continue
            visited.add(g)
            if g not in owner or augment(owner[g], visited):
                owner[g] = p
                return True
        return False

    return sum(1 for p in range(len(preds)) if adjacency[p] and augment(p, set()))


def score(
    gold_docs: Sequence[GoldDoc],
    predictions: Sequence[Iterable[tuple[int, int, str]]],
    *,
    labels: Iterable[str] | None = None,
    top: int = 20,
    source: str = "",
) -> EvaluationReport:
    """Score ``predictions`` (one list of ``(start, end, type)`` per gold doc, same order).

    ``labels`` restricts scoring to those gold labels (upper-case or paperkg type names);
    by default it is every scored label the gold uses (see :func:`annotated_labels`).
    Predictions of other labels are ignored (counted in ``ignored_predictions``), as are
    predicted ``OTHER`` spans. Duplicate spans count once. ``top`` bounds the lists of most
    frequent false positives/negatives (exact matching).
    """
    if len(predictions) != len(gold_docs):
        raise EvaluationError(
            f"got predictions for {len(predictions)} documents but the gold has {len(gold_docs)}"
        )
    if labels is None:
        scored = annotated_labels(gold_docs)
    else:
        wanted = set()
        for lab in labels:
            mapped = TYPE_TO_LABEL.get(str(lab).lower())
            if mapped is None:
                raise EvaluationError(f"cannot score label {lab!r}")
            wanted.add(mapped)
        scored = tuple(label for label in SCORED_LABELS if label in wanted)
    scored_set = set(scored)

    exact_tp: Counter[str] = Counter()
    overlap_tp: Counter[str] = Counter()
    n_gold: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    fps: Counter[tuple[str, str]] = Counter()
    fns: Counter[tuple[str, str]] = Counter()
    confusions: Counter[tuple[str, str]] = Counter()
    ignored = 0

    for index, (doc, preds) in enumerate(zip(gold_docs, predictions)):
        gold_spans = {
            (e.start, e.end, e.label) for e in doc.entities if e.label in scored_set
        }
        pred_spans: set[Span] = set()
        for item in preds:
            try:
                start, end, kind = item
            except (TypeError, ValueError) as exc:
                raise EvaluationError(
                    f"prediction for document #{index} ({doc.id}): expected (start, end, type), "
                    f"got {item!r}"
                ) from exc
            if not is_int(start) or not is_int(end) or not 0 <= start < end <= len(doc.text):
                raise EvaluationError(
                    f"prediction for document #{index} ({doc.id}): offsets ({start!r}, {end!r}) "
                    f"are not a non-empty range in a text of length {len(doc.text)}"
                )
            label = _to_label(kind, index)
            if label is None or label not in scored_set:
                ignored += 1
                continue
            pred_spans.add((start, end, label))

        for _, _, label in gold_spans:
            n_gold[label] += 1
        for _, _, label in pred_spans:
            n_pred[label] += 1
        hits = gold_spans & pred_spans
        for _, _, label in hits:
            exact_tp[label] += 1
        gold_bounds = {(s, e): lab for s, e, lab in gold_spans - hits}
        for s, e, lab in sorted(pred_spans - hits):
            fps[(doc.text[s:e], lab)] += 1
            if (s, e) in gold_bounds:
                confusions[(gold_bounds[(s, e)], lab)] += 1
        for s, e, lab in sorted(gold_spans - hits):
            fns[(doc.text[s:e], lab)] += 1
        for label in scored:
            g = sorted(sp for sp in gold_spans if sp[2] == label)
            p = sorted(sp for sp in pred_spans if sp[2] == label)
            if g and p:
                overlap_tp[label] += _max_overlap_matching(g, p)

    def build(tp: Counter[str]) -> MatchScores:
        per = tuple(
            TypeScore(label, tp[label], n_pred[label] - tp[label], n_gold[label] - tp[label])
            for label in scored
        )
        micro = TypeScore(
            "micro", sum(s.tp for s in per), sum(s.fp for s in per), sum(s.fn for s in per)
        )
        return MatchScores(per_type=per, micro=micro)

    def most_common(counter: Counter[tuple[str, str]]) -> tuple[ErrorCount, ...]:
        ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0][1], kv[0][0]))
        return tuple(ErrorCount(text=t, label=lab, count=c) for (t, lab), c in ranked[:top])

    return EvaluationReport(
        n_docs=len(gold_docs),
        labels=scored,
        exact=build(exact_tp),
        overlap=build(overlap_tp),
        false_positives=most_common(fps),
        false_negatives=most_common(fns),
        confusions=tuple(
            Confusion(g, p, c)
            for (g, p), c in sorted(confusions.items(), key=lambda kv: (-kv[1], kv[0]))
        ),
        ignored_predictions=ignored,
        source=source,
    )


def evaluate_spans(
    gold_path: Path | str,
    predict: Callable[[list[str]], Sequence[Iterable[tuple[int, int, str]]]],
    *,
    labels: Iterable[str] | None = None,
    top: int = 20,
) -> EvaluationReport:
    """Read ``gold_path``, call ``predict`` once on all its texts and :func:`score` the result."""
    gold = read_gold(gold_path)
    predictions = list(predict([doc.text for doc in gold]))
    return score(gold, predictions, labels=labels, top=top, source=str(gold_path))


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------


def format_report(report: EvaluationReport, *, max_errors: int = 10) -> str:
    """A plain-text table of P/R/F1 per label (exact and overlap) plus the frequent errors."""
    lines: list[str] = []
    title = f"Evaluation on {report.source}" if report.source else "Evaluation"
    lines.append(f"{title} ({report.n_docs} documents; labels: {', '.join(report.labels) or '-'})")
    header = (
        f"{'label':<8} {'gold':>5} {'pred':>5} | {'P':>6} {'R':>6} {'F1':>6} (exact)"
        f" | {'P':>6} {'R':>6} {'F1':>6} (overlap)"
    )
    lines.append(header)
    lines.append("-" * len(header))
    rows = list(zip(report.exact.per_type, report.overlap.per_type))
    rows.append((report.exact.micro, report.overlap.micro))
    for i, (ex, ov) in enumerate(rows):
        if i == len(rows) - 1:
            lines.append("-" * len(header))
        lines.append(
            f"{ex.label:<8} {ex.n_gold:>5} {ex.n_pred:>5} | "
            f"{ex.precision:>6.3f} {ex.recall:>6.3f} {ex.f1:>6.3f}         | "
            f"{ov.precision:>6.3f} {ov.recall:>6.3f} {ov.f1:>6.3f}"
        )
    if report.ignored_predictions:
        lines.append(f"({report.ignored_predictions} predictions of unscored labels ignored)")
    if report.confusions:
        lines.append("")
        lines.append("Right span, wrong label (gold -> predicted): " + ", ".join(
            f"{c.gold_label}->{c.predicted_label} x{c.count}" for c in report.confusions
        ))
    lines += error_lines("Top false positives (exact)", report.false_positives, max_errors)
    lines += error_lines("Top false negatives (exact)", report.false_negatives, max_errors)
    return "\n".join(lines)


def error_lines(title: str, errors: Sequence[ErrorCount], max_errors: int) -> list[str]:
    """A report's list of errors: a blank line, ``title:``, then the first ``max_errors``, one a
    line (count, label, text); nothing when there are none. Both report formats print with it.

    >>> error_lines("Top false positives", [ErrorCount("FooNet", "Benchmark", 3)], 10)
    ['', 'Top false positives:', '     3  Benchmark FooNet']
    >>> error_lines("Misses", [], 10)
    []
    """
    if not errors:
        return []
    return ["", f"{title}:", *(f"  {err.count:>4}  {err.label:<9} {err.text}" for err in errors[:max_errors])]


__all__ = [
    "TYPE_TO_LABEL",
    "Confusion",
    "ErrorCount",
    "EvaluationReport",
    "MatchScores",
    "TypeScore",
    "evaluate_spans",
    "error_lines",
    "format_report",
    "score",
]
