"""Extraction and linking speed and peak memory on the 8,112-paper corpus (2 cores).

    python bench/bench_extract.py [--data ../shared/data] [--n-process 2] [--no-model] [--record]

Prints, side by side in one run: paperkg's end-to-end extraction (read + mask + spaCy + the
rules + canonicalization, in ``--n-process`` worker processes) and ``spacy.blank("en")``
tokenization of the same abstracts in one process, each in wall seconds and CPU seconds (this
process and its workers), with the ratio of the two; then the time to link all papers, the
peak RSS, and a digest of every mention, so that two runs (two branches) can be checked for
identical output. en_core_web_sm, what a user reaches for first, cannot be installed offline
(it is not on PyPI); issue 10 measured it at 28.9 abstracts/s in one process.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import time
from pathlib import Path

import spacy

from paperkg.extract.read.readers import read_papers
from paperkg.extract.run.corpus import extract_papers
from paperkg.graph.build import add_extractions
from paperkg.graph.linking import add_links
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]
TARGET = 400  # abstracts/s on 2 cores, end to end (issue 10)


def peak_rss_mb(who: int = resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024


def cpu_seconds() -> float:
    """CPU of this process and of its finished workers, user + system."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def mentions_digest(extractions) -> str:
    """sha256 over every mention of every paper (id, entity key, type, role, offsets)."""
    digest = hashlib.sha256()
    for extraction in extractions:
        for entity in extraction.entities:
            for mention in entity.mentions:
                digest.update(repr((extraction.paper.id, entity.key, entity.type, entity.role, mention)).encode())
    return digest.hexdigest()[:16]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--top-k", type=int, default=20)
    add_record_option(parser)
    args = parser.parse_args()
    corpus = sorted((args.data / "corpus").glob("*.jsonl"))
    if not corpus:
        sys.exit(f"no corpus at {args.data / 'corpus'}")

    started, cpu = time.perf_counter(), cpu_seconds()
    papers = read_papers(corpus).papers
    extractions = extract_papers(papers, n_process=args.n_process, use_model=not args.no_model, progress=False)
    extract_wall, extract_cpu = time.perf_counter() - started, cpu_seconds() - cpu

    blank = spacy.blank("en")
    started, cpu = time.perf_counter(), cpu_seconds()
    for _ in blank.pipe((p.abstract for p in papers), batch_size=256):
        pass
    blank_wall, blank_cpu = time.perf_counter() - started, cpu_seconds() - cpu

    import networkx as nx

    graph = add_extractions(nx.DiGraph(), extractions)
    started = time.perf_counter()
    linked = add_links(graph, top_k=args.top_k)
    link_seconds = time.perf_counter() - started
    links = sum(1 for _, _, k in linked.edges(data="kind") if k == "RELATED_TO")

    n = len(papers)
    pipeline = "rules + gazetteers" if args.no_model else "rules + gazetteers + trained NER"
    print(f"papers {n}; paperkg pipeline: {pipeline}, n_process={args.n_process}")
    print(f"{'':34}{'wall s':>9}{'abstracts/s':>13}{'CPU s':>9}{'per CPU-s':>11}")
    for name, wall, cpu in (("paperkg extraction, end to end", extract_wall, extract_cpu),
                            ("spacy.blank('en') tokenizer, 1 proc", blank_wall, blank_cpu)):
        print(f"{name:34}{wall:9.1f}{n / wall:13.1f}{cpu:9.1f}{n / cpu:11.1f}")
    print(f"{'ratio paperkg / blank':34}{blank_wall / extract_wall:22.3f}{blank_cpu / extract_cpu:20.3f}")
    print(f"target: >= {TARGET} abstracts/s end to end on 2 cores; now {n / extract_wall:.0f} "
          f"({n / extract_wall / TARGET:.0%} of it)")
    print("en_core_web_sm: not installable offline (not on PyPI); issue 10 measured 28.9 abstracts/s, 1 process")
    print(f"mentions digest                   {mentions_digest(extractions)}")
    print(f"paper-paper links, all papers  {link_seconds:8.2f} s  ({links} links, top-k {args.top_k})   target <= 10 s")
    print(f"peak RSS, main process         {peak_rss_mb():8.0f} MB   target <= 2048")
    print(f"peak RSS, largest worker       {peak_rss_mb(resource.RUSAGE_CHILDREN):8.0f} MB   (n_process > 1 only)")
    if args.record:
        record("bench_extract", {
            "papers": n, "n_process": args.n_process, "pipeline": pipeline,
            "extract_wall_s": round(extract_wall, 1), "extract_cpu_s": round(extract_cpu, 1),
            "abstracts_per_s": round(n / extract_wall, 1), "abstracts_per_cpu_s": round(n / extract_cpu, 1),
            "blank_wall_s": round(blank_wall, 1), "blank_cpu_s": round(blank_cpu, 1),
            "blank_abstracts_per_cpu_s": round(n / blank_cpu, 1),
            "ratio_wall": round(blank_wall / extract_wall, 3), "ratio_cpu": round(blank_cpu / extract_cpu, 3),
            "link_s": round(link_seconds, 2), "links": links, "top_k": args.top_k,
            "peak_rss_main_mb": round(peak_rss_mb()), "peak_rss_worker_mb": round(peak_rss_mb(resource.RUSAGE_CHILDREN)),
            "mentions_digest": mentions_digest(extractions)})


if __name__ == "__main__":
    main()
