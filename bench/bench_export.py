"""Export memory: how much each part of ``KnowledgeGraph.export`` grows the RSS over the built graph.

    python bench/bench_export.py INPUTS... [--store STORE.sqlite] [--no-model] [--graph graph.json]
                                 [--out DIR] [--json] [--speed ROUNDS]

Builds the graph (``paperkg.build``; with ``--store`` the extraction is re-used from that store,
so a 20k build is mostly resolution and linking), or loads ``--graph``, then writes each part of
the export set on its own: graph.json, graph.graphml, mentions.jsonl, resolution.jsonl, each
explorer page alone (``write_html`` to one file) and the three pages together (``to_html`` into a
folder, as the export writes them), and last the whole set (``kg.export``). Per part it prints
the wall and CPU seconds, the peak RSS within the part and its growth over the RSS the part
started with (a thread samples /proc/self/statm every 20 ms, as ``bench_scale.py`` does); freed
each part runs in a child forked from the built state, so every growth is measured from the
same floor (nothing an earlier part left behind, imports included, is counted or hidden).
``--speed ROUNDS`` instead times the whole set written in turn (``n_process=1``) against the
writers in forked processes (``n_process=0``), alternating within one run (which goes first
alternates too, so a busy neighbour weighs on both): wall and CPU seconds (this process and its
children), and per round the ratio of its two runs (parallel / serial), with their median.
The RSS growth does not show what a part allocates inside free heap the build left behind;
``--tracemalloc`` adds the peak of Python allocations per part (slower), which does. The export's own files hold no timestamps: the figures, not the
files, are this script's output.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import RssSampler  # noqa: E402  (a sibling script, not a package)
from recording import add_record_option, record  # noqa: E402


def in_child(write, trace: bool = False) -> dict:
    """Run ``write`` in a forked child (so each part starts from the built graph, not from what
    an earlier part left in the allocator) and return its seconds and RSS figures; with
    ``trace``, also the peak of the Python memory it allocated (tracemalloc, slower)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: measure, report, leave without running the parent's cleanup
        os.close(read_end)
        try:
            with RssSampler() as rss:
                time.sleep(0.1)  # a sample at the floor
                if trace:
                    tracemalloc.start()
                t0, c0 = time.perf_counter(), time.process_time()
                write()
                t1, c1 = time.perf_counter(), time.process_time()
                traced = tracemalloc.get_traced_memory()[1] / 2**20 if trace else None
                tracemalloc.stop()
                time.sleep(0.05)
            first, peak = rss.window(t0, t1)
            row = {"wall_s": round(t1 - t0, 2), "cpu_s": round(c1 - c0, 2), "start_mb": round(first),
                   "peak_mb": round(peak), "growth_mb": round(peak - first)}
            if trace:
                row["traced_peak_mb"] = round(traced)
            os.write(write_end, json.dumps(row).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as handle:
        report = handle.read()
    os.waitpid(pid, 0)
    if not report:
        raise SystemExit("a part failed (see above)")
    return json.loads(report)


def parts(kg, out: Path):
    """(name, function writing that part into ``out``), in the order ``kg.export`` writes them."""
    from paperkg.extract.resolve.report import write_resolution
    from paperkg.graph.explorer import write_html
    from paperkg.graph.export import write_graphml

    yield "graph.json", lambda: kg.save(out / "graph.json")
    yield "graph.graphml", lambda: write_graphml(kg.graph, out / "graph.graphml")
    yield "mentions.jsonl", lambda: kg.to_mentions_jsonl(out / "mentions.jsonl")
    if kg.extractions:
        yield "resolution.jsonl", lambda: write_resolution(kg.resolution, out / "resolution.jsonl")
    for view, name in (("overview", "explorer.html"), ("entity-map", "entities.html"),
                       ("similarity", "similarity.html")):
        yield f"{name} alone", lambda view=view, name=name: write_html(kg.graph, out / "single" / name, view=view)
    yield "explorer (3 pages)", lambda: kg.to_html(out / "pages")
    yield "kg.export (whole set)", lambda: kg.export(out / "set")


def _cpu_with_children() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def speed(kg, out: Path, rounds: int) -> dict:
    """Serial against forked writers, alternating, ``rounds`` times each: seconds and ratios."""
    runs: dict[str, list[dict]] = {"serial": [], "parallel": []}
    for round_ in range(rounds):
        for mode in (("serial", "parallel") if round_ % 2 == 0 else ("parallel", "serial")):
            t0, c0 = time.perf_counter(), _cpu_with_children()
            kg.export(out / mode, n_process=1 if mode == "serial" else 0)
            runs[mode].append({"wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(_cpu_with_children() - c0, 2)})
            print(f"  {mode}: {runs[mode][-1]['wall_s']} s wall, {runs[mode][-1]['cpu_s']} s CPU", file=sys.stderr)
    median = {mode: {key: statistics.median(run[key] for run in rows) for key in ("wall_s", "cpu_s")}
              for mode, rows in runs.items()}
    # Each round's two runs are next to each other in time: their ratio sees the same neighbours.
    paired = [{key: round(p[key] / s[key], 3) for key in ("wall_s", "cpu_s")}
              for s, p in zip(runs["serial"], runs["parallel"])]
    return {"rounds": rounds, "runs": runs, "median": median, "round_ratios": paired,
            "largest_child_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024),
            "parallel_over_serial_wall": statistics.median(r["wall_s"] for r in paired),
            "parallel_over_serial_cpu": statistics.median(r["cpu_s"] for r in paired)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", type=Path)
    parser.add_argument("--store", type=Path, help="extraction store to re-use (as paperkg build --store)")
    parser.add_argument("--no-model", action="store_true", help="rules and gazetteers only")
    parser.add_argument("--graph", type=Path, help="load this graph.json instead of building")
    parser.add_argument("--out", type=Path, help="folder for the files (default: a temporary one)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="also the peak Python allocation per part (tracemalloc; slower, and it "
                             "counts memory the RSS figure may not show: free heap the build left)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--speed", type=int, metavar="ROUNDS",
                        help="time the whole set in turn against the forked writers, ROUNDS times each")
    add_record_option(parser)
    args = parser.parse_args(argv)
    if not args.inputs and not args.graph:
        parser.error("give INPUTS or --graph")

    import paperkg

    started = time.perf_counter()
    if args.graph:
        kg = paperkg.load(args.graph)
    else:
        kg = paperkg.build(args.inputs, use_model=not args.no_model, progress=False, store=args.store)
    g = kg.graph
    print(f"graph: {g.number_of_nodes():,} nodes, {g.number_of_edges():,} edges "
          f"({time.perf_counter() - started:.0f} s to {'load' if args.graph else 'build'})", file=sys.stderr)

    if args.speed:
        with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
            figures = {"nodes": g.number_of_nodes(), "edges": g.number_of_edges(), "papers": len(kg.papers()),
                       "usable_cores": len(os.sched_getaffinity(0)), **speed(kg, args.out or Path(tmp), args.speed)}
        if args.record:
            record("bench_export_speed", figures, argv=argv and ["bench/bench_export.py", *argv])
        print(json.dumps(figures, indent=2))
        return 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for name, write in parts(kg, out):
            rows.append({"part": name, **in_child(write, args.tracemalloc)})
            print(f"  {name}: +{rows[-1]['growth_mb']} MB", file=sys.stderr)
    if args.record:
        record("bench_export", {"nodes": g.number_of_nodes(), "edges": g.number_of_edges(),
                                "parts": {row["part"]: row for row in rows}}, argv=argv and ["bench/bench_export.py", *argv])
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    traced = f"{'traced MB':>11}" if args.tracemalloc else ""
    print(f"{'part':<24}{'wall s':>8}{'CPU s':>8}{'start MB':>10}{'peak MB':>9}{'growth MB':>11}{traced}")
    for row in rows:
        traced = f"{row['traced_peak_mb']:>11}" if args.tracemalloc else ""
        print(f"{row['part']:<24}{row['wall_s']:>8.2f}{row['cpu_s']:>8.2f}{row['start_mb']:>10}"
              f"{row['peak_mb']:>9}{row['growth_mb']:>11}{traced}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
