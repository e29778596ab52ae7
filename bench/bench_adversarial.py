"""Adversarial inputs: extraction time of hostile 20,000-character abstracts, and reading speed.

    python bench/bench_adversarial.py [--data ../shared/data] [--repeat 3]

Prints CPU seconds (best of ``--repeat``) for one document through the whole pipeline (trained
NER + rules) and through the rules alone, for the hostile-input campaign's inputs and a few more
20,000-character ones, beside a real abstract of the corpus scaled to the same length as the
baseline; the rule stage's counted steps per character; and the time to read the same abstracts
as a seed ``.txt`` list and as JSONL (the campaign measured 354 s against 4 s for 100k abstracts).
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

from paperkg.extract.nlp.abbreviations import find_abbreviations, find_short_forms
from paperkg.extract.nlp.budget import Steps
from paperkg.extract.nlp.pipeline import build_pipeline
from paperkg.extract.read.readers import read_papers

ROOT = Path(__file__).resolve().parents[1]
LENGTH = 20_000


def inputs(real: str) -> dict[str, str]:
    def fill(unit: str, prefix: str = "") -> str:
        return (prefix + unit * (LENGTH // len(unit) + 1))[:LENGTH]

    return {
        "campaign: 'x'*3000 + '(a b)'*10": "x" * 3000 + "(a b)" * 10,
        "campaign: 'x'*10000 + '(a b)'*2000": "x" * 10000 + "(a b)" * 2000,
        "campaign: 'foo (FN) ' * 2222": "foo (FN) " * 2222,
        "20k: one word, no spaces": "x" * LENGTH,
        "20k: '(' * 20000": "(" * LENGTH,
        "20k: long words + short forms": fill("x" * 300 + " (ABCDEFGHIJKL) "),
        "20k: 'Soft Actor-Critic (SAC) ' repeated": fill("Soft Actor-Critic (SAC) "),
        "20k: 'we propose X called Y ' repeated": fill("we propose FooNet called BarNet "),
        "20k: real abstract repeated (baseline)": fill(real + " "),
    }


def cpu(func, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def rule_steps(text: str) -> int:
    steps = Steps()
    found = find_abbreviations(text, steps)
    list(find_short_forms(text, {text[a.short_start : a.short_end] for a in found}, steps))
    return steps.count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--read-abstracts", type=int, default=100_000, help="Abstracts for the .txt vs JSONL read.")
    args = parser.parse_args()
    logging.getLogger("paperkg").setLevel(logging.ERROR)  # the corpus's cleaned characters are not news here
    corpus = args.data / "corpus" / "icml2024.jsonl"
    if not corpus.exists():
        sys.exit(f"{corpus} is absent: this bench needs the shared data folder")
    real = json.loads(corpus.open(encoding="utf-8").readline())["abstract"]
    full, rules = build_pipeline(True), build_pipeline(False)
    full("Warm up. We propose FooNet (FN)."), rules("Warm up.")
    print(f"{'input':<44} {'chars':>6} {'model+rules s':>13} {'rules s':>8} {'steps/char':>10} {'notes':>5}")
    for name, text in inputs(real).items():
        with_model = cpu(lambda: full(text), args.repeat)
        alone = cpu(lambda: rules(text), args.repeat)
        notes = len(full(text)._.paperkg_notes)
        print(f"{name:<44} {len(text):>6} {with_model:>13.3f} {alone:>8.3f} {rule_steps(text) / len(text):>10.1f} {notes:>5}")

    texts = []
    with gzip.open(args.data / "unlabeled" / "abstracts.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            abstract = " ".join(json.loads(line).get("abstract", "").split())
            if abstract:
                texts.append(abstract)
            if len(texts) >= args.read_abstracts:
                break
    with tempfile.TemporaryDirectory() as tmp:
        txt, jsonl = Path(tmp) / "seeds.txt", Path(tmp) / "seeds.jsonl"
        txt.write_text("ICML 2024 Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
        jsonl.write_text("".join(json.dumps({"abstract": t}) + "\n" for t in texts), encoding="utf-8")
        t_txt = cpu(lambda: read_papers([txt]), 1)
        t_jsonl = cpu(lambda: read_papers([jsonl]), 1)
    print(f"\nread {len(texts):,} abstracts: seed .txt {t_txt:.2f} s CPU, JSONL {t_jsonl:.2f} s CPU (ratio {t_txt / t_jsonl:.2f})")


if __name__ == "__main__":
    main()
