"""What ``paperkg add`` costs next to a fresh build, on real abstracts.

    python bench/bench_add.py [--base 2000] [--add 100] [--no-model] [--n-process 1] [--no-html] [--json] [--record]

Writes the first ``--base`` abstracts of ``../shared/data/corpus`` (then ``unlabeled``, as
``bench_scale.py`` reads them) to one file and the next ``--add`` to another, then runs three
child processes, each as the CLI does it (imports and model loading included): ``paperkg
build`` of the base file (not compared), ``paperkg add`` of the new file into that folder, and
a fresh ``paperkg build`` of both files into another folder. It prints each one's papers
extracted and reused, wall and CPU seconds (the child's own, from ``getrusage``) and CPU per
stage, the add's share of the fresh build, and whether the two folders' graph.json,
mentions.jsonl, graph.graphml and resolution.jsonl are equal byte for byte.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_scale import real_abstracts  # noqa: E402  (one reading order for every bench)
from recording import add_record_option, record  # noqa: E402

STAGES = ("read", "extract", "resolve", "graph", "link", "communities", "export")
COMPARED = ("graph.json", "mentions.jsonl", "graph.graphml", "resolution.jsonl")


def worker(args) -> None:
    """One step in this process; prints one JSON line of figures."""
    import paperkg
    from paperkg.extract.run.store import STORE_NAME

    out = Path(args.out)
    if args.worker == "add":
        wall, cpu = time.perf_counter(), time.process_time()
        kg = paperkg.add(args.inputs, out, n_process=args.n_process, progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        # add exports inside: the export (and the check of the inputs) is what its stages leave
        export = (("export", wall - sum(s[1] for s in kg.build_stats.stages),
                   cpu - sum(s[2] for s in kg.build_stats.stages), 0.0, 0.0),)
    else:
        kg = paperkg.build(args.inputs, use_model=not args.no_model, n_process=args.n_process, progress=False,
                           store=out / STORE_NAME)
        wall, cpu = time.perf_counter(), time.process_time()
        kg.export(out, html=not args.no_html)
        export = (("export", time.perf_counter() - wall, time.process_time() - cpu, wall),)
    stats = kg.build_stats
    print(json.dumps({"stages": {name: [w, c] for name, w, c, *_ in (*stats.stages, *export)},
                      "extracted": stats.extraction.extracted, "reused": stats.extraction.reused}))


def child(args, mode: str, inputs: list[Path], out: Path) -> dict:
    command = [sys.executable, __file__, "--worker", mode, "--out", str(out), "--n-process", str(args.n_process),
               *["--no-model"] * args.no_model, *["--no-html"] * args.no_html, "--inputs", *map(str, inputs)]
    before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{mode} failed:\n{done.stderr[-3000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall"] = wall
    figures["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=2000, help="Papers of the existing build.")
    parser.add_argument("--add", type=int, default=100, help="Papers added.")
    parser.add_argument("--no-model", action="store_true", help="Rules and gazetteers only (the default: the trained NER).")
    parser.add_argument("--n-process", type=int, default=1, help="Extraction processes.")
    parser.add_argument("--no-html", action="store_true", help="Skip the explorer pages.")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    parser.add_argument("--worker", choices=["build", "add"], help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--inputs", nargs="+", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    with tempfile.TemporaryDirectory(prefix="bench-add-") as tmp:
        folder = Path(tmp)
        lines = list(islice(real_abstracts(ROOT.parent / "shared" / "data"), args.base + args.add))
        base, new = folder / "base.jsonl", folder / "new.jsonl"
        base.write_text("".join(lines[:args.base]), encoding="utf-8")
        new.write_text("".join(lines[args.base:]), encoding="utf-8")
        child(args, "build", [base], folder / "kg")
        runs = {"add": child(args, "add", [new], folder / "kg"), "fresh": child(args, "build", [base, new], folder / "fresh")}
        same = all((folder / "kg" / n).read_bytes() == (folder / "fresh" / n).read_bytes() for n in COMPARED)
    if args.record:
        record("bench_add", {"base": args.base, "add": args.add, "model": not args.no_model, "byte_for_byte": same,
                             **{f"{name}_{part}": round(run[part], 1) for name, run in runs.items() for part in ("wall", "cpu")},
                             **{f"{name}_extract_cpu_s": round(run["stages"].get("extract", [0, 0])[1], 1)
                                for name, run in runs.items()}})
    if args.json:
        print(json.dumps({"base": args.base, "add": args.add, "runs": runs, "byte_for_byte": same}, indent=2))
        return
    mode = "--no-model" if args.no_model else "trained NER"
    print(f"bench_add: {args.add} papers added to a {args.base}-paper build vs a fresh build of "
          f"{args.base + args.add}; {mode}, n_process={args.n_process}, html={'no' if args.no_html else 'yes'}")
    print(f"{'':<6} {'extracted':>9} {'reused':>7} {'wall s':>7} {'CPU s':>7}  " + " ".join(f"{s:>11}" for s in STAGES))
    for name, run in runs.items():
        cells = " ".join(f"{c:>11.1f}" for _, c in (run["stages"].get(s, [0, 0]) for s in STAGES))
        print(f"{name:<6} {run['extracted']:>9} {run['reused']:>7} {run['wall']:>7.1f} {run['cpu']:>7.1f}  {cells}")
    add, fresh = runs["add"], runs["fresh"]
    print(f"add / fresh: {add['wall'] / fresh['wall']:.0%} of the wall time, {add['cpu'] / fresh['cpu']:.0%} of the CPU "
          f"(stages: CPU s; wall and CPU: the whole child, imports and model loading included)")
    print(f"add and fresh build equal byte for byte ({', '.join(COMPARED)}): {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
