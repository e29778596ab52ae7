"""Fitting the confidence model of :mod:`paperkg.extract.resolve.confidence`, and its report.

Out of fold: ``paperkg train`` trains two more NERs, each on a fixed half of
``paperkg_train.jsonl`` (the same settings and the word vectors just built), and each extracts
the other half with the whole pipeline and no confidence cut. Every predicted paper entity is a
row, labelled 1 when it matches a gold entity of its paper (:func:`~paperkg.extract.evaluate.papers.gold_hits`).
A model's own train abstracts would be labelled right nearly always.

    python -m paperkg.extract.learn.confidence rows GOLD.jsonl ROWS.json   # with PAPERKG_MODEL=DIR
    python -m paperkg.extract.learn.confidence fit ROWS.json... OUT.json
    python -m paperkg.extract.learn.confidence report GOLD.jsonl            # reliability and the cut's curve
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy

from paperkg.atomic import atomic_write_text
from paperkg.extract.evaluate.papers import gold_forms, gold_hits, score_papers
from paperkg.extract.learn.roles import softmax_weights
from paperkg.extract.read.gold import GoldPaper, read_paper_gold
from paperkg.extract.resolve.confidence import CONFIDENCE_FILE, ConfidenceModel, curated_keys, entity_rows, keep_confident
from paperkg.types import Extraction

#: Train is cut into this many parts; each out-of-fold NER learns from all but one and extracts that one.
FOLDS = 2


def extract_gold(gold: Sequence[GoldPaper]) -> list[Extraction]:
    """The whole pipeline's extractions of the gold papers, nothing cut by confidence."""
    from paperkg.extract.run.corpus import extract_papers

    return extract_papers([g.paper for g in gold], progress=False, min_confidence=0.0)


def labelled_rows(gold: Sequence[GoldPaper], extractions: Sequence[Extraction]) -> tuple[list[list[float]], list[int]]:
    """Feature rows of every predicted paper entity and whether it matches a gold entity."""
    labels = [
        int(bool(gold_hits(forms, entity)))
        for gp, extraction in zip(gold, extractions)
        for forms in [gold_forms(gp)]
        for entity in extraction.entities
    ]
    return entity_rows(extractions), labels


def fit_confidence(rows: Sequence[Sequence[float]], labels: Sequence[int], *, l2: float = 1.0,
                   steps: int = 5000, rate: float = 0.2) -> ConfidenceModel:
    """Logistic regression of ``labels`` on ``rows`` (unweighted, so the output is calibrated).
    The rate stays under 2 / the largest curvature (about 7 on the train rows, whose counts and
    lengths are logs above 1): a larger one oscillates and never reaches the optimum."""
    targets = numpy.zeros((len(labels), 2))
    targets[numpy.arange(len(labels)), list(labels)] = 1.0
    weights = softmax_weights(numpy.asarray(rows, dtype=float), targets, l2=l2, steps=steps, rate=rate, balance=0.0)
    return ConfidenceModel(weights=tuple(round(float(v), 6) for v in weights[1] - weights[0]))


def fold_halves(lines: Sequence[str], seed: int) -> list[list[int]]:
    """:data:`FOLDS` disjoint index lists covering ``lines`` (a seeded shuffle)."""
    order = list(range(len(lines)))
    random.Random(seed).shuffle(order)
    size = -(-len(order) // FOLDS)
    return [sorted(order[k * size : (k + 1) * size]) for k in range(FOLDS)]


def train_confidence(gold_dir: Path, paper_file: str, output_dir: Path, *, seed: int,
                     train_ner: Callable[[Path, Path], object], log: Callable[[str], None]) -> ConfidenceModel:
    """Fit and install ``output_dir/confidence.json`` from out-of-fold predictions on
    ``gold_dir/paper_file``: ``train_ner(gold_dir, model_dir)`` trains a fold's NER."""
    lines = [line for line in (gold_dir / paper_file).read_text(encoding="utf-8").splitlines() if line.strip()]
    rows: list[list[float]] = []
    labels: list[int] = []
    with tempfile.TemporaryDirectory(prefix=".confidence-", dir=output_dir.parent) as scratch:
        for fold, held_out in enumerate(fold_halves(lines, seed)):
            fold_gold = Path(scratch) / f"gold{fold}"
            fold_gold.mkdir()
            for item in gold_dir.iterdir():
                if item.name != paper_file:
                    (fold_gold / item.name).symlink_to(item.resolve())
            held = set(held_out)
            (fold_gold / paper_file).write_text("".join(f"{l}\n" for i, l in enumerate(lines) if i not in held), encoding="utf-8")
            held_file = Path(scratch) / f"held{fold}.jsonl"
            held_file.write_text("".join(f"{lines[i]}\n" for i in held_out), encoding="utf-8")
            model_dir = Path(scratch) / f"model{fold}"
            log(f"confidence: fold {fold + 1}/{FOLDS}, an NER on {len(lines) - len(held_out)} train abstracts")
            train_ner(fold_gold, model_dir)
            out = Path(scratch) / f"rows{fold}.json"
            # A fresh process: the pipeline reads its model directory once, at import.
            subprocess.run([sys.executable, "-m", "paperkg.extract.learn.confidence", "rows", str(held_file), str(out)],
                           check=True, env={**os.environ, "PAPERKG_MODEL": str(model_dir)})
            data = json.loads(out.read_text(encoding="utf-8"))
            rows += data["rows"]
            labels += data["labels"]
    model = fit_confidence(rows, labels)
    atomic_write_text(output_dir / CONFIDENCE_FILE, model.to_json() + "\n")
    log(f"confidence model fitted on {len(rows)} out-of-fold entities ({sum(labels)} right) -> {output_dir / CONFIDENCE_FILE}")
    return model


def reliability(confidences: Sequence[float], labels: Sequence[int], bins: int = 5) -> list[tuple[str, int, float, float]]:
    """``(bin, entities, mean confidence, share right)`` per equal-width confidence bin.

    >>> reliability([0.1, 0.15, 0.9, 0.95], [0, 0, 1, 1], bins=2)
    [('0.0-0.5', 2, 0.125, 0.0), ('0.5-1.0', 2, 0.925, 1.0)]
    """
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        picked = [(c, y) for c, y in zip(confidences, labels) if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        if picked:
            out.append((f"{lo:.1f}-{hi:.1f}", len(picked), round(sum(c for c, _ in picked) / len(picked), 3),
                        round(sum(y for _, y in picked) / len(picked), 3)))
    return out


def ranking_auc(confidences: Sequence[float], labels: Sequence[int]) -> float:
    """The chance that a right entity has a higher confidence than a wrong one (ties count half).

    >>> ranking_auc([0.9, 0.4, 0.4, 0.1], [1, 1, 0, 0])
    0.875
    """
    from scipy.stats import rankdata

    ranks = rankdata(confidences)
    right = sum(labels)
    wrong = len(labels) - right
    if not right or not wrong:
        return 0.5
    return float((sum(r for r, y in zip(ranks, labels) if y) - right * (right + 1) / 2) / (right * wrong))


def cut_curve(gold: Sequence[GoldPaper], extractions: Sequence[Extraction],
              cuts: Sequence[float]) -> list[dict[str, float]]:
    """The whole pipeline's paper-level scores at each ``--min-confidence`` in ``cuts``."""
    curve = []
    for cut in cuts:
        report = score_papers(gold, [keep_confident(x, cut, curated_keys()) for x in extractions])
        curve.append({"min_confidence": cut, "core_recall": round(report.core_recall.value, 3),
                      "precision": round(report.precision.value, 3), "proposed_f1": round(report.proposed_f1, 3),
                      "type_accuracy": round(report.type_accuracy.value, 3),
                      "entities": report.precision.total})
    return curve


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args.pop(0) if args else ""
    if command == "rows" and len(args) == 2:
        gold = read_paper_gold(args[0])
        extractions = [replace(x, results=()) for x in extract_gold(gold)]
        rows, labels = labelled_rows(gold, extractions)
        atomic_write_text(Path(args[1]), json.dumps({"rows": rows, "labels": labels}) + "\n")
    elif command == "fit" and len(args) >= 2:
        rows, labels = [], []
        for name in args[:-1]:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
            rows += data["rows"]
            labels += data["labels"]
        atomic_write_text(Path(args[-1]), fit_confidence(rows, labels).to_json() + "\n")
    elif command == "report" and len(args) == 1:
        gold = read_paper_gold(args[0])
        extractions = extract_gold(gold)
        _, labels = labelled_rows(gold, extractions)
        confidences = [e.confidence for x in extractions for e in x.entities]
        print(json.dumps({"reliability": reliability(confidences, labels), "auc": ranking_auc(confidences, labels),
                          "curve": cut_curve(gold, extractions, [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7])}, indent=1))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
