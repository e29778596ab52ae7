"""Linking and communities over one built graph, in one process against in forked processes, in
one run: wall and CPU of each, the paired ratio, and a digest of the links and communities each
way (they must be the same, and the same as the build's).

    python bench/bench_link_speed.py GRAPH.json [--rounds 2] [--record]

``GRAPH.json`` is a build's ``graph.json`` (``paperkg build ../shared/data/corpus/ --out DIR``):
its RELATED_TO edges and communities are recomputed from its papers and entity edges.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recording import add_record_option, cpu_seconds, paired, paired_rounds, record  # noqa: E402  (a sibling script, not a package)


def digest(graph) -> str:
    """Of every RELATED_TO edge with its data and every paper's community."""
    links = sorted((u, v, json.dumps(d, sort_keys=True)) for u, v, d in graph.edges(data=True) if d.get("kind") == "RELATED_TO")
    communities = sorted((n, c) for n, c in graph.nodes(data="community") if c is not None)
    return hashlib.sha256(repr((links, communities)).encode()).hexdigest()[:16]


def relink(graph, processes: int) -> dict:
    from paperkg.graph.communities import add_communities
    from paperkg.graph.linking import add_links

    graph = graph.copy()
    (own, children), started = cpu_seconds(), time.perf_counter()
    add_links(graph, top_k=graph.graph.get("top_k", 20), copy=False, processes=processes)
    linked = time.perf_counter()
    add_communities(graph, processes=processes)
    wall = time.perf_counter() - started
    own_after, children_after = cpu_seconds()
    return {"processes": processes, "wall_s": round(wall, 2), "link_wall_s": round(linked - started, 2),
            "communities_wall_s": round(wall - (linked - started), 2), "cpu_s": round(own_after - own, 2),
            "children_cpu_s": round(children_after - children, 2), "digest": digest(graph)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("graph", type=Path)
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs, in one process then forked (default 2)")
    add_record_option(parser)
    args = parser.parse_args(argv)

    import paperkg

    graph = paperkg.load(args.graph).graph
    built = digest(graph)
    runs = paired_rounds(args.rounds, lambda processes: relink(graph, processes))
    digests = {run["digest"] for mode in runs.values() for run in mode}
    if digests != {built}:
        print(f"the links or communities differ from the build's {built}: {sorted(digests)}", file=sys.stderr)
        return 1
    figures = {"papers": sum(1 for _, kind in graph.nodes(data="kind") if kind == "Paper"), "digest": built,
               **paired(runs),
               **{f"median_{part}_wall_s": {mode: statistics.median(run[f"{part}_wall_s"] for run in mode_runs)
                                            for mode, mode_runs in runs.items()} for part in ("link", "communities")}}
    if args.record:
        record("bench_link_speed", figures, argv=argv and ["bench/bench_link_speed.py", *argv])
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
