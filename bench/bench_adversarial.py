"""Adversarial inputs: the whole build's CPU time on hostile abstracts, and reading speed.

    python bench/bench_adversarial.py [--data ../shared/data] [--lengths 20000,100000] [--no-model]
                                      [--only SUBSTRING] [--repeat 1] [--record]

For each hostile input (the campaigns' cases and a generated family: a run of each ASCII
punctuation character, nested brackets, ``X (Y)`` repeats, whitespace, ``\\(`` runs) at each
length, prints the CPU seconds of one whole ``paperkg.build`` of a one-paper JSONL file into a
fresh store and the export of every file but the explorer (read, extract, resolve, roles, graph,
link, write), the stage that took most of it, and the budget notes the extraction left; beside a
real abstract of the corpus repeated to the same length as the baseline. Then the time to read
100k abstracts as a seed ``.txt`` list and as JSONL.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import string
import sys
import tempfile
import time
from pathlib import Path

import paperkg
from paperkg.extract.read.readers import read_papers
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]


def inputs(real: str, length: int) -> dict[str, str]:
    def fill(unit: str, prefix: str = "") -> str:
        return (prefix + unit * (length // len(unit) + 1))[:length]

    half = length // 2 - 3
    cases = {
        "campaign: 'x'*3000 + '(a b)'*10": "x" * 3000 + "(a b)" * 10,
        "campaign: 'foo (FN) ' repeated": fill("foo (FN) "),
        "campaign: '('*n + 'FooNet' + ')'*n": "(" * half + "FooNet" + ")" * half,
        "campaign: 'We propose FooNet ' + '{'*n": fill("{", "We propose FooNet "),
        "campaign: 'We propose ' + 'Zq'*n + 'Net'": fill("Zq", "We propose ")[: length - 3] + "Net",
        "one word, no spaces": "x" * length,
        "long words + short forms": fill("x" * 300 + " (ABCDEFGHIJKL) "),
        "'Soft Actor-Critic (SAC) ' repeated": fill("Soft Actor-Critic (SAC) "),
        "'we propose X called Y ' repeated": fill("we propose FooNet called BarNet "),
        "nested brackets '([{<' ... '>}])'": ("([{<" * (length // 8) + ">}])" * (length // 8))[:length],
        "'X (Y) ' repeated": fill("X (Y) "),
        "whitespace run": "We propose FooNet." + " " * (length - 36) + "It works on MNIST.",
        "'\\(' run": fill("\\("),
        "'\\[' run": fill("\\["),
    }
    for char in string.punctuation:
        cases[f"run of {char!r}"] = char * length
    cases["real abstract repeated (baseline)"] = fill(real + " ")
    return cases


def whole_build(text: str, use_model: bool) -> tuple[float, str, int]:
    """CPU seconds of one whole build of ``text``, the costliest stage, and the notes left."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "hostile.jsonl"
        source.write_text(json.dumps({"id": "hostile", "abstract": text}) + "\n", encoding="utf-8")
        notes = []
        handler = logging.Handler()
        handler.emit = lambda record: notes.append(record.getMessage())
        logger = logging.getLogger("paperkg")
        logger.addHandler(handler)
        start = time.process_time()
        try:
            kg = paperkg.build([source], use_model=use_model, progress=False, store=Path(tmp) / "store.sqlite",
                               max_chars=max(len(text), 1))
            export_start = time.process_time()
            kg.export(Path(tmp) / "out", html=False)
            export = time.process_time() - export_start
        finally:
            logger.removeHandler(handler)
        total = time.process_time() - start
    stages = [(cpu, name) for name, _, cpu, *_ in kg.build_stats.stages] + [(export, "export")]
    return total, max(stages)[1], sum("skipped" in n or "dropped" in n or "budget" in n for n in notes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--lengths", default="20000,100000", help="Comma-separated input lengths in characters.")
    parser.add_argument("--no-model", action="store_true", help="Rules and gazetteers only.")
    parser.add_argument("--only", default="", help="Run only the inputs whose name contains this.")
    parser.add_argument("--read-abstracts", type=int, default=100_000, help="Abstracts for the .txt vs JSONL read (0: skip).")
    add_record_option(parser)
    args = parser.parse_args()
    logging.getLogger("paperkg").setLevel(logging.WARNING)
    logging.getLogger("paperkg").propagate = False  # the notes are counted, not printed
    corpus = args.data / "corpus" / "icml2024.jsonl"
    if not corpus.exists():
        sys.exit(f"{corpus} is absent: this bench needs the shared data folder")
    real = json.loads(corpus.open(encoding="utf-8").readline())["abstract"]
    use_model = not args.no_model
    whole_build("Warm up. We propose FooNet (FN).", use_model)
    print(f"whole build, {'model + rules' if use_model else 'rules only'}; CPU seconds of this process")
    print(f"{'input':<46} {'chars':>7} {'build s':>8}  {'top stage':<12} {'notes':>5}")
    worst: dict[int, tuple[float, str]] = {}
    figures: dict = {"pipeline": "model + rules" if use_model else "rules only", "build_cpu_s": {}}
    for length in (int(n) for n in args.lengths.split(",")):
        for name, text in inputs(real, length).items():
            if args.only not in name:
                continue
            seconds, stage, notes = whole_build(text, use_model)
            worst[length] = max(worst.get(length, (0.0, "")), (seconds, name))
            figures["build_cpu_s"][f"{name} @ {len(text)}"] = round(seconds, 2)
            print(f"{name:<46} {len(text):>7} {seconds:>8.3f}  {stage:<12} {notes:>5}", flush=True)
    for length, (seconds, name) in worst.items():
        print(f"slowest at {length:,} characters: {seconds:.3f} s ({name})")
        figures[f"slowest_at_{length}"] = {"input": name, "cpu_s": round(seconds, 2)}
    if args.read_abstracts:
        figures.update(read_speed(args.data, args.read_abstracts))
    if args.record:
        record("bench_adversarial", figures)


def read_speed(data: Path, limit: int) -> dict:
    """CPU seconds to read ``limit`` unlabeled abstracts as a seed .txt list and as JSONL."""
    texts = []
    with gzip.open(data / "unlabeled" / "abstracts.jsonl.gz", "rt", encoding="utf-8") as handle:
        for line in handle:
            abstract = " ".join(json.loads(line).get("abstract", "").split())
            if abstract:
                texts.append(abstract)
            if len(texts) >= limit:
                break
    with tempfile.TemporaryDirectory() as tmp:
        txt, jsonl = Path(tmp) / "seeds.txt", Path(tmp) / "seeds.jsonl"
        txt.write_text("ICML 2024 Papers\n\n" + "\n\n".join(texts) + "\n", encoding="utf-8")
        jsonl.write_text("".join(json.dumps({"abstract": t}) + "\n" for t in texts), encoding="utf-8")
        t_txt = _cpu(lambda: read_papers([txt]))
        t_jsonl = _cpu(lambda: read_papers([jsonl]))
    print(f"\nread {len(texts):,} abstracts: seed .txt {t_txt:.2f} s CPU, JSONL {t_jsonl:.2f} s CPU (ratio {t_txt / t_jsonl:.2f})")
    return {"read_abstracts": len(texts), "read_txt_cpu_s": round(t_txt, 1), "read_jsonl_cpu_s": round(t_jsonl, 1)}


def _cpu(func) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


if __name__ == "__main__":
    main()
