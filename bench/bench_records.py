"""The papers' records after resolution (roles, confidence, results) made in turn against made in
forked processes, in one run: wall and CPU of making them, the paired ratio, and a digest of the
records each way (they must be the same).

    python bench/bench_records.py ../shared/data/corpus/*.jsonl --store STORE [--rounds 2] [--record]

The store should already hold the inputs' extractions (a ``paperkg build --store STORE`` of them),
so that only resolution and the records run; resolution itself is not timed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recording import add_record_option, cpu_seconds, paired, paired_rounds, record  # noqa: E402  (a sibling script, not a package)


def make_records(papers, store, processes: int) -> dict:
    from paperkg.extract.run.corpus import corpus_processes, stream_stored

    resolved = stream_stored(papers, store, n_process=processes)
    digest = hashlib.sha256()
    (own, children), started = cpu_seconds(), time.perf_counter()
    count = 0
    for extraction in resolved.extractions:
        digest.update(repr(extraction).encode())
        count += 1
    wall = time.perf_counter() - started
    own_after, children_after = cpu_seconds()
    return {"processes": corpus_processes(processes, len(papers)), "records": count, "wall_s": round(wall, 2),
            "cpu_s": round(own_after - own, 2), "children_cpu_s": round(children_after - children, 2),
            "digest": digest.hexdigest()[:16]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--store", type=Path, required=True, help="the extraction store holding the inputs' extractions")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs, in turn then forked (default 2)")
    add_record_option(parser)
    args = parser.parse_args(argv)

    from paperkg.extract.read.readers import read_papers
    from paperkg.extract.run.store import ExtractionStore

    papers = read_papers(args.inputs).papers
    store = ExtractionStore(args.store)
    try:
        runs = paired_rounds(args.rounds, lambda processes: make_records(papers, store, processes))
    finally:
        store.close()
    digests = {run["digest"] for mode in runs.values() for run in mode}
    if len(digests) != 1:
        print(f"the records differ between runs: {sorted(digests)}", file=sys.stderr)
        return 1
    figures = {"papers": len(papers), "digest": digests.pop(), **paired(runs)}
    if args.record:
        record("bench_records", figures, argv=argv and ["bench/bench_records.py", *argv])
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
