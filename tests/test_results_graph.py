"""Results end to end (issue 20): the number grammar and the slot cues on real annotated
sentences, results in every export with equal counts, leaderboards over the graph, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import networkx as nx
import pytest

import paperkg
from paperkg.extract.read.gold import read_paper_gold
from paperkg.extract.results.cues import Span, bind_slots, main_entities, places_of, sentence_spans
from paperkg.extract.results.direction import metric_direction
from paperkg.extract.results.grammar import find_numbers
from paperkg.graph.build import add_result_edges
from paperkg.graph.results import leaderboard

PAPERKG = [sys.executable, "-c", "from paperkg.cli import main; main()"]
SLOT_KINDS = ("ON_DATASET", "MEASURED_BY", "ACHIEVED_BY", "FOR_TASK")


@pytest.fixture(scope="module")
def train_gold(shared_data):
    return [p for p in read_paper_gold(shared_data / "gold" / "paperkg_train.jsonl") if p.results]


def test_the_number_grammar_finds_every_annotated_value_with_its_unit(train_gold):
    found, units = 0, Counter()
    total = sum(len(p.results) for p in train_gold)
    for paper in train_gold:
        numbers = find_numbers(paper.paper.abstract)
        for gold in paper.results:
            match = [n for n in numbers if n.start < gold.end and gold.start < n.end]
            found += bool(match)
            if match and gold.text.rstrip("$ ").endswith("%"):
                units[match[0].unit] += 1
    assert found / total >= 0.97, f"the grammar finds {found} of {total} annotated values"
    assert units and units["%"] / sum(units.values()) >= 0.95, units


def test_the_slot_cues_bind_the_annotated_entities_of_real_sentences(train_gold):
    """Given the gold entities, the rules bind the gold metric, dataset and method of most
    results (the pipeline's slot accuracy is this minus the NER's misses)."""
    right, n = Counter(), 0
    for paper in train_gold:
        text = paper.paper.abstract
        spans = sorted((Span(s, e, ent.type, ent.name, ent.role) for ent in paper.entities for s, e in ent.mentions),
                       key=lambda s: (s.start, s.end))
        numbers = find_numbers(text)
        golds = [(g, next(x for x in numbers if x.start < g.end and g.start < x.end)) for g in paper.results
                 if any(x.start < g.end and g.start < x.end for x in numbers)]
        for sentence in sentence_spans(text):
            here = [(g, x) for g, x in golds if sentence[0] <= x.start < sentence[1]]
            for (gold, number), places in zip(here, places_of(text, sentence, [x for _, x in here])):
                slots = bind_slots(number, places, spans, main_entities(spans))
                n += 1
                for slot in ("metric", "dataset", "method"):
                    right[slot] += slots[slot] == getattr(gold, slot)
    assert n >= 100
    for slot in ("metric", "dataset", "method"):
        assert right[slot] / n >= 0.75, f"{slot}: {right[slot]} of {n}"


def test_metric_direction_reads_the_names_researchers_use():
    assert [metric_direction(m) for m in ("top-1 accuracy", "BLEU", "success rate", "mIoU", "PSNR")] == ["higher"] * 5
    assert [metric_direction(m) for m in ("FID", "perplexity", "word error rate", "latency", "MSE")] == ["lower"] * 5
    assert metric_direction("diversity") is None and metric_direction(None) is None


@pytest.fixture(scope="module")
def results_kg(shared_data, use_model, tmp_path_factory):
    """A build of the ICML 2024 papers that state percentages or FID scores: most report results."""
    lines = (shared_data / "corpus" / "icml2024.jsonl").read_text(encoding="utf-8").splitlines()
    chosen = [line for line in lines if "% on" in line or "FID" in line][:80]
    path = tmp_path_factory.mktemp("results") / "papers.jsonl"
    path.write_text("\n".join(chosen) + "\n", encoding="utf-8")
    kg = paperkg.build([path], use_model=use_model, progress=False)
    assert sum(1 for _, kind in kg.graph.nodes(data="kind") if kind == "Result") >= 20
    return kg


def _result_counts(graph: nx.DiGraph) -> Counter:
    counts = Counter(kind for _, kind in graph.nodes(data="kind") if kind == "Result")
    counts.update(kind for _, _, kind in graph.edges(data="kind")
                  if kind in ("REPORTS", *SLOT_KINDS, "EVALUATED_ON", "ADDRESSES"))
    return counts


def test_results_round_trip_through_graph_json_graphml_and_mentions_jsonl(results_kg, tmp_path):
    expected = _result_counts(results_kg.graph)
    assert expected["REPORTS"] == expected["Result"] and expected["ON_DATASET"] and expected["MEASURED_BY"]
    written = results_kg.export(tmp_path, html=False)
    loaded = paperkg.load(written["graph"])
    assert _result_counts(loaded.graph) == expected
    assert [loaded.results(p["paper_id"]) for p in loaded.papers()] == \
        [results_kg.results(p["paper_id"]) for p in results_kg.papers()]
    graphml = nx.read_graphml(written["graphml"])
    assert _result_counts(graphml) == expected
    records = [json.loads(line) for line in written["mentions"].read_text(encoding="utf-8").splitlines()]
    assert sum(len(r["results"]) for r in records) == expected["Result"]
    # The contract file written from a loaded graph has the same results as the build's.
    again = loaded.to_mentions_jsonl(tmp_path / "again.jsonl")
    assert [json.loads(line)["results"] for line in again.read_text(encoding="utf-8").splitlines()] == \
        [r["results"] for r in records]
    for record in records:
        keys = {e["key"] for e in record["entities"]}
        for result in record["results"]:
            assert {result[s] for s in ("metric", "dataset", "method", "task")} - {None} <= keys


def test_derived_edges_count_the_results_behind_them(results_kg):
    graph = results_kg.graph
    before = {(u, v, d["kind"]): d["count"] for u, v, d in graph.edges(data=True) if "count" in d
              and d["kind"] in ("EVALUATED_ON", "ADDRESSES", "MEASURED_BY")}
    assert before and all(count >= 1 for count in before.values())
    again = add_result_edges(graph.copy())
    assert {(u, v, d["kind"]): d["count"] for u, v, d in again.edges(data=True) if "count" in d
            and d["kind"] in ("EVALUATED_ON", "ADDRESSES", "MEASURED_BY")} == before


def test_a_leaderboard_lists_scores_best_first_within_each_metric(results_kg):
    graph = results_kg.graph
    datasets = Counter(target for node, kind in graph.nodes(data="kind") if kind == "Result"
                       and graph.nodes[node]["result_kind"] == "score"
                       for _, target, k in graph.out_edges(node, data="kind") if k == "ON_DATASET")
    assert datasets, "no score reported on a dataset in the sample"
    for dataset, _ in datasets.most_common(3):
        rows = leaderboard(graph, graph.nodes[dataset]["key"])
        assert rows and all(r["kind"] == "score" and r["dataset_key"] == graph.nodes[dataset]["key"] for r in rows)
        for metric in {r["metric_key"] for r in rows}:
            same = [r for r in rows if r["metric_key"] == metric]
            if same[0]["direction"] in ("higher", "lower"):
                numbers = [r["number"] for r in same]
                assert numbers == sorted(numbers, reverse=same[0]["direction"] == "higher")
        api = results_kg.leaderboard(graph.nodes[dataset]["name"])
        assert [r["evidence"] for r in api] == [r["evidence"] for r in rows]
    assert results_kg.leaderboard(graph.nodes[datasets.most_common(1)[0][0]]["name"], metric="no such metric") == []
    assert results_kg.leaderboard("no such dataset") == []


def test_paperkg_leaderboard_and_stats_print_results(results_kg, tmp_path):
    graph_file = results_kg.save(tmp_path / "graph.json")
    graph = results_kg.graph
    dataset = next(graph.nodes[t]["name"] for n, kind in graph.nodes(data="kind") if kind == "Result"
                   and graph.nodes[n]["result_kind"] == "score"
                   for _, t, k in graph.out_edges(n, data="kind") if k == "ON_DATASET")
    run = subprocess.run(PAPERKG + ["leaderboard", str(graph_file), dataset, "--format", "json"],
                         capture_output=True, text=True, check=True)
    assert json.loads(run.stdout) == results_kg.leaderboard(dataset)
    missing = subprocess.run(PAPERKG + ["leaderboard", str(graph_file), "no such dataset"],
                             capture_output=True, text=True)
    assert missing.returncode == 0 and "no scores reported on 'no such dataset'" in missing.stderr
    stats = subprocess.run(PAPERKG + ["stats", str(graph_file), "--json"],
                           capture_output=True, text=True, check=True)
    summary = json.loads(stats.stdout)["results"]
    assert summary["results"] == sum(1 for _, kind in graph.nodes(data="kind") if kind == "Result")
    assert summary["top_datasets"] and summary["by_kind"]
