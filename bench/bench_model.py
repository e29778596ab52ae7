"""Extraction CPU cost per abstract against ``spacy.blank("en")`` tokenization, in one run.

    python bench/bench_model.py [--data ../shared/data] [--limit 800] [--record]
    PAPERKG_MODEL=OTHER_MODEL_DIR python bench/bench_model.py    # compare another trained model

One process, CPU seconds (``time.process_time``), so the ratio holds on a busy machine where
wall-clock rates do not: the figure to compare models and settings by.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import spacy

from paperkg.extract.read.readers import read_papers
from paperkg.extract.run.corpus import extract_papers
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=800)
    add_record_option(parser)
    args = parser.parse_args()
    papers = read_papers([args.data / "corpus" / "icml2024.jsonl"]).papers[: args.limit]
    extract_papers(papers[:20], progress=False)  # load the pipeline outside the timing
    started = time.process_time()
    extract_papers(papers, progress=False)
    ours = time.process_time() - started
    blank = spacy.blank("en")
    started = time.process_time()
    for _ in blank.pipe((p.abstract for p in papers), batch_size=256):
        pass
    base = time.process_time() - started
    model = os.environ.get("PAPERKG_MODEL", "packaged model")
    print(f"{model}: {len(papers) / ours:.0f} abstracts per CPU-second; spacy.blank {len(papers) / base:.0f}; "
          f"ratio {base / ours:.3f} ({len(papers)} ICML 2024 abstracts, 1 process)")
    if args.record:
        record("bench_model", {"model": model, "papers": len(papers), "abstracts_per_cpu_s": round(len(papers) / ours),
                               "blank_abstracts_per_cpu_s": round(len(papers) / base), "ratio": round(base / ours, 3)})


if __name__ == "__main__":
    main()
