"""Extraction and linking speed and peak memory on the 8,112-paper corpus (2 cores).

    python bench/bench_extract.py [--data ../shared/data] [--n-process 2] [--no-model]

Prints, in one run: the end-to-end extraction rate (read + spaCy + canonicalization), the time
to compute paper-paper links for all papers, the peak RSS, and the same corpus through
``spacy.blank("en")`` tokenization alone, as the baseline the ratio is taken against.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import spacy

from paperkg.extract.readers import read_papers
from paperkg.extract.run import extract_papers
from paperkg.graph.build import add_extractions
from paperkg.graph.linking import add_links

ROOT = Path(__file__).resolve().parents[1]


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--top-k", type=int, default=20)
    args = parser.parse_args()
    corpus = sorted((args.data / "corpus").glob("*.jsonl"))
    if not corpus:
        sys.exit(f"no corpus at {args.data / 'corpus'}")

    started = time.perf_counter()
    papers = read_papers(corpus).papers
    extractions = extract_papers(papers, n_process=args.n_process, use_model=not args.no_model, progress=False)
    extract_seconds = time.perf_counter() - started

    import networkx as nx

    graph = add_extractions(nx.DiGraph(), extractions)
    started = time.perf_counter()
    linked = add_links(graph, top_k=args.top_k)
    link_seconds = time.perf_counter() - started
    links = sum(1 for _, _, k in linked.edges(data="kind") if k == "RELATED_TO")

    blank = spacy.blank("en")
    started = time.perf_counter()
    for _ in blank.pipe((p.abstract for p in papers), batch_size=256):
        pass
    blank_seconds = time.perf_counter() - started

    n = len(papers)
    print(f"papers                         {n}")
    print(f"pipeline                       {'rules + gazetteers' if args.no_model else 'rules + gazetteers + trained NER'}, n_process={args.n_process}")
    print(f"extraction, end to end         {n / extract_seconds:8.1f} abstracts/s  ({extract_seconds:.1f} s)   target >= 150")
    print(f"paper-paper links, all papers  {link_seconds:8.2f} s  ({links} links, top-k {args.top_k})   target <= 10 s")
    print(f"peak RSS, main process         {peak_rss_mb():8.0f} MB   target <= 2048")
    print(f"peak RSS, largest worker       {peak_rss_mb(resource.RUSAGE_CHILDREN):8.0f} MB   (n_process > 1 only)")
    print(f"baseline spacy.blank('en')     {n / blank_seconds:8.1f} abstracts/s (tokenization only, 1 process)")
    print(f"ratio ours / blank tokenizer   {blank_seconds / extract_seconds:8.3f}")


if __name__ == "__main__":
    main()
