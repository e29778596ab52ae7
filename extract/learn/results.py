"""Fitting the results scorers (:mod:`paperkg.extract.results.extract`) on the train gold.

Each number of a gold abstract outside the pipeline's entity mentions is one example: a result
when it overlaps a gold result value, and a gain when that value is one. Both scorers are L2
logistic regressions over the cue features, fitted with L-BFGS (deterministic). The result
threshold is the lowest whose 5-fold cross-validated value precision over train is at least
:data:`PRECISION_FLOOR` (precision first).

    python -m paperkg.extract.learn.results [--gold ../shared/data/gold/paperkg_train.jsonl] [--write]

prints the 5-fold cross-validation over train and, with ``--write``, refits on all of it and
writes ``extract/data/results_model.json``.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy
from paperkg.extract.evaluate.results import (
    ResultsReport,
    format_results_report,
    score_results,
)
from paperkg.extract.read.gold import GoldPaper, read_paper_gold
from paperkg.extract.results.extract import (
    MODEL_FILE,
    LinearScorer,
    ResultModel,
    candidates,
    entity_spans,
    with_results,
)
from scipy.optimize import minimize

from paperkg.atomic import atomic_open
from paperkg.types import Extraction

L2 = 1.0
PRECISION_FLOOR = 0.92
FOLDS = 5
THRESHOLDS = tuple(round(0.3 + 0.05 * i, 2) for i in range(12))


def examples(gold: Sequence[GoldPaper], predicted: Sequence[Extraction]) -> tuple[list[tuple[str, ...]], list[int], list[int | None]]:
    """Features, result labels (0/1) and gain labels (1/0, None for a non-result) of every candidate."""
    feats, is_result, is_gain = [], [], []
    for paper, extraction in zip(gold, predicted):
        if paper.results is None:
            continue
        for candidate in candidates(paper.paper.abstract, entity_spans(extraction.entities)):
            n = candidate.number
            hit = [g for g in paper.results if g.start < n.end and n.start < g.end]
            feats.append(candidate.features)
            is_result.append(int(bool(hit)))
            is_gain.append(int(hit[0].kind == "gain") if hit else None)
    return feats, is_result, is_gain


def fit_scorer(feats: Sequence[Sequence[str]], labels: Sequence[int], *, l2: float = L2, threshold: float = 0.5) -> LinearScorer:
    """An L2 logistic regression over binary string features."""
    vocab = sorted({f for row in feats for f in row})
    index = {f: i for i, f in enumerate(vocab)}
    x = numpy.zeros((len(feats), len(vocab)))
    for r, row in enumerate(feats):
        for f in row:
            x[r, index[f]] = 1.0
    y = numpy.asarray(labels, dtype=float)

    def loss(w):
        z = x @ w[1:] + w[0]
        p = 1.0 / (1.0 + numpy.exp(-z))
        value = numpy.sum(numpy.logaddexp(0.0, z) - y * z) + 0.5 * l2 * numpy.dot(w[1:], w[1:])
        grad = numpy.concatenate(([numpy.sum(p - y)], x.T @ (p - y) + l2 * w[1:]))
        return value, grad

    w = minimize(loss, numpy.zeros(len(vocab) + 1), jac=True, method="L-BFGS-B").x
    return LinearScorer(weights=dict(zip(vocab, map(float, w[1:]))), bias=float(w[0]), threshold=threshold)


def fit_model(gold: Sequence[GoldPaper], predicted: Sequence[Extraction], *, threshold: float = 0.5) -> ResultModel:
    feats, is_result, is_gain = examples(gold, predicted)
    results = [(f, g) for f, g in zip(feats, is_gain) if g is not None]
    return ResultModel(fit_scorer(feats, is_result, threshold=threshold),
                       fit_scorer([f for f, _ in results], [g for _, g in results]))


def fold_of(paper_id: str) -> int:
    """A paper's cross-validation fold, fixed by its id."""
    return sum(paper_id.encode()) % FOLDS


def cross_validate(gold: Sequence[GoldPaper], predicted: Sequence[Extraction], threshold: float) -> ResultsReport:
    """Whole-pipeline results scores over ``gold``, each fold predicted by a model fitted on the others."""
    out: list[Extraction] = list(predicted)
    for fold in range(FOLDS):
        train = [i for i, g in enumerate(gold) if fold_of(g.paper.id) != fold]
        model = fit_model([gold[i] for i in train], [predicted[i] for i in train], threshold=threshold)
        for i, g in enumerate(gold):
            if fold_of(g.paper.id) == fold:
                out[i] = with_results(predicted[i], model)
    return score_results(gold, out)


def choose_threshold(gold: Sequence[GoldPaper], predicted: Sequence[Extraction]) -> tuple[float, ResultsReport]:
    """The lowest threshold whose cross-validated value precision reaches :data:`PRECISION_FLOOR`."""
    last = None
    for threshold in THRESHOLDS:
        report = cross_validate(gold, predicted, threshold)
        last = (threshold, report)
        if report.value_precision.value >= PRECISION_FLOOR:
            return last
    return last


def main(argv: Sequence[str] | None = None) -> None:
    from paperkg.extract.run.corpus import extract_papers  # noqa: the learn room runs the pipeline

    root = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=root.parent / "shared" / "data" / "gold" / "paperkg_train.jsonl")
    parser.add_argument("--write", action="store_true", help=f"refit on all of --gold and write data/{MODEL_FILE}")
    args = parser.parse_args(argv)
    gold = read_paper_gold(args.gold)
    predicted = extract_papers([g.paper for g in gold], progress=False)
    threshold, report = choose_threshold(gold, predicted)
    print(f"{FOLDS}-fold cross-validation over {args.gold.name}, result threshold {threshold}")
    print("\n".join(format_results_report(report)))
    if args.write:
        path = root / "extract" / "data" / MODEL_FILE
        with atomic_open(path, "w") as handle:
            json.dump(fit_model(gold, predicted, threshold=threshold).to_dict(), handle, sort_keys=True, indent=0)
            handle.write("\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
