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
