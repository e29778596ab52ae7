"""Corpus resolution and the papers' records after it (roles, confidence, results), in turn
against in forked processes, in one run: wall and CPU of each, the paired ratios, and digests of
the resolution report and of the records each way (they must be the same).

    python bench/bench_records.py ../shared/data/corpus/*.jsonl --store STORE [--rounds 2] [--record]

The store should already hold the inputs' extractions (a ``paperkg build --store STORE`` of them),
so that only resolution and the records run. The records' figures are at the top level of the
results, resolution's under ``resolution``.
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

    (own, children), started = cpu_seconds(), time.perf_counter()
    resolved = stream_stored(papers, store, n_process=processes)
    resolution = _spent(own, children, started)
    resolution["digest"] = hashlib.sha256(json.dumps(resolved.report, sort_keys=True, default=str).encode()).hexdigest()[:16]
    digest = hashlib.sha256()
    (own, children), started = cpu_seconds(), time.perf_counter()
    count = 0
    for extraction in resolved.extractions:
        digest.update(repr(extraction).encode())
        count += 1
    return {"processes": corpus_processes(processes, len(papers)), "records": count,
            **_spent(own, children, started), "digest": digest.hexdigest()[:16], "resolution": resolution}


def _spent(own: float, children: float, started: float) -> dict:
    """Wall and CPU seconds (this process's, its ended children's) since the figures given."""
    wall = time.perf_counter() - started
    own_after, children_after = cpu_seconds()
    return {"wall_s": round(wall, 2), "cpu_s": round(own_after - own, 2),
            "children_cpu_s": round(children_after - children, 2)}


def _summary(what: str, runs: dict[str, list[dict]]) -> dict:
    """The one digest of every run and the paired figures; a ValueError when the runs differ."""
    digests = {run["digest"] for mode in runs.values() for run in mode}
    if len(digests) != 1:
        raise ValueError(f"the {what} differ between runs: {sorted(digests)}")
    return {"digest": digests.pop(), **paired(runs)}


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
    resolutions = {mode: [run["resolution"] for run in mode_runs] for mode, mode_runs in runs.items()}
    try:
        figures = {"papers": len(papers), **_summary("records", runs),
                   "resolution": _summary("resolution reports", resolutions)}
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.record:
        record("bench_records", figures, argv=argv and ["bench/bench_records.py", *argv])
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
