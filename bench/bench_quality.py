"""Extraction quality on annotated gold, as ``paperkg evaluate`` prints it, recorded for the docs.

    python bench/bench_quality.py [GOLD.jsonl ...] [--record]

Default gold: ``../shared/data/gold/paperkg_dev.jsonl`` (the 100 dev abstracts), then SciERC and
CS-NER FTD dev. Prints each report; ``--record`` writes ``bench/results/quality.json`` with every
report's scores (``paperkg evaluate --json``'s dict without its lists of entity names), so
docs/quality.md and the README quote what the shipped model scores now.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import paperkg
from paperkg.extract.evaluate.papers import PaperEvaluationReport, format_paper_report
from paperkg.extract.evaluate.spans import format_report
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT.parent / "shared" / "data" / "gold"
DEFAULT = [GOLD / "paperkg_dev.jsonl", GOLD / "scierc_dev.jsonl", GOLD / "csner-ftd_dev.jsonl"]


#: The report's lists of entity names (false positives, misses, confusions) quote the gold
#: abstracts' words; the results file keeps the scores only.
TEXT_LISTS = ("false_positives", "misses", "false_negatives", "confusions")


def numbers_only(report: dict) -> dict:
    return {key: value for key, value in report.items() if key not in TEXT_LISTS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gold", nargs="*", type=Path, default=DEFAULT)
    add_record_option(parser)
    args = parser.parse_args()
    figures = {}
    for path in args.gold:
        report = paperkg.evaluate(path)
        print(f"== {path.name}")
        print(format_paper_report(report) if isinstance(report, PaperEvaluationReport) else format_report(report))
        figures[path.stem] = numbers_only(report.to_dict())
        figures[path.stem]["source"] = path.name
    if args.record:
        record("quality", figures)


if __name__ == "__main__":
    main()
