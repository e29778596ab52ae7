"""Entity resolution and link evidence, measured (prints figures; no timing targets in tests).

    python bench/bench_resolution.py [--data ../shared/data] [--no-model] [--build DIR] [--sample N]

1. The ICML 2024 build (``corpus/icml2024.jsonl``; or a build already written, ``--build DIR``,
   its ``graph.json`` and ``resolution.jsonl``):
   - **entities**, those in >= 2 papers, and the **merges by rule** of the resolution report;
   - **the labelled pairs** (``tests/resolution_pairs.jsonl``, read from the ICML 2024 build:
     twins, and pairs that must stay apart): twins folded, and **wrong merges** (apart pairs
     that became one node); :func:`paperkg.graph.quality.pair_scores`;
   - **samples to read**: N merges (name, written forms, rule, evidence) and N entities in >= 2
     papers, drawn with a fixed seed, for a reader to judge (right / wrong merge; has a twin);
   - **wrong merges of known names**: papers where an acronym that the curated table or the
     known lists (PwC methods, CodeSOTA) name ("PPO", "OPT") was written only as the acronym and
     resolved to an entity other than its known meaning (a definition made elsewhere applied here);
   - **link evidence**: the share of links whose shared entities are all umbrella terms
     (``UMBRELLA_TERMS``), the share resting only on entities found in >= 20 papers (the issue's
     first measure), links on one entity, and papers at the cap.
3. ``--scale N``: CPU seconds of :func:`paperkg.graph.linking.paper_links` alone on a synthetic
   graph of N papers (10 Zipf(1.3)-drawn entities each over 3N entities, a third of them named),
   against the later target of 100k papers in <= 30 CPU-s; nothing else runs.
2. Link precision and core-pair recall on the 240 papers of ``paperkg_train.jsonl`` +
   ``paperkg_dev.jsonl`` built together (not with ``--build``): gold links are pairs sharing a gold
   canonical entity (normalized name); precision = share of RELATED_TO pairs that gold links;
   core-pair recall = share of pairs sharing an entity that is ``core`` in both that are
   RELATED_TO; also the ceiling: core pairs whose shared entity the extractor found in both papers.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections import Counter, defaultdict
from pathlib import Path

import paperkg

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.read.readers import read_papers
from paperkg.extract.resolve.canonical import known_tables
from paperkg.extract.run.corpus import extract_corpus
from paperkg.graph import quality
from paperkg.graph.build import build_graph
from paperkg.graph.linking import is_umbrella
from paperkg.types import Paper
from recording import add_record_option, record

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ROOT / "tests" / "resolution_pairs.jsonl"


def wrong_merges(graph, table) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """Papers where an acronym the curated table or the known lists name ("PPO", "OPT") was
    written only as the acronym, is not defined in that abstract, and resolved to another entity.

    Returns (wrong, overridden): *wrong* when the entity it became has weaker evidence than the
    known meaning (a curated meaning overridden, or a definition made in one other abstract);
    *overridden* when the corpus defines it another way in two or more abstracts, which by the
    ranking outranks the known lists (e.g. PAC = probably approximately correct).
    """
    known = known_tables()
    wrong, overridden = [], []
    for paper, target, data in graph.edges(data=True):
        if data.get("kind") != "HAS":
            continue
        texts = {text for _, _, text in data["mentions"]}
        if len(texts) != 1:
            continue
        (text,) = texts
        short = normalize_key(text)
        if " " in text or not text.isupper() or len(short) < 2:
            continue
        abstract = graph.nodes[paper]["abstract"]
        if f"({text})" in abstract or f"({text}s)" in abstract or f"{text} (" in abstract:
            continue  # defined in this abstract: its own meaning there
        expected = known.curated_aliases.get(short) or known.known_aliases.get(short) or (
            short if short in known.types else None)
        key = graph.nodes[target]["key"]
        if expected is None or key in (short, expected):
            continue
        row = (graph.nodes[paper]["paper_id"], text, key)
        defined = sum(table.definitions.get(short, {}).values())
        curated = short in known.curated_aliases
        (overridden if defined >= 2 and not curated else wrong).append(row)
    return sorted(wrong), sorted(overridden)


def link_evidence(graph) -> dict:
    links = [d for _, _, d in graph.edges(data=True) if d["kind"] == "RELATED_TO"]
    umbrella = sum(1 for d in links if all(is_umbrella({"key": e["key"], "name": e["name"]}) for e in d["evidence"]))
    broad = sum(1 for d in links if all(e["papers"] >= 20 for e in d["evidence"]))
    profile = quality.link_profile(graph)
    return {"links": len(links), "umbrella_only": umbrella / max(1, len(links)), "only_20plus": broad / max(1, len(links)),
            "one_entity": profile["links_on_one_entity"], "papers_at_cap": profile["papers_at_cap"],
            "papers": len([1 for _, k in graph.nodes(data="kind") if k == "Paper"]),
            "without_links": profile["papers_without_links"]}


def gold_links(data: Path, use_model: bool) -> dict:
    gold, papers = {}, []
    for split in ("train", "dev"):
        for line in (data / "gold" / f"paperkg_{split}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            gold[record["id"]] = record
            papers.append(Paper(id=record["id"], abstract=record["abstract"], title=record.get("title"),
                                venue=record.get("venue")))
    shared, core = defaultdict(set), defaultdict(set)
    for pid, record in gold.items():
        for entity in record["entities"]:
            key = normalize_key(entity["name"])
            shared[key].add(pid)
            if entity.get("core"):
                core[key].add(pid)
    gold_pairs = {p for ps in shared.values() for p in itertools.combinations(sorted(ps), 2)}
    core_pairs = {p for ps in core.values() for p in itertools.combinations(sorted(ps), 2)}
    graph = build_graph(extract_corpus(papers, use_model=use_model, progress=False).extractions)
    predicted = {tuple(sorted((graph.nodes[u]["paper_id"], graph.nodes[v]["paper_id"])))
                 for u, v, k in graph.edges(data="kind") if k == "RELATED_TO"}
    found = defaultdict(set)
    for u, v, k in graph.edges(data="kind"):
        if k == "HAS":
            found[graph.nodes[u]["paper_id"]].update(graph.nodes[v].get("alias_keys") or [graph.nodes[v]["key"]])
    reachable = {p for key, ps in core.items() for p in itertools.combinations(sorted(ps), 2)
                 if key in found[p[0]] and key in found[p[1]]}
    return {"papers": len(papers), "predicted": len(predicted), "precision": len(predicted & gold_pairs) / max(1, len(predicted)),
            "core_pairs": len(core_pairs), "core_recall": len(predicted & core_pairs) / max(1, len(core_pairs)),
            "core_ceiling": len(reachable) / max(1, len(core_pairs))}


def synthetic_links(n: int) -> dict:
    import networkx as nx
    import numpy as np

    from paperkg.graph.linking import paper_links

    rng = np.random.default_rng(0)
    graph = nx.DiGraph()
    for e in range(3 * n):
        name = f"Ent{e}Net" if e % 3 == 0 else f"entity {e} phrase"
        graph.add_node(f"entity:e{e}", kind="Entity", key=f"e{e}", name=name, type="Method", alias_keys=[f"e{e}"])
    draws = np.minimum(rng.zipf(1.3, size=(n, 10)) - 1, 3 * n - 1)
    for p in range(n):
        graph.add_node(f"paper:{p:07d}", kind="Paper", title=None)
        for e in set(draws[p].tolist()):
            graph.add_edge(f"paper:{p:07d}", f"entity:e{e}", kind="HAS", role="used", count=1 + e % 2)
    started = time.process_time()
    links = sum(1 for _ in paper_links(graph, top_k=20))
    seconds = time.process_time() - started
    print(f"paper_links, synthetic {n} papers: {links} links in {seconds:.1f} CPU-s "
          f"(target for 100k papers <= 30 CPU-s)")
    return {"papers": n, "links": links, "paper_links_cpu_s": round(seconds, 1)}


def merges_by_rule(report: list[dict]) -> Counter:
    """Merged written forms per rule (a form merged by two rules counts under each)."""
    rules: Counter = Counter()
    for record in report:
        if record["kind"] == "merge":
            for part in record["merged"]:
                rules.update({step.strip() for rule in part["rule"].split(";") for step in rule.split(" + ")})
    return rules


def read_samples(graph, report: list[dict], n: int, seed: int = 2024) -> tuple[list[str], list[str]]:
    """``n`` merges and ``n`` entities in >= 2 papers, drawn with a fixed seed, as lines to read."""
    rng = random.Random(seed)
    parts = [(r["name"], part) for r in report if r["kind"] == "merge" for part in r["merged"]]
    merges = [f"{name} <= {' | '.join(part['forms'])}   [{part['rule']}]   {'; '.join(part.get('evidence') or [])[:160]}"
              for name, part in rng.sample(parts, min(n, len(parts)))]
    common = sorted((a for _, a in graph.nodes(data=True) if a["kind"] == "Entity" and a["paper_count"] >= 2),
                    key=lambda a: a["key"])
    entities = [f"{a['name']} ({a['type']}, {a['paper_count']} papers)" for a in rng.sample(common, min(n, len(common)))]
    return merges, entities


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--no-model", action="store_true")
    parser.add_argument("--build", type=Path, default=None, help="Measure this build folder instead of building.")
    parser.add_argument("--sample", type=int, default=40, help="Merges and entities to print for reading.")
    parser.add_argument("--scale", type=int, default=None, help="Only time paper_links on N synthetic papers.")
    add_record_option(parser)
    args = parser.parse_args()
    if args.scale:
        figures = synthetic_links(args.scale)
        if args.record:
            record("bench_resolution_scale", figures)
        return
    use_model = not args.no_model

    started = time.process_time()
    if args.build:
        graph = paperkg.load(args.build / "graph.json").graph
        report = [json.loads(line) for line in (args.build / "resolution.jsonl").read_text(encoding="utf-8").splitlines()]
        acronyms = None
    else:
        papers = read_papers([args.data / "corpus" / "icml2024.jsonl"]).papers
        resolved = extract_corpus(papers, use_model=use_model, progress=False)
        graph = build_graph(resolved.extractions)
        report, acronyms = resolved.report, resolved.acronyms
    seconds = time.process_time() - started
    entities = [a for _, a in graph.nodes(data=True) if a["kind"] == "Entity"]
    population = sum(1 for a in entities if a["paper_count"] >= 2)
    scores = quality.pair_scores(graph, quality.read_pairs(PAIRS))
    links = link_evidence(graph)
    kinds = Counter(row["kind"] for row in report)
    figures = {"papers": links["papers"], "entities": len(entities), "entities_in_2_papers": population,
               "merges": kinds["merge"], "ambiguous_acronyms": kinds["ambiguous_acronym"], "kept_apart": kinds["kept_apart"],
               "twins": scores["twins"], "twins_folded": scores["twins_folded"], "apart": scores["apart"],
               "wrong_merges_labelled": len(scores["wrong_merges"]), "links": links["links"],
               "umbrella_only_pct": round(100 * links["umbrella_only"], 1),
               "only_20plus_pct": round(100 * links["only_20plus"], 1), "one_entity_pct": round(100 * links["one_entity"], 1),
               "papers_at_cap": links["papers_at_cap"], "without_links": links["without_links"]}

    print(f"ICML 2024 build: {links['papers']} papers, {len(entities)} entities, {population} in >= 2 papers "
          f"({seconds:.0f} CPU-s)")
    print(f"  resolution report: {kinds['merge']} merges, {kinds['ambiguous_acronym']} ambiguous acronyms, "
          f"{kinds['kept_apart']} kept apart; merged written forms by rule:")
    for rule, count in merges_by_rule(report).most_common():
        print(f"    {count:5d}  {rule}")
    print(f"  labelled pairs ({PAIRS.name}): twins folded {scores['twins_folded']}/{scores['twins']}, "
          f"wrong merges {len(scores['wrong_merges'])}/{scores['apart']} (target 0), absent {len(scores['absent'])}")
    for names in scores["wrong_merges"]:
        print(f"      wrong merge: {names}")
    print(f"      twins left apart: {'; '.join(scores['unfolded'])}")
    merges, common = read_samples(graph, report, args.sample)
    print(f"  {len(merges)} merges to read (right / wrong by name, forms and evidence; target <= 2% wrong):")
    for line in merges:
        print(f"      {line}")
    print(f"  {len(common)} entities in >= 2 papers to read (does another node name the same thing? target <= 3%):")
    for line in common:
        print(f"      {line}")
    if acronyms is not None:
        wrong, overridden = wrong_merges(graph, acronyms)
        print(f"  wrong merges of known names (PPO, OPT kind)      {len(wrong):7d}   target 0")
        figures.update(wrong_merges_known=len(wrong), acronyms_overridden=len(overridden))
        for paper, text, key in wrong[:10]:
            print(f"      {paper}: {text} -> {key}")
        print(f"  known-list acronyms the corpus defines otherwise in >= 2 abstracts (resolved to the corpus's) "
              f"{len(overridden)}: {sorted({f'{t} -> {k}' for _, t, k in overridden})[:6]}")
    print(f"  links {links['links']}: umbrella terms only {links['umbrella_only']:.1%} (target <= 10%), "
          f"only entities in >= 20 papers {links['only_20plus']:.1%}, on one entity {links['one_entity']:.1%}")
    print(f"  papers at the cap {links['papers_at_cap']} of {links['papers']}, without links {links['without_links']}")
    if not args.build:
        g = gold_links(args.data, use_model)
        print(f"paperkg_train + paperkg_dev ({g['papers']} papers): {g['predicted']} links, precision {g['precision']:.3f} "
              f"(target >= 0.90), core-pair recall {g['core_recall']:.3f} of {g['core_pairs']} pairs (target >= 0.75; "
              f"ceiling with these extractions {g['core_ceiling']:.3f})")
        figures.update(gold_papers=g["papers"], gold_links=g["predicted"], gold_link_precision=round(g["precision"], 3),
                       gold_core_recall=round(g["core_recall"], 3), gold_core_pairs=g["core_pairs"],
                       gold_core_ceiling=round(g["core_ceiling"], 3))
    if args.record:
        record("bench_resolution", figures)


if __name__ == "__main__":
    main()
