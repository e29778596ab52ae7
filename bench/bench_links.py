"""Links measured against judged paper pairs (prints figures; no targets in tests).

    python bench/bench_links.py GRAPH.json [--pairs ../shared/data/gold/pairs_train.jsonl] [--relink] [--record]

GRAPH.json is a build of ``corpus/icml2024.jsonl`` (the judged pairs are ICML 2024 papers).
``--relink`` recomputes the links with the current code first (seconds), so one build serves
to compare linkers. Prints, over the judged pairs only: how many paperkg links, the share of
those that are RELATED / WEAK / UNRELATED, and how many of the RELATED pairs it links; over
the whole build: links by kind, papers without a link, and CPU seconds of the linking.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import paperkg
from paperkg.graph.linking import add_links
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]


def pair_figures(graph, pairs: list[dict]) -> dict:
    """The judged-pair figures of a graph's RELATED_TO links."""
    linked = {tuple(sorted((u, v))) for u, v, k in graph.edges(data="kind") if k == "RELATED_TO"}
    labels = Counter()
    related = sum(1 for p in pairs if p["label"] == "RELATED")
    for pair in pairs:
        if tuple(sorted(("paper:" + pair["a"], "paper:" + pair["b"]))) in linked:
            labels[pair["label"]] += 1
    n_linked = sum(labels.values())
    papers = [n for n, k in graph.nodes(data="kind") if k == "Paper"]
    ends = {end for pair in linked for end in pair}
    kinds = Counter(d.get("link_kind", "entities") for _, _, d in graph.edges(data=True) if d.get("kind") == "RELATED_TO")
    return {
        "judged_pairs": len(pairs),
        "judged_linked": n_linked,
        "related_share": round(labels["RELATED"] / n_linked, 3) if n_linked else 0.0,
        "weak_share": round(labels["WEAK"] / n_linked, 3) if n_linked else 0.0,
        "unrelated_share": round(labels["UNRELATED"] / n_linked, 3) if n_linked else 0.0,
        "related_linked": f"{labels['RELATED']}/{related}",
        "links": len(linked),
        "links_by_kind": dict(sorted(kinds.items())),
        "papers_without_link": round(1 - len(ends & set(papers)) / max(1, len(papers)), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", type=Path)
    parser.add_argument("--pairs", type=Path, default=ROOT.parent / "shared" / "data" / "gold" / "pairs_train.jsonl")
    parser.add_argument("--relink", action="store_true", help="Recompute the links with the current code first.")
    add_record_option(parser)
    args = parser.parse_args()
    graph = paperkg.load(args.graph).graph
    if args.relink:
        started = time.process_time()
        graph = add_links(graph, top_k=graph.graph.get("top_k", 20), copy=False)
        print(f"relinked in {time.process_time() - started:.2f} CPU-s")
    pairs = [json.loads(line) for line in args.pairs.read_text(encoding="utf-8").splitlines() if line.strip()]
    figures = pair_figures(graph, pairs)
    for name, value in figures.items():
        print(f"{name}: {value}")
    if args.record:
        record("bench_links", figures)


if __name__ == "__main__":
    main()
