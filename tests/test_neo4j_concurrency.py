"""Loads running at once converge to one clean load (issue 11, H2): real Neo4j over Bolt.

The campaign's reproduction: two ``paperkg load`` runs at once into an empty database doubled
every relationship (the loader read the existing papers once and CREATEd the relationships of
the others).
"""

from __future__ import annotations

import threading

import pytest
from test_neo4j_loader import expected_counts, snapshot

from paperkg.queries.loader import load_graph
from paperkg.queries.runner import Neo4jSettings


@pytest.fixture()
def settings(neo4j_settings) -> Neo4jSettings:
    return Neo4jSettings.coerce(neo4j_settings)


def load_at_once(graphs, settings, batch_size: int) -> None:
    """Run one load per graph, all released at the same moment; re-raise the first error."""
    barrier = threading.Barrier(len(graphs))
    errors: list[BaseException] = []

    def run(graph) -> None:
        try:
            barrier.wait(timeout=60)
            load_graph(graph, settings, batch_size=batch_size, progress=False)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(g,)) for g in graphs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a load did not finish"
    if errors:
        raise errors[0]


@pytest.mark.parametrize("schema_first", [False, True], ids=["empty", "constraints-exist"])
def test_two_loads_at_once_give_the_counts_of_one(seeds_kg, clean_neo4j, settings, schema_first):
    """Into an empty database (both loaders also create the constraints at once: a deadlock the
    old loader did not retry), and with the constraints already there (the old loader then
    CREATEd every relationship twice, and both loads exited 0)."""
    from neo4j_fixtures import wipe_database

    from paperkg.queries.loader import create_schema

    graph = seeds_kg.graph
    if schema_first:
        create_schema(clean_neo4j, settings)
    load_at_once([graph, graph], settings, batch_size=25)
    concurrent = snapshot(clean_neo4j, settings.database)

    wipe_database(clean_neo4j, settings.database)
    load_graph(graph, settings, progress=False)
    single = snapshot(clean_neo4j, settings.database)
    expected = expected_counts(graph)
    assert (single["nodes"], single["relationships"]) == (expected["nodes"], expected["relationships"])
    assert concurrent == single


def test_loads_of_different_files_at_once_equal_loading_them_one_after_the_other(seeds_kg, clean_neo4j, settings):
    """Each half's entities that the other half lacks risk the other load's orphan sweep."""
    from neo4j_fixtures import wipe_database

    graph = seeds_kg.graph
    papers = [n for n, kind in graph.nodes(data="kind") if kind == "Paper"]
    halves = []
    for part in (papers[::2], papers[1::2]):
        keep = set(part) | {t for p in part for t in graph.successors(p) if graph.nodes[t]["kind"] == "Entity"}
        halves.append(graph.subgraph(keep).copy())
    load_at_once(halves, settings, batch_size=10)
    concurrent = snapshot(clean_neo4j, settings.database)

    wipe_database(clean_neo4j, settings.database)
    for half in halves:
        load_graph(half, settings, progress=False)
    assert concurrent == snapshot(clean_neo4j, settings.database)


#: Papers of the ICML 2024 corpus in all three overlapping graphs, and each graph's own ones.
CORE_PAPERS, OWN_PAPERS = 90, 60


@pytest.fixture(scope="module")
def overlapping_graph_files(shared_data, use_model, tmp_path_factory) -> list:
    """Three builds of real abstracts that share 90 papers: each with 60 other papers (other
    links, other resolution), the second by the rules alone (other entities)."""
    import paperkg
    from paperkg.graph.export import write_node_link

    corpus = shared_data / "corpus" / "icml2024.jsonl"
    if not corpus.is_file():
        pytest.skip(f"{corpus} is absent")
    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    core, start = lines[:CORE_PAPERS], CORE_PAPERS
    folder = tmp_path_factory.mktemp("overlapping")
    files = []
    for name, model in (("a", use_model), ("b", False), ("c", use_model)):
        source = folder / f"{name}.jsonl"
        source.write_text("".join(core + lines[start : start + OWN_PAPERS]), encoding="utf-8")
        start += OWN_PAPERS
        kg = paperkg.build([source], use_model=model, progress=False)
        files.append(write_node_link(kg.graph, folder / f"{name}.graph.json"))
    return files


def paper_entity_relationships(driver, database: str) -> dict[str, frozenset]:
    with driver.session(database=database) as session:
        rows = session.run("MATCH (p:Paper)-[r:PROPOSES|USES|MENTIONS]->(e:Entity) "
                           "RETURN p.id AS paper, collect(type(r) + ':' + e.key) AS rels")
        return {row["paper"]: frozenset(row["rels"]) for row in rows}


def test_three_overlapping_loads_at_once_end_as_one_serial_order(overlapping_graph_files, clean_neo4j, settings):
    """Issue 21 (M4): three ``paperkg load`` processes of builds sharing 90 papers, started at
    once, end in the state of loading the three files one after the other in some order (all 6
    are computed on the emptied database). Without the load lock, each pruned the shared papers
    before the others wrote theirs, and the shared papers kept the relationships of two or three
    files."""
    import itertools
    import os
    import subprocess
    import sys

    from neo4j_fixtures import wipe_database

    from paperkg.graph.export import read_node_link

    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
           "NEO4J_PASSWORD": settings.password, "NEO4J_DATABASE": settings.database}
    cli = [sys.executable, "-c", "from paperkg.cli import main; main()"]
    loads = [subprocess.Popen([*cli, "load", str(path), "--batch-size", "20"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for path in overlapping_graph_files]
    outputs = [load.communicate(timeout=600) for load in loads]
    assert [load.returncode for load in loads] == [0, 0, 0], [err for _, err in outputs]
    concurrent = snapshot(clean_neo4j, settings.database)
    concurrent_rels = paper_entity_relationships(clean_neo4j, settings.database)

    graphs = [read_node_link(path) for path in overlapping_graph_files]
    file_rels = []
    for graph in graphs:
        wipe_database(clean_neo4j, settings.database)
        load_graph(graph, settings, progress=False)
        file_rels.append(paper_entity_relationships(clean_neo4j, settings.database))
    mixed = sorted(p for p, rels in concurrent_rels.items() if rels not in {f[p] for f in file_rels if p in f})
    assert not mixed, f"{len(mixed)} papers hold the relationships of more than one file, e.g. {mixed[:3]}"
    serial = {}
    for order in itertools.permutations(range(3)):
        wipe_database(clean_neo4j, settings.database)
        for index in order:
            load_graph(graphs[index], settings, progress=False)
        serial[order] = snapshot(clean_neo4j, settings.database)
    assert len({s["checksum"] for s in serial.values()}) > 1, "the order does not matter: the graphs do not overlap"
    assert concurrent in serial.values()
    waited = sum("waiting for another paperkg load" in err for _, err in outputs)
    print(f"{waited} of 3 loads said they waited")
