"""The results files the docs quote: one JSON per bench under ``bench/results/``.

Every bench takes ``--record``: after printing its figures it writes ``bench/results/NAME.json``
(temp file + rename, so a killed bench leaves the previous file) with the commit and machine it
ran on, the command, the date and the figures by name. ``scripts/render_figures.py`` fills the
marked figures of README.md and docs/*.md from these files, and ``tests/test_docs.py`` fails when
a page quotes a figure that no file holds. A figure measured by hand or in an earlier run (a
100k build, a reading of the graph) is recorded the same way, with ``source`` saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shlex
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from paperkg.atomic import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
#: What a build runs: the folders and file whose edits change a measured figure.
PACKAGE = ("src", "extract", "graph", "queries", "pyproject.toml")


def add_record_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--record", action="store_true",
                        help="also write the figures to bench/results/NAME.json (the docs quote them from there)")


def machine() -> dict:
    """What the figures depend on: cores, Python, platform, and how busy the machine was."""
    return {"cores": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "processor": platform.machine(), "load_average": [round(x, 2) for x in os.getloadavg()]}


def commit() -> str:
    """HEAD, with ``+dirty`` when the package's tracked files differ from it: the figures then
    measure code no commit holds (edits to benches, docs or tests measure nothing else)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout

    head = git("rev-parse", "HEAD").strip()
    changed = git("status", "--porcelain", "--untracked-files=no", "--", *PACKAGE).strip()
    return head + ("+dirty" if changed else "")


def command(argv: list[str] | None = None) -> str:
    """The command as run, from the repo root, without --record and without this machine's paths."""
    args = [a for a in (sys.argv if argv is None else argv) if a != "--record"]
    script = os.path.relpath(Path(args[0]).resolve(), ROOT) if args else ""
    text = shlex.join(["python", script, *args[1:]])
    return text.replace(str(ROOT.parent) + os.sep, "../").replace(str(ROOT) + os.sep, "")


def record(name: str, figures: dict, *, source: str | None = None, argv: list[str] | None = None) -> Path:
    """Write ``bench/results/NAME.json`` atomically and return its path."""
    data = {"bench": name, "commit": commit(), "machine": machine(),
            "measured": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "command": command(argv), "source": source or "measured by the command", "figures": figures}
    RESULTS.mkdir(exist_ok=True)
    path = atomic_write_text(RESULTS / f"{name}.json", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"recorded {path.relative_to(ROOT)}")
    return path


def load_results(folder: Path = RESULTS) -> dict[str, dict]:
    """Every results file by its name (the file name without .json)."""
    return {path.stem: json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.json"))}


def cpu_seconds() -> tuple[float, float]:
    """CPU of this process and of its ended children (forked processes are joined)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def paired_rounds(rounds: int, run: Callable[[int], dict]) -> dict[str, list[dict]]:
    """``run(1)`` then ``run(2)`` (in one process, then in two), ``rounds`` times, each round's
    pair printed to stderr as it ends: ``{"serial": [...], "forked": [...]}`` for :func:`paired`."""
    runs: dict[str, list[dict]] = {"serial": [], "forked": []}
    for _ in range(rounds):
        runs["serial"].append(run(1))
        runs["forked"].append(run(2))
        print(json.dumps({"serial": runs["serial"][-1], "forked": runs["forked"][-1]}), file=sys.stderr)
    return runs


def paired(runs: dict[str, list[dict]]) -> dict:
    """Medians and paired ratios of ``{"serial": [...], "forked": [...]}`` runs, each a dict with
    ``wall_s``, ``cpu_s`` (this process) and ``children_cpu_s``: round ``i`` of one mode was run
    beside round ``i`` of the other, so a ratio is taken within a round, never across."""
    pairs = list(zip(runs["serial"], runs["forked"]))
    return {
        "median": {mode: {key: statistics.median(run[key] for run in mode_runs)
                          for key in ("wall_s", "cpu_s", "children_cpu_s")} for mode, mode_runs in runs.items()},
        "forked_over_serial_wall": round(statistics.median(f["wall_s"] / s["wall_s"] for s, f in pairs), 3),
        "forked_parent_over_serial_cpu": round(statistics.median(f["cpu_s"] / s["cpu_s"] for s, f in pairs), 3),
        "forked_total_over_serial_cpu": round(statistics.median((f["cpu_s"] + f["children_cpu_s"]) / s["cpu_s"]
                                                                for s, f in pairs), 3),
    }
