"""One-process extraction with and without the workers' allocator settings, in one run.

    python bench/bench_inprocess.py [--data ../shared/data] [--papers 1500] [--rounds 2] [--record]

Extraction in one process (``--n-process 1``, what the API and small builds use) sets the same
glibc heap settings as a worker (:func:`paperkg.extract.run.workers.keep_freed_memory`). This
bench runs, alternately in fresh interpreters, the shipped path and the same path with that
call disabled, on the first ``--papers`` abstracts of the corpus, and prints each one's user and
kernel CPU seconds, the kernel share and the ratio of total CPU (shipped / baseline). The
ratio, not the seconds, is the figure on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys
from paperkg.extract.read.readers import read_papers
from paperkg.extract.run import corpus
from paperkg.extract.nlp.pipeline import build_pipeline
path, limit, tuned = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if not tuned:
    corpus.keep_freed_memory = lambda: None
papers = list(read_papers([path]).papers)[:limit]
build_pipeline(True)
before = resource.getrusage(resource.RUSAGE_SELF)
corpus.extract_papers(papers, n_process=1, progress=False)
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime}))
"""


def run_child(corpus_file: Path, papers: int, tuned: bool) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(corpus_file), str(papers), "1" if tuned else "0"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--papers", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=2)
    add_record_option(parser)
    args = parser.parse_args()
    corpus_file = args.data / "corpus" / "icml2024.jsonl"
    if not corpus_file.exists():
        sys.exit(f"bench_inprocess: {corpus_file} not found (pass --data)")
    totals = {True: {"user": 0.0, "sys": 0.0}, False: {"user": 0.0, "sys": 0.0}}
    for _ in range(args.rounds):
        for tuned in (False, True):
            figures = run_child(corpus_file, args.papers, tuned)
            for key in ("user", "sys"):
                totals[tuned][key] += figures[key]
    for tuned, label in ((False, "baseline (no allocator settings)"), (True, "shipped (allocator settings)")):
        user, kernel = totals[tuned]["user"], totals[tuned]["sys"]
        print(f"{label:34s} user {user:7.1f} s  kernel {kernel:6.1f} s  kernel share {kernel / (user + kernel):5.1%}")
    shipped, baseline = (sum(totals[t].values()) for t in (True, False))
    print(f"CPU ratio shipped / baseline: {shipped / baseline:.3f} ({args.papers} abstracts x {args.rounds} rounds, one process)")
    if args.record:
        share = {t: totals[t]["sys"] / sum(totals[t].values()) for t in (True, False)}
        record("bench_inprocess", {"papers": args.papers, "rounds": args.rounds,
                                   "kernel_share_shipped_pct": round(100 * share[True], 1),
                                   "kernel_share_baseline_pct": round(100 * share[False], 1),
                                   "cpu_ratio": round(shipped / baseline, 3)})


if __name__ == "__main__":
    main()
