"""The confidence of paper entities on gold: reliability per bin, the ranking (AUC), and the
whole pipeline's scores at each ``--min-confidence``.

    python bench/bench_confidence.py [GOLD.jsonl] [--record]

Default gold: ``../shared/data/gold/paperkg_dev.jsonl`` (never fitted to: the model is fitted
out of fold on train). Prints the reliability table and the cut's curve.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from paperkg.extract.learn.confidence import cut_curve, extract_gold, labelled_rows, ranking_auc, reliability
from paperkg.extract.read.gold import read_paper_gold
from paperkg.extract.resolve.confidence import DEFAULT_MIN_CONFIDENCE
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "gold" / "paperkg_dev.jsonl"
CUTS = (0.0, 0.3, 0.4, 0.5, 0.6, 0.7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="?", type=Path, default=DEV)
    add_record_option(parser)
    args = parser.parse_args()
    gold = read_paper_gold(args.gold)
    extractions = extract_gold(gold)
    _, labels = labelled_rows(gold, extractions)
    confidences = [e.confidence for x in extractions for e in x.entities]
    bins = reliability(confidences, labels)
    auc = ranking_auc(confidences, labels)
    print(f"{args.gold.name}: {len(labels)} paper entities, {sum(labels)} right; AUC {auc:.3f}")
    print("confidence bin  entities  mean confidence  share right")
    for name, n, mean, right in bins:
        print(f"{name:>14}  {n:8}  {mean:15.3f}  {right:11.3f}")
    curve = cut_curve(gold, extractions, CUTS)
    print("min-confidence  core recall  precision  proposed F1  type accuracy  entities")
    for row in curve:
        print(f"{row['min_confidence']:14.1f}  {row['core_recall']:11.3f}  {row['precision']:9.3f}  "
              f"{row['proposed_f1']:11.3f}  {row['type_accuracy']:13.3f}  {row['entities']:8}")
    if args.record:
        record("bench_confidence", {
            "gold": args.gold.name, "entities": len(labels), "right": sum(labels), "auc": round(auc, 3),
            "default_min_confidence": DEFAULT_MIN_CONFIDENCE,
            "reliability": {name: {"entities": n, "mean_confidence": mean, "share_right": right} for name, n, mean, right in bins},
            "curve": {f"{row['min_confidence']:.1f}": row for row in curve},
        })


if __name__ == "__main__":
    main()
