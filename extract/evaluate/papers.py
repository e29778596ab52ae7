"""Paper-level scoring against gold in paperkg's own convention (``paperkg_dev.jsonl``).

The gold format and the definitions are those of ``../shared/data/gold/README.md``::

    {"id": "...", "title": "...", "abstract": "...", "entities": [
      {"name": "...", "type": "Method", "alt_type": "Task", "aliases": [...], "role": "proposed",
       "mentions": [{"start": 0, "end": 5, "text": "..."}], "core": true}]}

Paper level (the measure that matters for the graph):

* a predicted entity *matches* a gold entity of the same paper when its canonical name or one
  of its mention texts equals the gold name, an alias or a mention text after
  :func:`~paperkg.extract.nlp.normalize.normalize_key` (case, hyphens, plurals), or when both carry
  the same acronym;
* **core recall**: share of ``core`` gold entities matched by some prediction;
  **precision**: share of predicted entities that match some gold entity (core or not);
* **proposed** precision/recall/F1: the same restricted to ``role == "proposed"`` on both sides
  (recall over every proposed gold entity);
* **type accuracy**: share of matched predictions whose type is the gold ``type`` or ``alt_type``;
* **link precision**: two papers are linked in gold when they share a canonical gold entity;
  the share of predicted pairs (papers sharing a predicted entity key) that gold links too.

Mention level: exact span and type (a gold mention's ``alt_type`` is accepted), P/R/F1 per type.
Results, when the gold has them: :mod:`paperkg.extract.evaluate.results`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from paperkg.errors import EvaluationError
from paperkg.extract.evaluate.results import ResultsReport, format_results_report, score_results
from paperkg.extract.evaluate.spans import ErrorCount, Ratio, TypeScore, error_lines, f1_of
from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.read.gold import GoldPaper, GoldPaperEntity, read_paper_gold
from paperkg.types import ENTITY_TYPES, Extraction, Paper

_ACRONYM = re.compile(r"^[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9\-]*$")
_PAREN = re.compile(r"\(([^()]{2,15})\)")


def _acronyms(forms: Sequence[str]) -> set[str]:
    found = set()
    for form in forms:
        for inner in _PAREN.findall(form):
            if _ACRONYM.match(inner.strip()):
                found.add(normalize_key(inner))
        if " " not in form.strip() and _ACRONYM.match(form.strip()):
            found.add(normalize_key(form))
    return found


def _forms(names: Sequence[str]) -> tuple[set[str], set[str]]:
    return {normalize_key(n) for n in names} - {""}, _acronyms(names)


def _gold_forms(paper: GoldPaper, entity: GoldPaperEntity) -> tuple[set[str], set[str]]:
    texts = [entity.name, *entity.aliases] + [paper.paper.abstract[s:e] for s, e in entity.mentions]
    return _forms(texts)


def gold_forms(paper: GoldPaper) -> list[tuple[set[str], set[str]]]:
    """The written forms and acronyms of each gold entity of ``paper``, for :func:`gold_hits`."""
    return [_gold_forms(paper, g) for g in paper.entities]


def gold_hits(forms: Sequence[tuple[set[str], set[str]]], entity) -> list[int]:
    """The indices of the gold entities a predicted paper entity matches (the module docstring's rule)."""
    pforms, pacr = _forms([entity.name, *(m.text for m in entity.mentions if not m.nested)])
    return [index for index, (names, acr) in enumerate(forms) if pforms & names or pacr & acr]


@dataclass(frozen=True)
class PaperEvaluationReport:
    """The outcome of :func:`score_papers`: paper-level ratios, mention-level scores, errors."""

    n_papers: int
    core_recall: Ratio
    recall_all: Ratio
    precision: Ratio
    proposed_precision: Ratio
    proposed_recall: Ratio
    type_accuracy: Ratio
    link_precision: Ratio
    link_recall: Ratio
    mention_scores: tuple[TypeScore, ...]
    mention_micro: TypeScore
    span_only: TypeScore
    false_positives: tuple[tuple[str, tuple[ErrorCount, ...]], ...] = ()
    misses: tuple[tuple[str, tuple[ErrorCount, ...]], ...] = ()
    source: str = ""
    #: Scores of the results (:mod:`~paperkg.extract.evaluate.results`); None when the gold has none.
    results: ResultsReport | None = None

    @property
    def proposed_f1(self) -> float:
        return f1_of(self.proposed_precision.value, self.proposed_recall.value)

    def to_dict(self) -> dict[str, Any]:
        def groups(items):
            return {name: [e.to_dict() for e in errs] for name, errs in items}

        return {
            "source": self.source,
            "n_papers": self.n_papers,
            "paper_level": {
                "core_recall": self.core_recall.to_dict(),
                "recall_all": self.recall_all.to_dict(),
                "precision": self.precision.to_dict(),
                "proposed_precision": self.proposed_precision.to_dict(),
                "proposed_recall": self.proposed_recall.to_dict(),
                "proposed_f1": round(self.proposed_f1, 4),
                "type_accuracy": self.type_accuracy.to_dict(),
                "link_precision": self.link_precision.to_dict(),
                "link_recall": self.link_recall.to_dict(),
            },
            "mention_level": {
                "per_type": {s.label: s.to_dict() for s in self.mention_scores},
                "micro": self.mention_micro.to_dict(),
                "span_only": self.span_only.to_dict(),
            },
            "false_positives": groups(self.false_positives),
            "misses": groups(self.misses),
            "results": self.results.to_dict() if self.results else None,
        }


def _top(counter: Counter, top: int) -> tuple[ErrorCount, ...]:
    ranked = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return tuple(ErrorCount(text=t, label=lab, count=c) for (t, lab), c in ranked[:top])


def score_papers(
    gold: Sequence[GoldPaper], predictions: Sequence[Extraction], *, top: int = 15, source: str = ""
) -> PaperEvaluationReport:
    """Score one :class:`~paperkg.types.Extraction` per gold paper (same order).

    False positives are grouped as *boundary* (a mention overlaps a gold mention: cut or
    widened span) or *spurious* (no gold mention there); misses as *partly found* (a predicted
    mention overlaps one of its mentions) or *not found*.
    """
    if len(predictions) != len(gold):
        raise EvaluationError(f"got predictions for {len(predictions)} papers but the gold has {len(gold)}")
    core = Ratio(0, 0)
    all_ = Ratio(0, 0)
    prec = Ratio(0, 0)
    p_prec = Ratio(0, 0)
    p_rec = Ratio(0, 0)
    types = Ratio(0, 0)
    n_gold: Counter[str] = Counter()
    n_pred: Counter[str] = Counter()
    tp: Counter[str] = Counter()
    span_tp = span_gold = span_pred = 0
    fp_groups: dict[str, Counter] = defaultdict(Counter)
    miss_groups: dict[str, Counter] = defaultdict(Counter)
    gold_keys: list[set[str]] = []
    pred_keys: list[set[str]] = []

    def add(r: Ratio, hit: bool) -> Ratio:
        return Ratio(r.hits + int(hit), r.total + 1)

    for gp, extraction in zip(gold, predictions):
        gforms = gold_forms(gp)
        gold_spans = [(s, e) for g in gp.entities for s, e in g.mentions]
        matched_gold: dict[int, list[int]] = defaultdict(list)  # gold index -> predicted indices
        preds = list(extraction.entities)
        pred_spans: list[tuple[int, int]] = []
        for p_index, entity in enumerate(preds):
            mentions = [m for m in entity.mentions if not m.nested]
            hits = gold_hits(gforms, entity)
            for g_index in hits:
                matched_gold[g_index].append(p_index)
            prec = add(prec, bool(hits))
            if entity.role == "proposed":
                p_prec = add(p_prec, any(gp.entities[g].role == "proposed" for g in hits))
            if hits:
                types = add(types, any(entity.type in (gp.entities[g].type, gp.entities[g].alt_type) for g in hits))
            else:
                spans = [(m.start, m.end) for m in mentions]
                boundary = any(s < ge and gs < e for s, e in spans for gs, ge in gold_spans)
                fp_groups["boundary" if boundary else "spurious"][(entity.name, entity.type)] += 1
            pred_spans.extend((m.start, m.end) for m in mentions)
        for g_index, g in enumerate(gp.entities):
            found = bool(matched_gold.get(g_index))
            all_ = add(all_, found)
            if g.core:
                core = add(core, found)
                if not found:
                    partly = any(s < ge and gs < e for s, e in pred_spans for gs, ge in g.mentions)
                    miss_groups["partly found" if partly else "not found"][(g.name, g.type)] += 1
            if g.role == "proposed":
                p_rec = add(p_rec, any(preds[p].role == "proposed" for p in matched_gold.get(g_index, [])))

        gold_typed = {(s, e): g for g in gp.entities for s, e in g.mentions}
        pred_typed = set()
        for entity in preds:
            for m in entity.mentions:
                if m.nested:
                    continue
                g = gold_typed.get((m.start, m.end))
                kind = g.type if g is not None and m.type == g.alt_type else m.type
                pred_typed.add((m.start, m.end, kind))
        gold_set = {(s, e, g.type) for (s, e), g in gold_typed.items()}
        for *_, kind in gold_set:
            n_gold[kind] += 1
        for *_, kind in pred_typed:
            n_pred[kind] += 1
        for *_, kind in gold_set & pred_typed:
            tp[kind] += 1
        span_gold += len(gold_typed)
        span_pred += len({(s, e) for s, e, _ in pred_typed})
        span_tp += len(set(gold_typed) & {(s, e) for s, e, _ in pred_typed})
        gold_keys.append({normalize_key(g.name) for g in gp.entities})
        pred_keys.append({e.key for e in preds})

    gold_pairs = _pairs(gold_keys)
    pred_pairs = _pairs(pred_keys)
    per_type = tuple(TypeScore(t, tp[t], n_pred[t] - tp[t], n_gold[t] - tp[t]) for t in ENTITY_TYPES)
    micro = TypeScore("micro", sum(s.tp for s in per_type), sum(s.fp for s in per_type), sum(s.fn for s in per_type))
    return PaperEvaluationReport(
        n_papers=len(gold),
        core_recall=core,
        recall_all=all_,
        precision=prec,
        proposed_precision=p_prec,
        proposed_recall=p_rec,
        type_accuracy=types,
        link_precision=Ratio(len(pred_pairs & gold_pairs), len(pred_pairs)),
        link_recall=Ratio(len(pred_pairs & gold_pairs), len(gold_pairs)),
        mention_scores=per_type,
        mention_micro=micro,
        span_only=TypeScore("span", span_tp, span_pred - span_tp, span_gold - span_tp),
        false_positives=tuple((name, _top(fp_groups[name], top)) for name in ("spurious", "boundary") if fp_groups[name]),
        misses=tuple((name, _top(miss_groups[name], top)) for name in ("not found", "partly found") if miss_groups[name]),
        source=source,
        results=score_results(gold, predictions) if any(g.results is not None for g in gold) else None,
    )


def _pairs(keys_per_paper: Sequence[set[str]]) -> set[tuple[int, int]]:
    """Pairs of paper indices that share at least one key."""
    by_key: dict[str, list[int]] = defaultdict(list)
    for index, keys in enumerate(keys_per_paper):
        for key in keys:
            by_key[key].append(index)
    return {pair for papers in by_key.values() for pair in combinations(papers, 2)}


def evaluate_papers(
    gold_path: Path | str, predict: Callable[[list[Paper]], Sequence[Extraction]], *, top: int = 15
) -> PaperEvaluationReport:
    """Read paper-level gold, call ``predict`` once on all its papers and :func:`score_papers`."""
    gold = read_paper_gold(gold_path)
    return score_papers(gold, list(predict([g.paper for g in gold])), top=top, source=str(gold_path))


def format_paper_report(report: PaperEvaluationReport, *, max_errors: int = 10) -> str:
    """Plain-text tables: paper level, mention level per type, then the grouped errors."""
    r = report
    lines = [f"Paper-level evaluation on {r.source or 'gold'} ({r.n_papers} papers)"]
    rows = [
        ("core recall", r.core_recall),
        ("recall (all gold)", r.recall_all),
        ("precision", r.precision),
        ("proposed precision", r.proposed_precision),
        ("proposed recall", r.proposed_recall),
        ("type accuracy", r.type_accuracy),
        ("link precision", r.link_precision),
        ("link recall", r.link_recall),
    ]
    for name, ratio in rows:
        lines.append(f"  {name:<20} {ratio.value:6.3f}  ({ratio.hits}/{ratio.total})")
    lines.append(f"  {'proposed F1':<20} {r.proposed_f1:6.3f}")
    lines.append("")
    header = f"Mention level (exact span and type)  {'gold':>5} {'pred':>5} | {'P':>6} {'R':>6} {'F1':>6}"
    lines.append(header)
    lines.append("-" * len(header))
    for s in (*r.mention_scores, r.mention_micro, r.span_only):
        label = "span only (any type)" if s.label == "span" else s.label
        lines.append(
            f"  {label:<34} {s.n_gold:>5} {s.n_pred:>5} | {s.precision:>6.3f} {s.recall:>6.3f} {s.f1:>6.3f}"
        )
    if r.results:
        lines += ["", *format_results_report(r.results)]
    for title, groups in (("False positives", r.false_positives), ("Missed core entities", r.misses)):
        for name, errors in groups:
            lines += error_lines(f"{title}, {name} (most frequent first)", errors, max_errors)
    return "\n".join(lines)


__all__ = [
    "PaperEvaluationReport",
    "Ratio",
    "evaluate_papers",
    "format_paper_report",
    "score_papers",
]
