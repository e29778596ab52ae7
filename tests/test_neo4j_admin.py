"""The neo4j-admin bulk export: header syntax, row counts and values against the graph."""

from __future__ import annotations

import csv
from collections import Counter

import networkx as nx
import pytest
from click.testing import CliRunner

from paperkg.cli import cli
from paperkg.errors import GraphError
from paperkg.queries.neo4j_admin import script_array_delimiter, write_neo4j_admin
from paperkg.types import LINK_KINDS

ROLE_TYPES = {"proposed": "PROPOSES", "used": "USES", "mentioned": "MENTIONS"}

HEADERS = {
    "papers": ["id:ID(Paper)", ":LABEL", "title", "abstract", "venue", "year:long", "url", "label", "authors:string[]",
               "community:int"],
    "entities": ["key:ID(Entity)", ":LABEL", "type", "name", "aliases:string[]", "alias_keys:string[]", "pwc_id",
                 "codesota_id", "area", "record_url", "paper_count:long"],
    "paper_entity": [":START_ID(Paper)", ":END_ID(Entity)", ":TYPE", "count:long", "evidence", "evidence_offset:long",
                     "confidence:double"],
    "related_to": [":START_ID(Paper)", ":END_ID(Paper)", ":TYPE", "weight:double", "shared:string[]", "reason",
                   "evidence", "link_kind", "terms:string[]"],
    "results": ["id:ID(Result)", ":LABEL", "paper_id", "index:long", "value", "start:long", "end:long", "number:double",
                "upper:double", "unit", "kind", "evidence", "direction"],
    "paper_result": [":START_ID(Paper)", ":END_ID(Result)", ":TYPE"],
    "result_entity": [":START_ID(Result)", ":END_ID(Entity)", ":TYPE"],
    "entity_entity": [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE", "count:long"],
}
RESULT_SLOT_TYPES = {"ON_DATASET", "MEASURED_BY", "ACHIEVED_BY", "FOR_TASK"}
DERIVED_TYPES = {"EVALUATED_ON", "ADDRESSES", "MEASURED_BY"}


def read_rows(path):
    """Header and rows as neo4j-admin reads them: '"'-quoted fields, '""' inside, ',' between."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    return rows[0], rows[1:]


def test_headers_counts_and_values(seeds_kg, tmp_path):
    graph = seeds_kg.graph
    written = write_neo4j_admin(graph, tmp_path / "admin")
    assert {*HEADERS, "constraints", "import"} <= set(written)
    tables = {}
    for key, header in HEADERS.items():
        got_header, rows = read_rows(written[key])
        assert got_header == header, key
        assert all(len(row) == len(header) for row in rows), key
        tables[key] = [dict(zip(header, row)) for row in rows]

    papers = {a["paper_id"]: a for _, a in graph.nodes(data=True) if a["kind"] == "Paper"}
    entities = {a["key"]: a for _, a in graph.nodes(data=True) if a["kind"] == "Entity"}
    has = [(u, v, d) for u, v, d in graph.edges(data=True) if d["kind"] == "HAS"]
    links = [(u, v, d) for u, v, d in graph.edges(data=True) if d["kind"] == "RELATED_TO"]
    assert len(tables["papers"]) == len(papers) and len(tables["entities"]) == len(entities)
    assert len(tables["paper_entity"]) == len(has) and len(tables["related_to"]) == len(links)

    for row in tables["papers"]:
        source = papers[row["id:ID(Paper)"]]
        assert row[":LABEL"] == "Paper" and row["abstract"] == source["abstract"] and row["label"] == source["label"]
        assert row["year:long"] == ("" if source["year"] is None else str(source["year"]))
        assert (row["authors:string[]"].split(";") if row["authors:string[]"] else []) == source["authors"]
        assert int(row["community:int"]) == source["community"]  # the graph's own community, -1 without links
    for row in tables["entities"]:
        source = entities[row["key:ID(Entity)"]]
        assert row[":LABEL"] == f"Entity;{source['type']}" and row["type"] == source["type"]
        assert (row["aliases:string[]"].split(";") if row["aliases:string[]"] else []) == source["aliases"]
        assert int(row["paper_count:long"]) == source["paper_count"]
    assert Counter(r[":TYPE"] for r in tables["paper_entity"]) == Counter(ROLE_TYPES[d["role"]] for *_, d in has)
    assert {r[":START_ID(Paper)"] for r in tables["paper_entity"]} <= set(papers)
    assert {r[":END_ID(Entity)"] for r in tables["paper_entity"]} <= set(entities)
    for row in tables["related_to"]:
        assert row[":TYPE"] == "RELATED_TO" and row[":START_ID(Paper)"] < row[":END_ID(Paper)"]
        assert set(filter(None, row["shared:string[]"].split(";"))) <= set(entities)
        assert row["link_kind"] in LINK_KINDS and (row["shared:string[]"] or row["terms:string[]"])
        float(row["weight:double"])

    results = {n: a for n, a in graph.nodes(data=True) if a["kind"] == "Result"}
    assert results and len(tables["results"]) == len(results)
    for row in tables["results"]:
        source = results[row["id:ID(Result)"]]
        assert row[":LABEL"] == "Result" and row["paper_id"] == source["paper_id"] and row["value"] == source["value"]
        assert (int(row["index:long"]), float(row["number:double"]), row["kind"]) == (
            source["index"], source["number"], source["result_kind"])
        assert row["direction"] == (source["direction"] or "") and row["evidence"] == source["evidence"]
    reports = [(graph.nodes[u]["paper_id"], v) for u, v, d in graph.edges(data=True) if d["kind"] == "REPORTS"]
    assert sorted((r[":START_ID(Paper)"], r[":END_ID(Result)"]) for r in tables["paper_result"]) == sorted(reports)
    assert {r[":TYPE"] for r in tables["paper_result"]} == {"REPORTS"}
    slots = Counter(d["kind"] for u, _, d in graph.edges(data=True) if graph.nodes[u]["kind"] == "Result")
    assert Counter(r[":TYPE"] for r in tables["result_entity"]) == slots and set(slots) <= RESULT_SLOT_TYPES
    assert {r[":END_ID(Entity)"] for r in tables["result_entity"]} <= set(entities)
    derived = {(graph.nodes[u]["key"], d["kind"], graph.nodes[v]["key"]): d["count"]
               for u, v, d in graph.edges(data=True) if graph.nodes[u]["kind"] == "Entity"}
    assert derived and {k for _, k, _ in derived} <= DERIVED_TYPES
    assert {(r[":START_ID(Entity)"], r[":TYPE"], r[":END_ID(Entity)"]): int(r["count:long"])
            for r in tables["entity_entity"]} == derived

    script = written["import"].read_text()
    assert "neo4j-admin database import full" in script
    for name in ("papers.csv", "entities.csv", "paper_entity.csv", "related_to.csv", "results.csv",
                 "paper_result.csv", "result_entity.csv", "entity_entity.csv"):
        assert name in script
    assert "--nodes=results.csv" in script and "--relationships=entity_entity.csv" in script
    assert "'--array-delimiter=;'" in script and "--multiline-fields=true" in script
    assert "paperkg neo4j import ." in script, "without neo4j-admin on PATH, the launcher's import tool"
    assert "CREATE CONSTRAINT paperkg_paper_id" in written["constraints"].read_text()


def test_quoting_nulls_and_the_array_delimiter(tmp_path):
    graph = nx.DiGraph()
    graph.add_node("paper:p", kind="Paper", paper_id="p", label='say "hi", then\nleave', title=None, abstract="A, b",
                   venue=None, year=None, url=None, authors=[])
    graph.add_node("entity:x", kind="Entity", type="Method", key="x", name="X", aliases=["a;b"], paper_count=1)
    graph.add_edge("paper:p", "entity:x", kind="HAS", role="used", count=1, evidence="e", evidence_offset=0, mentions=[])
    with pytest.raises(GraphError, match="array delimiter"):
        write_neo4j_admin(graph, tmp_path / "a", array_delimiter=";")
    picked = write_neo4j_admin(graph, tmp_path / "c")  # the default: a delimiter no value holds
    assert script_array_delimiter(tmp_path / "c") == "|"
    assert read_rows(picked["entities"])[1][0][4] == "a;b"
    assert script_array_delimiter(tmp_path / "nowhere") == ";"
    written = write_neo4j_admin(graph, tmp_path / "b", array_delimiter="|")
    text = written["papers"].read_text(encoding="utf-8").splitlines()
    # a missing value is an empty unquoted field (no property); strings are always quoted
    assert text[1] == '"p","Paper",,"A, b",,,,"say ""hi"", then'
    _, rows = read_rows(written["papers"])
    assert rows[0][7] == 'say "hi", then\nleave'
    _, rows = read_rows(written["entities"])
    assert rows[0][4] == "a;b"
    assert "'--array-delimiter=|'" in written["import"].read_text()


def test_cli_export(seeds_kg, tmp_path):
    path = seeds_kg.save(tmp_path / "graph.json")
    result = CliRunner().invoke(cli, ["export", str(path), "--format", "neo4j-admin", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "out" / "papers.csv").exists() and (tmp_path / "out" / "import.sh").exists()
    missing = CliRunner().invoke(cli, ["export", str(path), str(tmp_path / "out2")])
    assert missing.exit_code != 0 and "--format" in missing.output


def require_launcher() -> None:
    """Build (cached) the local launcher, whose lib/ holds the import tool; skip without Java/Maven."""
    from neo4j_fixtures import in_ci

    from paperkg.queries.server import ToolMissingError, build_launcher

    try:
        build_launcher()
    except ToolMissingError as exc:
        if in_ci():
            pytest.fail(f"the import tool is required in CI: {exc}", pytrace=False)
        pytest.skip(f"no Java/Maven for the import tool: {exc}")


def test_real_import_gives_the_loaders_graph(seeds_kg, clean_neo4j, neo4j_settings, tmp_path):
    """``paperkg neo4j import GRAPH.json`` runs Neo4j's own import tool from the local launcher's
    build into a data dir; a server started on it holds what ``paperkg load`` writes, and answers
    a named query with the same rows."""
    from neo4j_fixtures import TEST_PASSWORD
    from test_neo4j_loader import snapshot

    from paperkg.queries.loader import load_graph
    from paperkg.queries.runner import Neo4jSettings, connect, run_query
    from paperkg.queries.server import free_port, start_local, stop_local

    require_launcher()

    graph_file = seeds_kg.save(tmp_path / "graph.json")
    home = tmp_path / "home"
    result = CliRunner().invoke(cli, ["neo4j", "import", str(graph_file), "--data-dir", str(home)])
    assert result.exit_code == 0, result.output
    assert "IMPORT DONE" in result.output

    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(seeds_kg.graph, settings, progress=False)
    loaded = snapshot(clean_neo4j, settings.database)
    expected_rows = run_query("top_entities", {"k": 3}, settings)

    server = start_local(port=free_port(), data_dir=home, password=TEST_PASSWORD, timeout=180)
    try:
        running = CliRunner().invoke(cli, ["neo4j", "import", str(graph_file), "--data-dir", str(home)])
        assert running.exit_code != 0 and "stop it first" in str(running.exception)
        imported_settings = Neo4jSettings(uri=server.uri, user=server.user, password=TEST_PASSWORD)
        driver = connect(imported_settings)
        try:
            imported = snapshot(driver)
        finally:
            driver.close()
        assert run_query("top_entities", {"k": 3}, imported_settings) == expected_rows
    finally:
        stop_local(data_dir=home)
    assert imported == loaded


def test_import_script_runs_without_neo4j_admin(seeds_kg, tmp_path):
    """The export's import.sh falls back to the launcher's import tool when no neo4j-admin is
    on PATH (PAPERKG_HOME moves the default data dir into the test's folder)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    require_launcher()
    written = write_neo4j_admin(seeds_kg.graph, tmp_path / "csv")
    bin_dir = Path(sys.executable).parent
    path = os.pathsep.join([str(bin_dir)] + [p for p in os.environ["PATH"].split(os.pathsep)
                                             if not (Path(p) / "neo4j-admin").exists()])
    env = {**os.environ, "PATH": path, "PAPERKG_HOME": str(tmp_path / "home"),
           "PAPERKG_NEO4J_IMPORT_JAVA_OPTS": "-Xmx512m"}
    result = subprocess.run(["sh", str(written["import"])], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "IMPORT DONE" in result.stdout
    assert (tmp_path / "home" / "neo4j" / "data" / "data" / "databases" / "neo4j").is_dir()


def test_import_picks_a_delimiter_no_alias_holds(seeds_kg, tmp_path):
    """Real abstracts give aliases with ';' (the export's default delimiter): ``paperkg neo4j
    import GRAPH.json`` then picks another, and the alias arrives whole."""
    from neo4j_fixtures import TEST_PASSWORD

    from paperkg.graph.export import write_node_link
    from paperkg.queries.neo4j_admin import pick_array_delimiter
    from paperkg.queries.runner import Neo4jSettings, connect
    from paperkg.queries.server import free_port, start_local, stop_local

    require_launcher()
    graph = seeds_kg.graph.copy()
    node = next(n for n, a in graph.nodes(data=True) if a["kind"] == "Entity")
    graph.nodes[node]["aliases"] = [*graph.nodes[node]["aliases"], "5 r;ri"]
    assert pick_array_delimiter(graph) == "|"
    graph_file = write_node_link(graph, tmp_path / "graph.json")
    home = tmp_path / "home"
    result = CliRunner().invoke(cli, ["neo4j", "import", str(graph_file), "--data-dir", str(home)])
    assert result.exit_code == 0, result.output
    server = start_local(port=free_port(), data_dir=home, password=TEST_PASSWORD, timeout=180)
    try:
        settings = Neo4jSettings(uri=server.uri, user=server.user, password=TEST_PASSWORD)
        driver = connect(settings)
        try:
            with driver.session() as session:
                aliases = session.run("MATCH (e:Entity {key: $key}) RETURN e.aliases AS a",
                                      key=graph.nodes[node]["key"]).single()["a"]
        finally:
            driver.close()
    finally:
        stop_local(data_dir=home)
    assert aliases == graph.nodes[node]["aliases"]


def test_results_round_trip_through_the_csv_import(results_kg, tmp_path):
    """Real ICML 2024 abstracts with results: graph.json -> the neo4j-admin CSVs -> Neo4j's own
    import tool -> a server on the imported data holds every Result with its properties, as many
    relationships of each type as the graph has edges of that kind, and the derived counts."""
    from neo4j_fixtures import TEST_PASSWORD
    from test_neo4j_loader import expected_counts, graph_result_view, neo4j_result_view

    import paperkg
    from paperkg.queries.loader import database_counts
    from paperkg.queries.runner import Neo4jSettings, connect
    from paperkg.queries.server import free_port, start_local, stop_local

    require_launcher()
    graph_file = results_kg.save(tmp_path / "graph.json")
    graph = paperkg.load(graph_file).graph
    written = write_neo4j_admin(graph, tmp_path / "csv")
    home = tmp_path / "home"
    result = CliRunner().invoke(cli, ["neo4j", "import", str(tmp_path / "csv"), "--data-dir", str(home)])
    assert result.exit_code == 0, result.output
    assert len(read_rows(written["results"])[1]) >= 50
    server = start_local(port=free_port(), data_dir=home, password=TEST_PASSWORD, timeout=180)
    try:
        settings = Neo4jSettings(uri=server.uri, user=server.user, password=TEST_PASSWORD)
        driver = connect(settings)
        try:
            got = neo4j_result_view(driver)
            totals = database_counts(driver, settings)
        finally:
            driver.close()
    finally:
        stop_local(data_dir=home)
    want = graph_result_view(graph)
    assert got["counts"] == want["counts"] and ("MEASURED_BY", "Entity") in got["counts"]
    assert got["results"] == want["results"]
    assert got["slots"] == want["slots"] and got["derived"] == want["derived"]
    assert totals == expected_counts(graph)
