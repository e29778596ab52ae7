"""Build cost at scale on real abstracts: 10k / 50k / 95k papers from ../shared/data.

    python bench/bench_scale.py [--sizes 10000,50000,95000] [--full] [--n-process 1] [--add 1000] [--no-html]
                                [--no-incremental] [--save-graph graph-95k.json]

The papers are the 8,112 corpus abstracts, then the 87,014 unlabeled ones, in that order, so a
size is a prefix of the next. For each size, a fresh child process runs ``paperkg build`` (as
the API does, with the extraction store in the output folder) and prints, per stage (read,
extract, resolve, graph, link, communities, export), wall and CPU seconds (its own and its worker
processes'), the peak RSS within the
stage and its growth over the RSS the stage started with (a sampling thread reads /proc/self/statm
every 20 ms), then the peak RSS and the graph's size.
A second child measures the incremental rebuild: the store forgets the last ``--add`` papers
(as if they had just been added to the inputs) and the build runs again, re-extracting only
those. The growth exponent between two sizes is ``log(cpu2/cpu1) / log(n2/n1)``.

``--no-model`` (rules and gazetteers, minutes) is the default; ``--full`` runs the trained NER.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from itertools import islice
from pathlib import Path

from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("read", "extract", "resolve", "graph", "link", "communities", "export")
#: Seconds between two RSS samples of the build process.
SAMPLE_EVERY = 0.02


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


class RssSampler:
    """Samples this process's resident set size in a thread: ``(perf_counter, MB)`` pairs, so
    each stage's peak and its growth over the RSS it started with can be read off afterwards."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._page_mb = os.sysconf("SC_PAGE_SIZE") / 2**20
        self._thread = threading.Thread(target=self._run, daemon=True)

    def rss_mb(self) -> float:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * self._page_mb

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), self.rss_mb()))
            self._stop.wait(SAMPLE_EVERY)

    def __enter__(self) -> "RssSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def window(self, start: float, end: float) -> tuple[float, float]:
        """(RSS at ``start``, peak RSS within ``[start, end]``) in MB."""
        before = [mb for t, mb in self.samples if t <= start]
        inside = [mb for t, mb in self.samples if start <= t <= end]
        first = before[-1] if before else (inside[0] if inside else 0.0)
        return first, max(inside, default=first)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cpu_in_all(stage: list) -> float:
    """A stage's CPU seconds, its worker processes' included."""
    return stage[1] + stage[2]


def real_abstracts(data: Path):
    corpus = sorted((data / "corpus").glob("*.jsonl"))
    unlabeled = data / "unlabeled" / "abstracts.jsonl.gz"
    if not corpus or not unlabeled.exists():
        sys.exit(f"need {data / 'corpus'}/*.jsonl and {unlabeled}")
    for path in corpus:
        with open(path, encoding="utf-8") as handle:
            yield from handle
    with gzip.open(unlabeled, "rt", encoding="utf-8") as handle:
        yield from handle


def write_inputs(data: Path, size: int, folder: Path) -> Path:
    path = folder / f"papers-{size}.jsonl"
    with open(path, "w", encoding="utf-8") as handle:
        count = 0
        for line in islice(real_abstracts(data), size):
            handle.write(line if line.endswith("\n") else line + "\n")
            count += 1
    if count < size:
        sys.exit(f"only {count} abstracts in {data}; ask for at most that many")
    return path


def forget_last(store: Path, inputs: Path, count: int) -> None:
    """Drop the last ``count`` papers' rows from the store: the rebuild then sees them as new."""
    from paperkg.extract.read.readers import read_papers

    papers = read_papers([inputs]).papers[-count:]
    with sqlite3.connect(store) as db:
        db.executemany("DELETE FROM docs WHERE paper_id = ?", [(p.id,) for p in papers])


def worker(args) -> None:
    """One build in this process; prints one JSON line of figures."""
    import paperkg
    from paperkg.extract.run.store import STORE_NAME
    from paperkg.graph import analytics

    out = Path(args.out)
    if args.worker == "incremental":
        forget_last(out / STORE_NAME, Path(args.inputs), args.add)
    with RssSampler() as sampler:
        kg = paperkg.build([args.inputs], use_model=args.full, n_process=args.n_process, progress=False,
                           store=out / STORE_NAME)
        wall, cpu, children = time.perf_counter(), time.process_time(), children_cpu()
        kg.export(out, html=not args.no_html)
        spans = [*kg.build_stats.stages, ("export", time.perf_counter() - wall, time.process_time() - cpu, wall,
                                          children_cpu() - children)]
    stages = {name: (round(w, 2), round(c, 2), round(workers, 2)) for name, w, c, _, workers in spans}
    memory = {name: [round(mb, 1) for mb in sampler.window(start, start + w)] for name, w, _, start, _ in spans}
    if args.save_graph:
        kg.save(args.save_graph)
    # Only the counts: kg.stats() also ranks duplicates and links, which is no part of a build.
    counts = analytics.counts(kg.graph)
    print(json.dumps({
        "stages": stages,
        "memory": memory,
        "extracted": kg.build_stats.extraction.extracted,
        "reused": kg.build_stats.extraction.reused,
        "peak_rss_mb": round(peak_rss_mb(), 1),
        "children_peak_rss_mb": round(peak_rss_mb(resource.RUSAGE_CHILDREN), 1),
        "children_cpu": resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime + resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime,
        "graph": {k: counts[k] for k in ("papers", "entities", "paper_entity_edges", "paper_links")},
    }))


def run_child(args, mode: str, inputs: Path, out: Path) -> dict:
    command = [sys.executable, __file__, "--worker", mode, "--inputs", str(inputs), "--out", str(out),
               "--n-process", str(args.n_process), "--add", str(args.add)]
    command += ["--full"] * args.full + ["--no-html"] * args.no_html
    if mode == "fresh" and args.save_graph and inputs.stem.endswith(f"-{max(args.sizes_list)}"):
        command += ["--save-graph", str(args.save_graph)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{mode} build failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def exponent(n1: int, v1: float, n2: int, v2: float) -> str:
    if v1 <= 0 or v2 <= 0:
        return "-"
    return f"{math.log(v2 / v1) / math.log(n2 / n1):.2f}"


def report(sizes: list[int], fresh: dict[int, dict], incremental: dict[int, dict], args) -> None:
    mode = "full pipeline (trained NER)" if args.full else "--no-model (rules and gazetteers)"
    print(f"bench_scale: real abstracts, {mode}, n_process={args.n_process}, html={'no' if args.no_html else 'yes'}")
    print(f"{'papers':>7} {'stage':<11} {'wall s':>8} {'CPU s':>8} {'+ workers':>10} {'peak RSS MB':>12} {'RSS growth MB':>14}")
    for size in sizes:
        for stage in STAGES:
            wall, cpu, workers = fresh[size]["stages"][stage]
            start, peak = fresh[size]["memory"][stage]
            print(f"{size:>7} {stage:<11} {wall:>8.1f} {cpu:>8.1f} {workers:>10.1f} {peak:>12.0f} {peak - start:>14.0f}")
        total_wall = sum(w for w, *_ in fresh[size]["stages"].values())
        total_cpu = sum(c for _, c, _ in fresh[size]["stages"].values())
        print(f"{size:>7} {'total':<11} {total_wall:>8.1f} {total_cpu:>8.1f}   (+{fresh[size]['children_cpu']:.1f} CPU s in worker processes)")
        serial = sum(fresh[size]["stages"][s][0] for s in ("resolve", "link", "communities"))
        print(f"{size:>7} resolve, link and communities: {serial:.1f} s wall, {serial / total_wall:.0%} of the build")
    print(f"\n{'papers':>7} {'peak RSS MB':>12} {'entities':>9} {'HAS edges':>10} {'links':>8}")
    for size in sizes:
        g = fresh[size]["graph"]
        rss = max(fresh[size]["peak_rss_mb"], fresh[size]["children_peak_rss_mb"])
        print(f"{size:>7} {rss:>12.0f} {g['entities']:>9} {g['paper_entity_edges']:>10} {g['paper_links']:>8}")
    if len(sizes) > 1:
        print("\ngrowth exponents of CPU seconds, worker processes' included (1 = linear)")
        print(f"{'sizes':>15} " + " ".join(f"{s:>8}" for s in (*STAGES, "total", "RSS")))
        for a, b in zip(sizes, sizes[1:]):
            cells = [exponent(a, cpu_in_all(fresh[a]["stages"][s]), b, cpu_in_all(fresh[b]["stages"][s])) for s in STAGES]
            cells.append(exponent(a, sum(map(cpu_in_all, fresh[a]["stages"].values())),
                                  b, sum(map(cpu_in_all, fresh[b]["stages"].values()))))
            cells.append(exponent(a, fresh[a]["peak_rss_mb"], b, fresh[b]["peak_rss_mb"]))
            print(f"{f'{a}->{b}':>15} " + " ".join(f"{c:>8}" for c in cells))
    if not incremental:
        return
    print(f"\nincremental rebuild: the last {args.add} papers new, the rest in the store")
    print(f"{'papers':>7} {'extracted':>9} {'reused':>7} {'extract CPU s':>14} {'total CPU s':>12} {'fresh total CPU s':>18}")
    for size in sizes:
        inc = incremental[size]
        total = sum(c for _, c, _ in inc["stages"].values())
        fresh_total = sum(c for _, c, _ in fresh[size]["stages"].values())
        print(f"{size:>7} {inc['extracted']:>9} {inc['reused']:>7} {inc['stages']['extract'][1]:>14.1f} {total:>12.1f} {fresh_total:>18.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--sizes", default="10000,50000,95000", help="Comma-separated paper counts.")
    parser.add_argument("--full", action="store_true", help="Run the trained NER too (slow: about 100 abstracts/s).")
    parser.add_argument("--n-process", type=int, default=1)
    parser.add_argument("--add", type=int, default=1000, help="Papers added for the incremental rebuild.")
    parser.add_argument("--no-html", action="store_true", help="Leave the explorer pages out of the export stage.")
    parser.add_argument("--no-incremental", action="store_true", help="Skip the incremental rebuilds.")
    parser.add_argument("--save-graph", type=Path, help="Save the largest size's graph.json here (for bench_neo4j).")
    parser.add_argument("--worker", choices=["fresh", "incremental"], help=argparse.SUPPRESS)
    parser.add_argument("--inputs", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    sizes = args.sizes_list = sorted(int(s) for s in args.sizes.split(","))
    fresh, incremental = {}, {}
    with tempfile.TemporaryDirectory(prefix="paperkg-scale-") as tmp:
        for size in sizes:
            inputs = write_inputs(args.data, size, Path(tmp))
            out = Path(tmp) / f"out-{size}"
            fresh[size] = run_child(args, "fresh", inputs, out)
            if not args.no_incremental:
                incremental[size] = run_child(args, "incremental", inputs, out)
            print(f"... {size} papers done", file=sys.stderr, flush=True)
            inputs.unlink()
    report(sizes, fresh, incremental, args)
    if args.record:
        record("bench_scale_full" if args.full else "bench_scale",
               {"n_process": args.n_process, "html": not args.no_html, "fresh": fresh, "incremental": incremental})


if __name__ == "__main__":
    main()
