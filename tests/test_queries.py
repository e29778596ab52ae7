"""The named-query library: headers, parameters, the CLI, and parity between the Cypher queries
on a real Neo4j and their NetworkX twins on the same graph (seed abstracts)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

import paperkg
from paperkg.cli import cli
from paperkg.errors import QueryError
from paperkg.graph import analytics
from paperkg.graph.results import result_row
from paperkg.queries.loader import load_graph
from paperkg.queries.offline import NAMED_QUERIES
from paperkg.queries.runner import Neo4jSettings, format_rows, library, parse_param_pairs, parse_query, run_query
from paperkg.types import ENTITY_TYPES, ROLES

QUERIES_DIR = Path(__file__).resolve().parents[1] / "queries"


# --------------------------------------------------------------------------- the library (no server)


def test_every_cypher_query_has_a_networkx_twin_and_a_header():
    names = sorted(p.stem for p in QUERIES_DIR.glob("*.cypher") if not p.name.startswith("_"))
    assert names == sorted(library()) == sorted(NAMED_QUERIES)
    assert len(names) >= 9
    for spec in library().values():
        assert spec.description and spec.columns, spec.name
        text = (QUERIES_DIR / f"{spec.name}.cypher").read_text()
        for param in spec.params:
            assert f"${param.name}" in text, (spec.name, param.name)
        assert "// param:" in text or not spec.params


def test_header_parsing_and_conversion():
    spec = parse_query("demo", "// What it answers.\n// param: k int = 10 -- rows\n// param: who entity\n"
                               "// param: kind enum(a|b) = null\n// returns: x, y\nRETURN 1")
    assert spec.description == "What it answers." and spec.columns == ("x", "y")
    assert spec.bind({"who": "Atari-100K", "k": "3"}) == {"k": 3, "who": "atari100k", "kind": None}
    assert spec.bind({"who": "x", "kind": "b"})["kind"] == "b"
    with pytest.raises(QueryError, match="needs parameter 'who'"):
        spec.bind({})
    with pytest.raises(QueryError, match="no parameter 'nope'"):
        spec.bind({"who": "x", "nope": 1})
    with pytest.raises(QueryError, match="'k' expects int"):
        spec.bind({"who": "x", "k": "ten"})
    with pytest.raises(QueryError, match=">= 0"):
        spec.bind({"who": "x", "k": -1})
    with pytest.raises(QueryError, match="one of a, b"):
        spec.bind({"who": "x", "kind": "c"})
    with pytest.raises(QueryError, match="malformed parameter"):
        parse_query("bad", "// Bad.\n// param: k integer\nRETURN 1")


def test_param_pairs_are_stripped():
    assert parse_param_pairs([" dataset = ImageNet ", "k=10\t"]) == {"dataset": "ImageNet", "k": "10"}
    with pytest.raises(QueryError, match="given twice"):
        parse_param_pairs(["k=1", " k =2"])


def test_csv_output_defuses_spreadsheet_formulas():
    rows = [{"title": '=HYPERLINK("http://x.example","y")', "n": -3, "f": -1.5},
            {"title": "+1", "n": 2, "f": "@SUM(A1)"}, {"title": "-x", "n": None, "f": "\tcmd"},
            {"title": "\rz", "n": 0, "f": ["=a", "b"]}, {"title": "plain = text", "n": 1, "f": "a-b"}]
    lines = format_rows(rows, ["title", "n", "f"], "csv").split("\n")
    assert lines == ["title,n,f", "\"'=HYPERLINK(\"\"http://x.example\"\",\"\"y\"\")\",-3,-1.5",
                     "'+1,2,'@SUM(A1)", "'-x,,'\tcmd", "\"'\rz\",0,'=a; b", "plain = text,1,a-b"]


def test_unknown_query_lists_the_available_ones(seeds_kg):
    with pytest.raises(QueryError) as info:
        seeds_kg.query("no_such_query")
    assert "top_entities" in str(info.value) and "shortest_path" in str(info.value)
    with pytest.raises(QueryError, match="needs parameter 'paper'"):
        seeds_kg.query("similar_papers")
    with pytest.raises(QueryError, match="no parameter 'limit'"):
        seeds_kg.query("top_entities", limit=3)


def test_networkx_queries_match_analytics(seeds_kg):
    graph = seeds_kg.graph
    for kind in ENTITY_TYPES:
        want = analytics.entity_frequencies(graph, type=kind, limit=5)
        got = seeds_kg.query("top_entities", type=kind, k=5)
        assert [(r["key"], r["paper_count"]) for r in got] == [(r["key"], r["paper_count"]) for r in want]
    top = analytics.entity_frequencies(graph, limit=1)[0]
    assert seeds_kg.query("papers_with", entity=top["name"]) == [
        {k: r[k] for k in ("paper_id", "label", "role", "count")} for r in analytics.papers_with(graph, top["key"])]
    assert seeds_kg.query("papers_with", entity="no such entity at all") == []
    assert seeds_kg.query("similar_papers", paper="no-such-paper") == []


def test_cli_list_and_graph_mode(seeds_kg, tmp_path):
    path = seeds_kg.save(tmp_path / "graph.json")
    runner = CliRunner()
    listing = runner.invoke(cli, ["query", "--list"])
    assert listing.exit_code == 0
    for spec in library().values():
        assert spec.name in listing.output
        for param in spec.params:
            assert f"param {param.name} (" in listing.output
    out = runner.invoke(cli, ["query", "top_entities", "--graph", str(path), "-p", "k=2", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output) == seeds_kg.query("top_entities", k=2)
    table = runner.invoke(cli, ["query", "top_entities", "--graph", str(path), "-p", "k=2", "-p", "type=Task"])
    assert table.exit_code == 0 and table.output.splitlines()[0].split() == ["type", "key", "name", "paper_count"]
    csv_out = runner.invoke(cli, ["query", "most_linked_papers", "--graph", str(path), "--format", "csv"])
    assert csv_out.exit_code == 0 and csv_out.output.splitlines()[0] == "paper_id,label,links"
    bad = runner.invoke(cli, ["query", "top_entities", "--graph", str(path), "-p", "k"])
    assert isinstance(bad.exception, QueryError) and "KEY=VALUE" in str(bad.exception)


# --------------------------------------------------------------------------- parity with Neo4j


def parity_cases(kg: paperkg.KnowledgeGraph) -> list[tuple[str, dict]]:
    """Parameters for every query, chosen from the graph (no hard-coded names)."""
    graph = kg.graph
    top = {kind: [r["key"] for r in analytics.entity_frequencies(graph, type=kind, limit=3)] for kind in ENTITY_TYPES}
    papers = [r["paper_id"] for r in kg.papers()]
    linked = [r["paper_id"] for r in analytics.most_linked_papers(graph, k=len(papers))]
    proposing = sorted({graph.nodes[u]["paper_id"] for u, _, d in graph.edges(data=True)
                        if d["kind"] == "HAS" and d["role"] == "proposed"})
    isolated = [p for p in papers if not any(True for _ in graph.out_edges("paper:" + p))]
    cases: list[tuple[str, dict]] = [("top_entities", {}), ("top_entities", {"k": "2"})]
    cases += [("top_entities", {"type": kind, "k": 4}) for kind in ENTITY_TYPES]
    for kind in ENTITY_TYPES:
        for key in top[kind][:2]:
            cases += [("papers_with", {"entity": key}), ("cooccurring", {"entity": key, "k": 25})]
    cases += [("papers_with", {"entity": top["Method"][0], "role": role}) for role in ROLES]
    cases += [("papers_with", {"entity": "no such entity anywhere"})]
    # Names, aliases and acronyms resolve the same way in Cypher (alias_keys) and NetworkX.
    aliased = sorted((attrs["paper_count"], attrs["key"], alias) for _, attrs in graph.nodes(data=True)
                     if attrs["kind"] == "Entity" for alias in attrs.get("alias_keys", ()) if alias != attrs["key"])
    for _, key, alias in aliased[-4:]:
        cases += [("papers_with", {"entity": alias}), ("cooccurring", {"entity": alias.upper()})]
    cases += [("papers_with", {"entity": "SAC"}), ("tasks_for_method", {"method": "SAC"})]
    for key in top["Dataset"][:2] + top["Benchmark"][:2] + top["Method"][:1]:
        cases.append(("methods_on_dataset", {"dataset": key}))
    for key in top["Method"][:3] + top["Task"][:1]:
        cases.append(("tasks_for_method", {"method": key, "k": 50}))
    for paper in [linked[0], linked[-1], papers[0], *proposing[:3], "no-such-paper"]:
        cases += [("similar_papers", {"paper": paper, "k": 50}), ("papers_sharing_entities", {"paper": paper, "k": 50}),
                  ("proposed_by", {"paper": paper})]
    pairs = [(papers[0], papers[-1]), (linked[0], linked[-1]), (linked[1], linked[len(linked) // 2]),
             (papers[3], papers[3]), (papers[5], "no-such-paper")]
    if isolated:
        pairs.append((papers[0], isolated[0]))
    cases += [("shortest_path", {"from_paper": a, "to_paper": b}) for a, b in pairs]
    cases += [("bridge_entities", {"k": 20})] + [("bridge_entities", {"type": kind}) for kind in ENTITY_TYPES]
    cases += [("most_linked_papers", {}), ("most_linked_papers", {"k": len(papers)})]
    return cases + result_cases(graph)


def result_cases(graph) -> list[tuple[str, dict]]:
    """leaderboard and results_for parameters from the graph's Result nodes: every dataset with
    a score, with each of its scores' metrics and tasks, every method with a result, and unknowns."""
    rows = [result_row(graph, n) for n, kind in graph.nodes(data="kind") if kind == "Result"]
    scores = [r for r in rows if r["kind"] == "score" and r["dataset_key"]]
    cases: list[tuple[str, dict]] = []
    for dataset in sorted({r["dataset"] for r in scores}):
        cases += [("leaderboard", {"dataset": dataset}), ("leaderboard", {"dataset": dataset, "k": 1}),
                  ("leaderboard", {"dataset": dataset, "metric": "no such metric anywhere"}),
                  ("leaderboard", {"dataset": dataset, "task": "no such task anywhere"})]
    for r in scores:
        if r["metric"]:
            cases.append(("leaderboard", {"dataset": r["dataset"], "metric": r["metric"]}))
        if r["task"]:
            cases.append(("leaderboard", {"dataset": r["dataset"], "task": r["task"]}))
        if r["metric"] and r["task"]:
            cases.append(("leaderboard", {"dataset": r["dataset"], "metric": r["metric"], "task": r["task"]}))
    metrics = sorted({r["metric"] for r in rows if r["metric"]})
    cases += [("leaderboard", {"dataset": m}) for m in metrics[:2]]  # a Metric is no dataset: no rows
    cases += [("leaderboard", {"dataset": "no such dataset anywhere"})]
    for method in sorted({r["method"] for r in rows if r["method"]}):
        cases += [("results_for", {"method": method}), ("results_for", {"method": method, "k": 1})]
    cases += [("results_for", {"method": "no such method anywhere"})]
    return cases


def test_every_query_gives_the_same_rows_in_neo4j_and_networkx(seeds_kg, clean_neo4j, neo4j_settings):
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(seeds_kg.graph, settings, progress=False)
    cases = parity_cases(seeds_kg)
    assert {name for name, _ in cases} == set(library())
    non_empty: Counter = Counter()
    for name, params in cases:
        expected = seeds_kg.query(name, **params)
        got = run_query(name, params, settings, driver=clean_neo4j)
        assert got == expected, f"{name} {params}:\n neo4j    {got[:3]}\n networkx {expected[:3]}"
        non_empty[name] += bool(got)
    # The comparison means something: every query answered with rows at least once.
    assert set(non_empty) == set(library()) and all(non_empty.values()), non_empty
    for name, params in cases:
        if name == "shortest_path":
            kinds = [r["kind"] for r in seeds_kg.query(name, **params)]
            assert kinds[::2] == ["Paper"] * len(kinds[::2]) and all(k in ENTITY_TYPES for k in kinds[1::2])


def test_leaderboard_parity_on_real_abstracts(results_kg, clean_neo4j, neo4j_settings, tmp_path):
    """ICML 2024 abstracts that report scores on ImageNet and CIFAR-10, through graph.json into
    Neo4j: leaderboard (with metric and task filters; unknown ones give no rows) and results_for
    give the rows of the NetworkX twin, best first where the metric's direction is known."""
    graph = paperkg.load(results_kg.save(tmp_path / "graph.json")).graph
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(graph, settings, progress=False)
    cases = result_cases(graph)
    for dataset in ("ImageNet", "CIFAR-10"):
        cases += [("leaderboard", {"dataset": dataset, "metric": "accuracy"}),
                  ("leaderboard", {"dataset": dataset, "metric": "no such metric anywhere"})]
    answers = []
    for name, params in cases:
        expected = results_kg.query(name, **params)
        got = run_query(name, params, settings, driver=clean_neo4j)
        assert got == expected, f"{name} {params}:\n neo4j    {got[:3]}\n networkx {expected[:3]}"
        answers.append((name, params, got))
    # The comparison means something: real leaderboards on both datasets, filters that keep
    # rows, a method with results; and every unknown name gives no rows.
    assert all(results_kg.query("leaderboard", dataset=d) for d in ("ImageNet", "CIFAR-10"))
    unknown = [(n, p, rows) for n, p, rows in answers if any("no such" in str(v) for v in p.values())]
    assert unknown and all(rows == [] for *_, rows in unknown), unknown
    for slot in ("metric", "task"):
        assert any(rows for n, p, rows in answers if n == "leaderboard" and slot in p and (n, p, rows) not in unknown), slot
    assert any(rows for n, _, rows in answers if n == "results_for")
    board = results_kg.query("leaderboard", dataset="ImageNet", metric="accuracy")
    assert board and {r["metric"] for r in board} == {"accuracy"}
    for dataset in ("ImageNet", "CIFAR-10"):
        rows = results_kg.query("leaderboard", dataset=dataset, k=1000)
        for metric in {r["metric"] for r in rows}:
            numbers = [r["number"] for r in rows if r["metric"] == metric]
            direction = next(r["direction"] for r in rows if r["metric"] == metric)
            if direction == "higher":
                assert numbers == sorted(numbers, reverse=True), (dataset, metric)
            elif direction == "lower":
                assert numbers == sorted(numbers), (dataset, metric)


def test_cli_query_against_neo4j_matches_graph_mode(seeds_kg, clean_neo4j, neo4j_settings, tmp_path):
    settings = Neo4jSettings.coerce(neo4j_settings)
    path = seeds_kg.save(tmp_path / "graph.json")
    runner = CliRunner()
    conn = ["--uri", settings.uri, "--user", settings.user, "--password", settings.password, "--database", settings.database]
    loaded = runner.invoke(cli, ["load", str(path), "--batch-size", "25", "--no-progress", *conn])
    assert loaded.exit_code == 0, loaded.output
    paper = analytics.most_linked_papers(seeds_kg.graph, k=1)[0]["paper_id"]
    for args in (["similar_papers", "-p", f"paper={paper}"], ["top_entities", "-p", "k=3"], ["bridge_entities"]):
        neo = runner.invoke(cli, ["query", *args, "--format", "json", *conn])
        local = runner.invoke(cli, ["query", *args, "--format", "json", "--graph", str(path)])
        assert neo.exit_code == 0 and local.exit_code == 0, (neo.output, local.output)
        assert json.loads(neo.output) == json.loads(local.output) != []
