"""Issue 21 M5: an entity name of ~9 KB ("We propose ZqZq...Net") made its key ~9 KB, and
``paperkg load`` failed for the whole corpus ("Property value is too large to index"). Keys are
bounded (the first characters and a digest of the whole), the name is kept in full, and the
loader never sends an indexed value Neo4j cannot index."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from conftest import EXAMPLES

import paperkg
from paperkg.errors import GraphError
from paperkg.extract.nlp.normalize import MAX_KEY_CHARS, bound_key, normalize_key
from paperkg.graph.build import ENTITY_PREFIX, PAPER_PREFIX
from paperkg.queries.loader import MAX_INDEXED_BYTES, load_graph, prepare_rows
from paperkg.queries.runner import Neo4jSettings

LONG = "Zq" * 4500 + "Net"
ABSTRACT = f"We propose {LONG}, a network for image classification on CIFAR-10."


def test_a_long_name_has_a_bounded_key_that_is_its_own_key():
    key = normalize_key(LONG)
    assert len(key) == MAX_KEY_CHARS + 18 and key.startswith("zqzq") and key[-18:-16] == " #"
    assert normalize_key(key) == key == bound_key(key)  # keys are normalized again downstream
    assert normalize_key(LONG + "Net") != key  # distinct long names, distinct keys
    assert normalize_key("Zq" * 4500 + "net") == key  # variants of one name still unify
    assert normalize_key("Soft Actor-Critic") == "soft actor critic"  # short keys unchanged


def test_a_name_faking_the_digest_tail_is_still_bounded():
    fake = "a" * 9000 + " #0123456789abcdef"
    assert len(normalize_key(fake)) == MAX_KEY_CHARS + 18 and normalize_key(fake) != fake


@pytest.fixture(scope="module")
def long_kg(tmp_path_factory, use_model):
    path = tmp_path_factory.mktemp("long") / "long.jsonl"
    path.write_text(json.dumps({"id": "long", "abstract": ABSTRACT}) + "\n", encoding="utf-8")
    # Every entity kept: the NER's whole 9,003-character word is found once, beside the rules'
    # capped name, and its confidence is under the default cut.
    return paperkg.build([path, EXAMPLES / "abstracts.txt"], use_model=use_model, progress=False, min_confidence=0.0)


def test_a_build_bounds_every_key_and_keeps_the_name(long_kg, use_model):
    entities = [a for _, a in long_kg.graph.nodes(data=True) if a["kind"] == "Entity"]
    assert max(len(a["key"]) for a in entities) <= MAX_KEY_CHARS + 18
    assert all(len(k) <= MAX_KEY_CHARS + 18 for a in entities for k in a["alias_keys"])
    longest = max(entities, key=lambda a: len(a["name"]))
    assert len(longest["name"]) > 250 and longest["key"] == normalize_key(longest["name"])
    if use_model:  # the NER's span is the whole word; the rules cap a name at 300 characters
        assert longest["name"] == LONG


def test_the_loader_bounds_the_long_key_of_an_older_graph():
    old = "zq" * 4500 + "net"  # as an older paperkg wrote it
    graph = nx.DiGraph()
    graph.add_node(PAPER_PREFIX + "p", kind="Paper", paper_id="p", label="p", abstract=ABSTRACT)
    graph.add_node(ENTITY_PREFIX + old, kind="Entity", type="Method", key=old, name=LONG, paper_count=1)
    graph.add_edge(PAPER_PREFIX + "p", ENTITY_PREFIX + old, kind="HAS", role="proposed", count=1, evidence=ABSTRACT)
    rows = prepare_rows(graph)
    (entity,) = rows.entities["Method"]
    assert entity["key"] == normalize_key(LONG) and entity["alias_keys"] == [entity["key"]] and entity["name"] == LONG
    assert rows.relationships["proposed"][0]["key"] == entity["key"]
    assert rows.prune_entities[0]["keep"] == ["PROPOSES:" + entity["key"]]


def test_an_id_neo4j_cannot_index_is_one_line_before_anything_is_sent():
    pid = "p" * (MAX_INDEXED_BYTES + 1)
    graph = nx.DiGraph()
    graph.add_node(PAPER_PREFIX + pid, kind="Paper", paper_id=pid, label="p", abstract="An abstract.")
    with pytest.raises(GraphError, match=r"its id is 4,001 bytes, over the 4,000 Neo4j can index; nothing was loaded"):
        prepare_rows(graph)
    # prepare_rows runs before the loader connects: no server at this address is needed.
    with pytest.raises(GraphError, match="nothing was loaded"):
        load_graph(graph, Neo4jSettings(uri="bolt://127.0.0.1:9", user="neo4j", password="x"), progress=False)


def test_a_corpus_with_a_long_name_loads(long_kg, clean_neo4j, neo4j_settings):
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(long_kg.graph, settings, progress=False)
    with clean_neo4j.session(database=settings.database) as session:
        papers = session.run("MATCH (p:Paper) RETURN count(p) AS c").single()["c"]
        rows = session.run("MATCH (:Paper {id: 'long'})-[:PROPOSES]->(e:Entity) RETURN e.key AS key, e.name AS name "
                           "ORDER BY size(e.name) DESC").data()
    assert papers == 9
    assert rows and len(rows[0]["key"]) == MAX_KEY_CHARS + 18 and len(rows[0]["name"]) > 250
