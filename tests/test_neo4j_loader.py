"""The Neo4j loader against a real Neo4j: content, idempotence, incremental loads, a killed load
re-run, Cypher-looking input as plain data, and the connection errors."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import networkx as nx
import pytest

import paperkg
from paperkg.errors import GraphError, Neo4jError
from paperkg.graph.build import ENTITY_PREFIX, PAPER_PREFIX, add_result, add_result_edges
from paperkg.queries.loader import load_graph, prepare_rows
from paperkg.queries.runner import Neo4jSettings, connect
from paperkg.types import Result

ROLE_TYPES = {"proposed": "PROPOSES", "used": "USES", "mentioned": "MENTIONS"}


# --------------------------------------------------------------------------- helpers


def snapshot(driver, database: str = "neo4j") -> dict:
    """Counts of nodes, relationships and properties, and a checksum of everything stored."""
    with driver.session(database=database) as session:
        nodes = [
            json.dumps([sorted(r["labels"]), r["props"]], sort_keys=True, ensure_ascii=False)
            for r in session.run("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
        ]
        rels = [
            json.dumps([r["type"], r["start"], r["end"], r["props"]], sort_keys=True, ensure_ascii=False)
            for r in session.run(
                "MATCH (a)-[r]->(b) RETURN type(r) AS type, coalesce(a.id, a.key) AS start, "
                "coalesce(b.id, b.key) AS end, properties(r) AS props")
        ]
        properties = session.run(
            "CALL () { MATCH (n) RETURN sum(size(keys(n))) AS a } "
            "CALL () { MATCH ()-[r]->() RETURN sum(size(keys(r))) AS b } RETURN a + b AS total").single()["total"]
    digest = hashlib.sha256("\n".join(sorted(nodes) + ["--"] + sorted(rels)).encode()).hexdigest()
    return {"nodes": len(nodes), "relationships": len(rels), "properties": properties, "checksum": digest}


def expected_counts(graph: nx.DiGraph) -> dict:
    """Every node (Paper, Entity, Result) and every edge is one node or relationship in Neo4j."""
    return {"nodes": graph.number_of_nodes(), "relationships": graph.number_of_edges()}


#: The property names of a Result node in Neo4j and the graph attribute each comes from.
RESULT_PROPERTIES = {"paper_id": "paper_id", "index": "index", "value": "value", "start": "start", "end": "end",
                     "number": "number", "upper": "upper", "unit": "unit", "kind": "result_kind",
                     "evidence": "evidence", "direction": "direction"}


def graph_relationship_counts(graph: nx.DiGraph) -> Counter:
    """(relationship type, start node kind) -> count, as the graph's edges are stored in Neo4j
    (MEASURED_BY is both a Result's metric slot and the derived Task -> Metric edge)."""
    return Counter((ROLE_TYPES[d["role"]] if d["kind"] == "HAS" else d["kind"], graph.nodes[u]["kind"])
                   for u, _, d in graph.edges(data=True))


def neo4j_result_view(driver, database: str = "neo4j") -> dict:
    """What Neo4j holds of results: relationship counts as :func:`graph_relationship_counts`
    gives them, the Result nodes' properties by id, and the derived relationships' counts."""
    with driver.session(database=database) as session:
        counts = Counter({(r["t"], r["start"]): r["n"] for r in session.run(
            "MATCH (a)-[r]->() RETURN type(r) AS t, CASE WHEN a:Result THEN 'Result' WHEN a:Paper THEN 'Paper' "
            "ELSE 'Entity' END AS start, count(*) AS n")})
        results = {r["id"]: r["props"] for r in session.run("MATCH (r:Result) RETURN r.id AS id, properties(r) AS props")}
        derived = {(r["a"], r["t"], r["b"]): r["n"] for r in session.run(
            "MATCH (a:Entity)-[r:EVALUATED_ON|ADDRESSES|MEASURED_BY]->(b:Entity) "
            "RETURN a.key AS a, type(r) AS t, b.key AS b, r.count AS n")}
        slots = {(r["id"], r["t"], r["key"]) for r in session.run(
            "MATCH (r:Result)-[s]->(e:Entity) RETURN r.id AS id, type(s) AS t, e.key AS key")}
    return {"counts": counts, "results": results, "derived": derived, "slots": slots}


def graph_result_view(graph: nx.DiGraph) -> dict:
    """The same view read from the graph: what every load or import of it must give."""
    results = {node: {name: attrs[source] for name, source in RESULT_PROPERTIES.items() if attrs.get(source) is not None}
               | {"id": node} for node, attrs in graph.nodes(data=True) if attrs["kind"] == "Result"}
    derived = {(graph.nodes[u]["key"], d["kind"], graph.nodes[v]["key"]): d["count"]
               for u, v, d in graph.edges(data=True) if graph.nodes[u]["kind"] == "Entity"}
    slots = {(u, d["kind"], graph.nodes[v]["key"]) for u, v, d in graph.edges(data=True)
             if graph.nodes[u]["kind"] == "Result"}
    return {"counts": graph_relationship_counts(graph), "results": results, "derived": derived, "slots": slots}


def tiny_graph(papers: dict[str, dict], entities: dict[str, dict], has: list[tuple], links: list[tuple] = ()) -> nx.DiGraph:
    """A graph in paperkg's schema from plain dicts (for hand-made edge cases)."""
    graph = nx.DiGraph()
    for pid, attrs in papers.items():
        graph.add_node(PAPER_PREFIX + pid, kind="Paper", paper_id=pid, label=attrs.get("label", pid),
                       title=attrs.get("title"), abstract=attrs.get("abstract", "An abstract."), venue=attrs.get("venue"),
                       year=attrs.get("year"), url=attrs.get("url"), authors=attrs.get("authors", []), source="t", line=1)
    for key, attrs in entities.items():
        graph.add_node(ENTITY_PREFIX + key, kind="Entity", type=attrs["type"], key=key, name=attrs.get("name", key),
                       aliases=attrs.get("aliases", []), paper_count=0)
    for pid, key, role, evidence in has:
        graph.add_edge(PAPER_PREFIX + pid, ENTITY_PREFIX + key, kind="HAS", role=role, count=1, evidence=evidence,
                       evidence_offset=0, mentions=[[0, 1, "x"]])
    for node, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            attrs["paper_count"] = graph.in_degree(node)
    for a, b, weight, shared in links:
        graph.add_edge(PAPER_PREFIX + a, PAPER_PREFIX + b, kind="RELATED_TO", weight=weight, shared=shared)
    return graph


def with_results(graph: nx.DiGraph, results: dict[str, list[Result]]) -> nx.DiGraph:
    """``graph`` with each paper's results (its Result nodes, slots and the derived edges)."""
    for pid, rows in results.items():
        for index, result in enumerate(rows):
            add_result(graph, pid, index, result)
    return add_result_edges(graph)


@pytest.fixture()
def settings(neo4j_settings) -> Neo4jSettings:
    return Neo4jSettings.coerce(neo4j_settings)


# --------------------------------------------------------------------------- settings (no server)


def test_settings_from_env_and_overrides():
    env = {"NEO4J_URI": "bolt://db:7999", "NEO4J_USER": "alice", "NEO4J_PASSWORD": "secret123", "NEO4J_DATABASE": "kg"}
    s = Neo4jSettings.from_env(env)
    assert (s.uri, s.user, s.password, s.database) == ("bolt://db:7999", "alice", "secret123", "kg")
    s = Neo4jSettings.from_env(env, uri="bolt://other:7687", password="override1", user=None)
    assert (s.uri, s.user, s.password, s.database) == ("bolt://other:7687", "alice", "override1", "kg")
    s = Neo4jSettings.from_env({})
    assert (s.uri, s.user, s.password, s.database) == ("bolt://localhost:7687", "neo4j", None, "neo4j")
    assert "secret123" not in repr(Neo4jSettings.from_env(env))


def test_not_running_is_one_clear_line():
    from paperkg.queries.server import free_port

    uri = f"bolt://127.0.0.1:{free_port()}"
    with pytest.raises(Neo4jError) as info:
        load_graph(tiny_graph({"p": {}}, {}, []), Neo4jSettings(uri=uri, password="whatever1"), progress=False)
    message = str(info.value)
    assert "\n" not in message
    assert uri in message and "paperkg neo4j start" in message and "docker compose up -d --wait" in message


def test_cli_not_running_exits_with_the_message(tmp_path):
    from paperkg.queries.server import free_port

    path = paperkg.KnowledgeGraph(tiny_graph({"p": {}}, {}, [])).save(tmp_path / "g.json")
    uri = f"bolt://127.0.0.1:{free_port()}"
    result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "load", str(path),
                             "--uri", uri, "--password", "whatever1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: cannot connect to Neo4j at {uri}")
    assert "Traceback" not in result.stderr


def test_closed_label_set_is_enforced_before_any_write():
    bad_type = tiny_graph({"p": {}}, {"x": {"type": "Method:Admin"}}, [("p", "x", "used", "e")])
    with pytest.raises(GraphError, match="not one of"):
        prepare_rows(bad_type)
    bad_role = tiny_graph({"p": {}}, {"x": {"type": "Method"}}, [("p", "x", "owns}) DETACH DELETE n //", "e")])
    with pytest.raises(GraphError, match="role"):
        prepare_rows(bad_role)
    with pytest.raises(GraphError, match="batch size"):
        load_graph(tiny_graph({"p": {}}, {}, []), Neo4jSettings(), batch_size=0)


# --------------------------------------------------------------------------- against Neo4j


def test_wrong_password_is_an_authentication_error(neo4j_driver, settings):
    wrong = Neo4jSettings(uri=settings.uri, user=settings.user, password=settings.password + "-wrong",
                          database=settings.database)
    with pytest.raises(Neo4jError) as info:
        connect(wrong)
    message = str(info.value)
    assert "authentication failed" in message and settings.uri in message and "\n" not in message
    assert wrong.password not in message


def test_load_writes_the_graph(seeds_kg, clean_neo4j, settings):
    graph = seeds_kg.graph
    report = load_graph(graph, settings, batch_size=50, progress=False)
    expected = expected_counts(graph)
    assert report.database_counts == expected
    assert report.nodes == expected["nodes"] and report.relationships == expected["relationships"]
    with clean_neo4j.session(database=settings.database) as session:
        constraints = {r["name"] for r in session.run("SHOW CONSTRAINTS YIELD name")}
        assert {"paperkg_paper_id", "paperkg_entity_key", "paperkg_method_key", "paperkg_dataset_key",
                "paperkg_benchmark_key", "paperkg_task_key", "paperkg_metric_key"} <= constraints
        labels = Counter(r["label"] for r in session.run("MATCH (e:Entity) RETURN [l IN labels(e) WHERE l <> 'Entity'][0] AS label"))
        types = Counter(r["t"] for r in session.run("MATCH (:Paper)-[r]->(:Entity) RETURN type(r) AS t"))
        entities = {r["key"]: r for r in session.run("MATCH (e:Entity) RETURN e.key AS key, e.type AS type, e.name AS name, "
                                                     "e.aliases AS aliases, e.paper_count AS paper_count")}
        paper = session.run("MATCH (p:Paper) RETURN p ORDER BY p.id LIMIT 1").single()["p"]
        confidences = {(r["p"], r["k"]): r["c"] for r in session.run(
            "MATCH (p:Paper)-[r]->(e:Entity) RETURN p.id AS p, e.key AS k, r.confidence AS c")}
    assert labels == Counter(a["type"] for _, a in graph.nodes(data=True) if a["kind"] == "Entity")
    assert types == Counter(ROLE_TYPES[d["role"]] for *_, d in graph.edges(data=True) if d["kind"] == "HAS")
    for _, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            row = entities[attrs["key"]]
            assert (row["type"], row["name"], row["aliases"] or [], row["paper_count"]) == (
                attrs["type"], attrs["name"], attrs["aliases"], attrs["paper_count"])
            assert row["aliases"] != []  # empty lists are not stored, as with neo4j-admin import
    assert confidences == {(graph.nodes[u]["paper_id"], graph.nodes[v]["key"]): d.get("confidence")
                           for u, v, d in graph.edges(data=True) if d["kind"] == "HAS"}
    source = graph.nodes[PAPER_PREFIX + paper["id"]]
    for key in ("title", "abstract", "venue", "year", "url", "label"):
        assert paper.get(key) == source.get(key)
    assert paper["community"] == source["community"]  # the graph's own community (int, -1 without links)


def test_reload_changes_nothing(seeds_kg, clean_neo4j, settings):
    load_graph(seeds_kg.graph, settings, batch_size=40, progress=False)
    first = snapshot(clean_neo4j, settings.database)
    load_graph(seeds_kg.graph, settings, batch_size=40, progress=False)
    assert snapshot(clean_neo4j, settings.database) == first
    load_graph(seeds_kg.graph, settings, batch_size=10_000, progress=False)  # another batch size: same graph
    assert snapshot(clean_neo4j, settings.database) == first
    assert first["nodes"] == expected_counts(seeds_kg.graph)["nodes"]


def test_cypher_looking_text_loads_as_plain_data(clean_neo4j, settings):
    nasty = "x'}) DETACH DELETE n //"
    texts = {
        "title": 'A "quoted" title }) MATCH (n) DETACH DELETE n //',
        "abstract": "Braces {a: 1}, $rows, `backticks`, \\ backslash,\nnewline and ' quote; CALL db.clear()",
        "venue": "ICML'); DROP",
        "authors": ["O'Brien", 'Eve "}) DETACH DELETE n //'],
    }
    graph = tiny_graph(
        {"p1": {**texts, "label": "}) DETACH DELETE n //", "year": 2024}, 'p2"}) //': {"title": "`evil`"}},
        {nasty: {"type": "Method", "name": "}) RETURN 1 //", "aliases": ["a;b", "{x}", "$rows"]},
         "cifar10": {"type": "Dataset", "name": "CIFAR-10"}},
        [("p1", nasty, "proposed", "We propose x'}) DETACH DELETE n //."), ("p1", "cifar10", "used", '"}) //'),
         ('p2"}) //', "cifar10", "mentioned", "MATCH (n) DETACH DELETE n")],
        [("p1", 'p2"}) //', 0.5, [ENTITY_PREFIX + "cifar10", nasty])],
    )
    with clean_neo4j.session(database=settings.database) as session:
        session.run("CREATE (:Sentinel {name: 'still here'})").consume()
    load_graph(graph, settings, batch_size=1, progress=False)
    with clean_neo4j.session(database=settings.database) as session:
        assert session.run("MATCH (s:Sentinel) RETURN count(s) AS c").single()["c"] == 1
        p1 = session.run("MATCH (p:Paper {id: 'p1'}) RETURN p").single()["p"]
        entity = session.run("MATCH (e:Method {key: $k}) RETURN e", k=nasty).single()["e"]
        rel = session.run("MATCH (:Paper {id: 'p1'})-[r:PROPOSES]->(e:Entity) RETURN r, e.key AS key").single()
        link = session.run("MATCH (:Paper)-[r:RELATED_TO]->(:Paper) RETURN r").single()["r"]
        total = session.run("MATCH (n) RETURN count(n) AS c").single()["c"]
    assert total == 5  # 2 papers, 2 entities, the sentinel
    assert p1["title"] == texts["title"] and p1["abstract"] == texts["abstract"] and p1["venue"] == texts["venue"]
    assert p1["authors"] == texts["authors"] and p1["label"] == "}) DETACH DELETE n //"
    assert entity["name"] == "}) RETURN 1 //" and entity["aliases"] == ["a;b", "{x}", "$rows"]
    assert rel["key"] == nasty and rel["r"]["evidence"] == "We propose x'}) DETACH DELETE n //."
    assert link["shared"] == ["cifar10", nasty]


def test_incremental_loads_add_and_recount(seeds_dir, use_model, clean_neo4j, settings):
    files = sorted(seeds_dir.glob("*.txt"))
    assert len(files) >= 3
    first = paperkg.build(files[:2], use_model=use_model, progress=False).graph
    second = paperkg.build(files[1:], use_model=use_model, progress=False).graph
    load_graph(first, settings, progress=False)
    load_graph(second, settings, progress=False)

    # Expected: the second file is the truth for its papers; first-only papers keep theirs.
    def papers(graph):
        return {a["paper_id"] for _, a in graph.nodes(data=True) if a["kind"] == "Paper"}

    def has(graph, keep):
        return {(graph.nodes[u]["paper_id"], graph.nodes[v]["key"], ROLE_TYPES[d["role"]])
                for u, v, d in graph.edges(data=True) if d["kind"] == "HAS" and graph.nodes[u]["paper_id"] in keep}

    def links(graph):
        return {tuple(sorted((graph.nodes[u]["paper_id"], graph.nodes[v]["paper_id"])))
                for u, v, d in graph.edges(data=True) if d["kind"] == "RELATED_TO"}

    in_second = papers(second)
    all_papers = papers(first) | in_second
    want_has = has(second, in_second) | has(first, papers(first) - in_second)
    want_links = {l for l in links(first) if not (l[0] in in_second and l[1] in in_second)} | links(second)
    want_counts = Counter(key for _, key, _ in want_has)
    assert papers(first) - in_second and in_second - papers(first) and papers(first) & in_second

    with clean_neo4j.session(database=settings.database) as session:
        got_papers = {r["id"] for r in session.run("MATCH (p:Paper) RETURN p.id AS id")}
        got_has = {(r["p"], r["e"], r["t"]) for r in session.run(
            "MATCH (p:Paper)-[r]->(e:Entity) RETURN p.id AS p, e.key AS e, type(r) AS t")}
        got_links = {tuple(sorted((r["a"], r["b"]))) for r in session.run(
            "MATCH (a:Paper)-[:RELATED_TO]->(b:Paper) RETURN a.id AS a, b.id AS b")}
        got_counts = {r["key"]: r["n"] for r in session.run("MATCH (e:Entity) RETURN e.key AS key, e.paper_count AS n")}
    assert got_papers == all_papers
    assert got_has == want_has
    assert got_links == want_links
    assert got_counts == dict(want_counts)  # recomputed in Neo4j; no entity without papers remains


def test_reextraction_replaces_a_papers_relationships(clean_neo4j, settings):
    before = tiny_graph({"p": {}, "q": {}}, {"a": {"type": "Method"}, "b": {"type": "Task"}},
                        [("p", "a", "used", "e1"), ("p", "b", "used", "e2"), ("q", "a", "used", "e3")],
                        [("p", "q", 0.4, ["entity:a"])])
    after = tiny_graph({"p": {}, "q": {}}, {"a": {"type": "Dataset"}},
                       [("p", "a", "proposed", "e4"), ("q", "a", "used", "e3")])
    load_graph(before, settings, progress=False)
    load_graph(after, settings, progress=False)
    with clean_neo4j.session(database=settings.database) as session:
        rows = sorted((r["p"], r["t"], r["e"]) for r in session.run(
            "MATCH (p:Paper)-[r]->(e) RETURN p.id AS p, type(r) AS t, coalesce(e.key, e.id) AS e"))
        entity = session.run("MATCH (e:Entity) RETURN labels(e) AS labels, e.paper_count AS n, e.type AS type").data()
    assert rows == [("p", "PROPOSES", "a"), ("q", "USES", "a")]  # b is gone, the p-q link is gone
    assert len(entity) == 1 and sorted(entity[0]["labels"]) == ["Dataset", "Entity"]
    assert entity[0]["n"] == 2 and entity[0]["type"] == "Dataset"


def test_killed_load_rerun_gives_the_uninterrupted_graph(seeds_kg, clean_neo4j, settings, tmp_path):
    graph = seeds_kg.graph
    path = seeds_kg.save(tmp_path / "graph.json")
    expected = expected_counts(graph)
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user, "NEO4J_PASSWORD": settings.password,
           "NEO4J_DATABASE": settings.database}
    cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", "load", str(path), "--batch-size", "1", "--no-progress"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    partial = None
    try:
        deadline = time.monotonic() + 120
        with clean_neo4j.session(database=settings.database) as session:
            while time.monotonic() < deadline and proc.poll() is None:
                if session.run("MATCH (p:Paper) RETURN count(p) AS c").single()["c"] >= 5:
                    os.killpg(proc.pid, signal.SIGKILL)
                    break
                time.sleep(0.02)
        proc.wait(timeout=60)
        partial = snapshot(clean_neo4j, settings.database)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    assert partial["relationships"] < expected["relationships"], "the load finished before it was killed"

    load_graph(graph, settings, batch_size=7, progress=False)  # the re-run
    rerun = snapshot(clean_neo4j, settings.database)

    from neo4j_fixtures import wipe_database

    wipe_database(clean_neo4j, settings.database)
    load_graph(graph, settings, progress=False)  # uninterrupted
    assert rerun == snapshot(clean_neo4j, settings.database)
    assert (rerun["nodes"], rerun["relationships"]) == (expected["nodes"], expected["relationships"])


def test_results_round_trip_with_equal_counts(results_kg, clean_neo4j, settings, tmp_path):
    """Real ICML 2024 abstracts with results: graph.json -> load -> Neo4j holds every Result with
    its properties, as many relationships of each type as the graph has edges of that kind, the
    same slots, and the derived entity-entity relationships with the graph's counts."""
    graph = paperkg.load(results_kg.save(tmp_path / "graph.json")).graph
    want = graph_result_view(graph)
    assert len(want["results"]) >= 50 and {kind for kind, _ in want["counts"]} >= {
        "REPORTS", "ON_DATASET", "MEASURED_BY", "ACHIEVED_BY", "FOR_TASK", "EVALUATED_ON", "ADDRESSES"}
    assert ("MEASURED_BY", "Entity") in want["counts"] and ("MEASURED_BY", "Result") in want["counts"]
    report = load_graph(graph, settings, batch_size=25, progress=False)
    assert report.results == len(want["results"]) and report.database_counts == expected_counts(graph)
    got = neo4j_result_view(clean_neo4j, settings.database)
    assert got["counts"] == want["counts"]
    assert got["results"] == want["results"]
    assert got["slots"] == want["slots"] and got["derived"] == want["derived"]
    first = snapshot(clean_neo4j, settings.database)
    load_graph(graph, settings, progress=False)  # a re-load changes nothing, results included
    assert snapshot(clean_neo4j, settings.database) == first


def test_reloaded_paper_loses_its_stale_results(clean_neo4j, settings):
    """A paper's re-extraction is the truth for its results: a result it no longer has is
    deleted with its relationships, a slot bound elsewhere moves, changed values are rewritten,
    and the derived counts are recomputed over every load's results (q's stay)."""
    entities = {"m": {"type": "Method"}, "d1": {"type": "Dataset"}, "d2": {"type": "Dataset"},
                "acc": {"type": "Metric"}, "cls": {"type": "Task"}}
    has = [("p", key, "used", "e") for key in entities] + [("q", "m", "used", "e"), ("q", "d1", "used", "e"),
                                                           ("q", "acc", "used", "e")]

    def score(text, dataset, task=None):
        return Result(0, len(text), text, float(text.rstrip("%")), "%", "score", "acc", dataset, "m", task, "s.")

    before = with_results(tiny_graph({"p": {}, "q": {}}, entities, has), {
        "p": [score("76%", "d1", "cls"), Result(5, 7, "2x", 2.0, "x", "gain", None, "d2", "m", None, "t.")],
        "q": [score("80%", "d1")]})
    after = with_results(tiny_graph({"p": {}}, entities, [h for h in has if h[0] == "p"]),
                         {"p": [score("77%", "d2")]})
    load_graph(before, settings, progress=False)
    assert neo4j_result_view(clean_neo4j, settings.database)["derived"] == {
        ("m", "EVALUATED_ON", "d1"): 2, ("m", "EVALUATED_ON", "d2"): 1, ("m", "ADDRESSES", "cls"): 1,
        ("cls", "MEASURED_BY", "acc"): 1}
    load_graph(after, settings, progress=False)
    got = neo4j_result_view(clean_neo4j, settings.database)
    assert set(got["results"]) == {"result:p:0", "result:q:0"}
    assert got["results"]["result:p:0"]["value"] == "77%" and got["results"]["result:p:0"]["number"] == 77.0
    assert got["slots"] == {("result:p:0", "ON_DATASET", "d2"), ("result:p:0", "MEASURED_BY", "acc"),
                            ("result:p:0", "ACHIEVED_BY", "m"), ("result:q:0", "ON_DATASET", "d1"),
                            ("result:q:0", "MEASURED_BY", "acc"), ("result:q:0", "ACHIEVED_BY", "m")}
    assert got["derived"] == {("m", "EVALUATED_ON", "d1"): 1, ("m", "EVALUATED_ON", "d2"): 1}
    assert got["counts"][("REPORTS", "Paper")] == 2


def test_a_result_without_its_paper_is_refused():
    graph = with_results(tiny_graph({"p": {}}, {}, []), {"p": [Result(0, 2, "5x", 5.0, "x", "gain", None, None, None,
                                                                        None, "s.")]})
    graph.remove_node(PAPER_PREFIX + "p")
    with pytest.raises(GraphError, match="which the graph lacks"):
        prepare_rows(graph)
