"""Graph building, linking, analytics, exports and persistence."""

import json
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

import paperkg
from paperkg.errors import GraphError, GraphFileError
from paperkg.graph.linking import paper_links


def toy_graph(papers):
    graph = nx.DiGraph()
    for paper, entities in papers.items():
        graph.add_node("paper:" + paper, kind="Paper")
        for entity in entities:
            graph.add_node("entity:" + entity, kind="Entity")
            graph.add_edge("paper:" + paper, "entity:" + entity, kind="HAS")
    return graph


def test_rare_shared_entities_weigh_more():
    # a-b share a rare entity; a-c share only one that every paper has.
    papers = {"a": ["rare", "common"], "b": ["rare", "common"], "c": ["common", "x"], "d": ["common", "x"], "e": ["common", "x", "rare"]}
    links = {(l.source, l.target): l for l in paper_links(toy_graph(papers), top_k=5)}
    assert ("paper:a", "paper:c") not in links
    assert links[("paper:a", "paper:b")].weight > links[("paper:a", "paper:e")].weight
    assert links[("paper:a", "paper:b")].shared == ("rare",)  # "common" has IDF 0: it links nothing


def test_links_are_capped_per_paper():
    papers = {f"p{i:02d}": ["hub", f"g{i % 3}"] for i in range(30)}
    papers["q"] = ["solo"]
    links = list(paper_links(toy_graph(papers), top_k=3))
    degree = {}
    for link in links:
        for end in (link.source, link.target):
            degree[end] = degree.get(end, 0) + 1
    assert max(degree.values()) <= 3
    assert len(links) <= 3 * 31 // 2
    assert not any("paper:q" in (link.source, link.target) for link in links)
    assert all(link.source < link.target for link in links)


def test_seeds_graph_schema(seeds_kg):
    graph = seeds_kg.graph
    kinds = {attrs["kind"] for _, attrs in graph.nodes(data=True)}
    assert kinds == {"Paper", "Entity"}
    for source, target, data in graph.edges(data=True):
        if data["kind"] == "HAS":
            assert data["role"] in ("proposed", "used", "mentioned") and data["count"] >= 1 and data["evidence"]
            abstract = graph.nodes[source]["abstract"]
            for start, end, text in data["mentions"]:
                assert abstract[start:end] == text
        else:
            assert data["kind"] == "RELATED_TO" and source < target and data["weight"] > 0
    for node, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            assert attrs["paper_count"] == sum(1 for _ in graph.predecessors(node))


def test_analytics_on_seeds(seeds_kg):
    datasets = seeds_kg.entities(type="Dataset")
    assert datasets == sorted(datasets, key=lambda r: (-r["paper_count"], r["key"]))
    paper = seeds_kg.papers_with("Atari 100K")[0]["paper_id"]
    similar = seeds_kg.similar_papers(paper, k=5)
    assert similar and all(r["paper_id"] != paper for r in similar)
    assert [r["weight"] for r in similar] == sorted((r["weight"] for r in similar), reverse=True)
    co = seeds_kg.cooccurring("reinforcement learning")
    assert co and all(r["key"] != "reinforcement learning" for r in co)
    groups = seeds_kg.communities()
    assert sorted(p for g in groups for p in g) == sorted(p["paper_id"] for p in seeds_kg.papers())
    with pytest.raises(GraphError, match="no entity named 'no such thing'"):
        seeds_kg.papers_with("no such thing")
    with pytest.raises(GraphError, match="no paper with id 'nope'"):
        seeds_kg.similar_papers("nope")


def test_save_load_round_trip_and_exports(seeds_kg, tmp_path):
    path = seeds_kg.save(tmp_path / "g.json")
    loaded = paperkg.load(path)
    assert nx.utils.graphs_equal(loaded.graph, seeds_kg.graph)
    assert loaded.stats() == seeds_kg.stats()
    graphml = seeds_kg.to_graphml(tmp_path / "g.graphml")
    back = nx.read_graphml(graphml)
    assert back.number_of_nodes() == seeds_kg.graph.number_of_nodes()
    assert back.number_of_edges() == seeds_kg.graph.number_of_edges()
    ET.parse(graphml)
    lines = seeds_kg.to_mentions_jsonl(tmp_path / "m.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 57
    record = json.loads(lines[0])
    assert set(record) >= {"paper_id", "title", "entities"}
    for entity in record["entities"]:
        assert set(entity) >= {"name", "type", "role", "mentions"}


def test_deterministic_files(seeds_dir, seeds_kg, tmp_path, use_model):
    again = paperkg.build([seeds_dir], use_model=use_model, progress=False)
    assert seeds_kg.save(tmp_path / "a.json").read_bytes() == again.save(tmp_path / "b.json").read_bytes()


def test_load_rejects_other_files(tmp_path):
    other = tmp_path / "x.json"
    other.write_text("{}", encoding="utf-8")
    with pytest.raises(GraphFileError, match="not a paperkg graph file"):
        paperkg.load(other)
    with pytest.raises(GraphFileError, match="no such graph file"):
        paperkg.load(tmp_path / "missing.json")
