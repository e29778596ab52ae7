"""Entity resolution on real abstracts: exact mention counts, the resolution report, acronyms
ranked by evidence, aliases in every query path (NetworkX, Neo4j, the explorer's focus)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import paperkg
from paperkg.cli import cli
from paperkg.extract.read.readers import read_papers
from paperkg.extract.run.corpus import extract_corpus
from paperkg.queries.runner import Neo4jSettings, run_query

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "abstracts.txt"


@pytest.fixture(scope="module")
def examples_kg(use_model):
    return paperkg.build([EXAMPLES], use_model=use_model, progress=False)


def test_mention_counts_are_exact_on_the_examples(examples_kg, tmp_path):
    spans = Counter()
    for extraction in examples_kg.extractions:
        for entity in extraction.entities:
            assert entity.count == len(entity.mentions) == len({(m.start, m.end) for m in entity.mentions})
            spans.update((extraction.paper.id, m.start, m.end) for m in entity.mentions)
    assert spans and max(spans.values()) == 1  # no occurrence listed twice, under any entity
    for source, target, data in examples_kg.graph.edges(data=True):
        if data["kind"] == "HAS":
            assert data["count"] == len(data["mentions"]) == len({(s, e) for s, e, _ in data["mentions"]})
    examples_kg.export(tmp_path, html=False)
    for line in (tmp_path / "mentions.jsonl").read_text().splitlines():
        for entity in json.loads(line)["entities"]:
            offsets = [(m["start"], m["end"]) for m in entity["mentions"]]
            assert len(offsets) == len(set(offsets))
            for m in entity["mentions"]:
                inner = any((s, e) != (m["start"], m["end"]) and s <= m["start"] and m["end"] <= e
                            for other in json.loads(line)["entities"] for s, e in
                            ((x["start"], x["end"]) for x in other["mentions"]))
                assert m["nested"] == inner


def test_build_writes_the_resolution_report(seeds_dir, use_model, tmp_path):
    result = CliRunner().invoke(cli, ["build", str(seeds_dir), "--out", str(tmp_path), "--no-html", "--no-progress"])
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "resolution.jsonl").read_text().splitlines()]
    kinds = Counter(r["kind"] for r in records)
    assert kinds["merge"] > 10 and set(kinds) <= {"merge", "ambiguous_acronym", "kept_apart"}
    graph = paperkg.load(tmp_path / "graph.json").graph
    for record in records:
        if record["kind"] == "merge":
            node = graph.nodes["entity:" + record["key"]]
            assert record["merged"] and all(part["forms"] and part["rule"] for part in record["merged"])
            # every merged written form resolves to the node it was merged into
            for part in record["merged"]:
                assert part["key"] in node["alias_keys"], (record["key"], part)
    rules = {part["rule"] for r in records if r["kind"] == "merge" for part in r["merged"]}
    assert any(rule.startswith("acronym") for rule in rules)
    assert records == sorted(records, key=lambda r: ["merge", "ambiguous_acronym", "kept_apart"].index(r["kind"]))
    again = tmp_path / "again"
    CliRunner().invoke(cli, ["build", str(seeds_dir), "--out", str(again), "--no-html", "--no-progress"])
    assert (again / "resolution.jsonl").read_text() == (tmp_path / "resolution.jsonl").read_text()


def _corpus_papers(shared_data: Path, needle: str, limit: int = 40):
    papers = read_papers([shared_data / "corpus" / "icml2024.jsonl"]).papers
    return [p for p in papers if needle in p.abstract][:limit]


def test_a_curated_expansion_outranks_a_one_abstract_definition(shared_data, use_model):
    papers = _corpus_papers(shared_data, "PPO") + _corpus_papers(shared_data, "OPT")
    resolved = extract_corpus(papers, use_model=use_model, progress=False)
    keys = Counter()
    for extraction in resolved.extractions:
        for entity in extraction.entities:
            for mention in entity.mentions:
                if mention.text in ("PPO", "OPT"):
                    keys[(mention.text, entity.key)] += 1
    assert keys[("PPO", "proximal policy optimization")] >= 5
    assert not [k for k in keys if k[0] == "PPO" and k[1] != "proximal policy optimization"]
    # OPT (the language model) stays OPT wherever the abstract does not define it otherwise.
    assert keys[("OPT", "opt")] >= 2
    defined = {x.paper.id for x in resolved.extractions if "(OPT)" in x.paper.abstract}
    assert defined
    for extraction in resolved.extractions:
        if extraction.paper.id not in defined:
            assert all(e.key != "open world prompt tuning" for e in extraction.entities)


def test_known_names_carry_ids_and_types(seeds_kg):
    graph = seeds_kg.graph
    with_ids = [a for _, a in graph.nodes(data=True) if a["kind"] == "Entity" and (a.get("pwc_id") or a.get("codesota_id"))]
    assert with_ids and all(a["record_url"].startswith("https://") for a in with_ids)
    metrics = {a["key"]: a["type"] for _, a in graph.nodes(data=True) if a["kind"] == "Entity"}
    for key in ("accuracy", "fid", "bleu", "miou"):
        if key in metrics:
            assert metrics[key] == "Metric", key


def test_aliases_resolve_in_every_query_path(seeds_kg, tmp_path):
    sac = seeds_kg.entity("SAC")
    assert "sac" in sac["alias_keys"]
    rows = seeds_kg.query("papers_with", entity="SAC")
    assert rows and rows == seeds_kg.query("papers_with", entity=sac["key"])
    path = seeds_kg.save(tmp_path / "graph.json")
    runner = CliRunner()
    local = runner.invoke(cli, ["query", "papers_with", "-p", "entity=SAC", "--format", "json", "--graph", str(path)])
    assert local.exit_code == 0 and json.loads(local.output) == rows
    html = runner.invoke(cli, ["html", str(path), "--out", str(tmp_path / "html"), "--focus", "SAC"])
    assert html.exit_code == 0, html.output
    assert list((tmp_path / "html").glob("focus-*.html"))


def test_aliases_resolve_in_neo4j(seeds_kg, clean_neo4j, neo4j_settings, tmp_path):
    settings = Neo4jSettings.coerce(neo4j_settings)
    seeds_kg.to_neo4j(uri=settings.uri, user=settings.user, password=settings.password, database=settings.database,
                      progress=False)
    expected = seeds_kg.query("papers_with", entity="SAC")
    assert expected and run_query("papers_with", {"entity": "SAC"}, settings, driver=clean_neo4j) == expected
    with clean_neo4j.session(database=settings.database) as session:
        record = session.run("MATCH (e:Entity {key: $key}) RETURN e.alias_keys AS keys", key=seeds_kg.entity("SAC")["key"]).single()
    assert "sac" in record["keys"]
    conn = ["--uri", settings.uri, "--user", settings.user, "--password", settings.password, "--database", settings.database]
    out = CliRunner().invoke(cli, ["query", "papers_with", "-p", "entity=SAC", "--format", "json", *conn])
    assert out.exit_code == 0 and json.loads(out.output) == expected
