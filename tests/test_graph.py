"""Graph building, linking, analytics, exports and persistence."""

import json
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

import paperkg
from paperkg.errors import GraphError, GraphFileError
from paperkg.graph.build import PAPER_PREFIX
from paperkg.graph.linking import paper_links
from paperkg.types import RESULT_EDGES


def toy_graph(papers):
    graph = nx.DiGraph()
    for paper, entities in papers.items():
        graph.add_node("paper:" + paper, kind="Paper")
        for entity in entities:
            graph.add_node("entity:" + entity.lower(), kind="Entity", key=entity.lower(), name=entity, type="Method")
            graph.add_edge("paper:" + paper, "entity:" + entity.lower(), kind="HAS", role="used", count=1)
    return graph


def test_rare_shared_entities_weigh_more():
    # a-b share a rare named entity; a-c share only one that every paper has.
    papers = {"a": ["RareNet", "common"], "b": ["RareNet", "common"], "c": ["common", "x"], "d": ["common", "x"],
              "e": ["common", "x", "RareNet"]}
    links = {(l.source, l.target): l for l in paper_links(toy_graph(papers), top_k=5)}
    assert ("paper:a", "paper:c") not in links
    assert links[("paper:a", "paper:b")].weight > links[("paper:a", "paper:e")].weight
    assert links[("paper:a", "paper:b")].shared == ("rarenet",)  # "common" has IDF 0: it links nothing


def test_links_are_capped_per_paper():
    papers = {f"p{i:02d}": ["HubNet", f"G{i % 3}Set"] for i in range(30)}
    papers["q"] = ["SoloNet"]
    links = list(paper_links(toy_graph(papers), top_k=3))
    degree = {}
    for link in links:
        for end in (link.source, link.target):
            degree[end] = degree.get(end, 0) + 1
    assert max(degree.values()) <= 3
    assert len(links) <= 3 * 31 // 2
    assert not any("paper:q" in (link.source, link.target) for link in links)
    assert all(link.source < link.target for link in links)


def test_umbrella_only_pair_is_not_linked():
    # Each pair shares one entity: an umbrella term, a broad family in passing, one plain phrase,
    # and then two plain phrases, one rare named dataset, a family central to both papers.
    filler = {f"f{i:02d}": ["machine learning", "diffusion model", f"Other{i}Net"] for i in range(20)}
    papers = {
        "u1": ["machine learning", "U1Net"], "u2": ["machine learning", "U2Net"],
        "m1": ["diffusion model", "M1Net"], "m2": ["diffusion model", "M2Net"],
        "d1": ["contrastive loss", "D1Net"], "d2": ["contrastive loss", "D2Net"],
        "t1": ["contrastive loss", "sparse coding", "T1Net"], "t2": ["contrastive loss", "sparse coding", "T2Net"],
        "r1": ["MuJoCo", "R1Net"], "r2": ["MuJoCo", "R2Net"],
        **filler,
    }
    graph = toy_graph(papers)
    for paper in ("c1", "c2"):
        graph.add_node("paper:" + paper, kind="Paper", title="Diffusion Models Beat Everything")
        graph.add_edge("paper:" + paper, "entity:diffusion model", kind="HAS", role="used", count=1)
    links = {(l.source[6:], l.target[6:]): l for l in paper_links(graph, top_k=5)}
    assert ("u1", "u2") not in links and ("m1", "m2") not in links and ("d1", "d2") not in links
    assert ("t1", "t2") in links and ("r1", "r2") in links and ("c1", "c2") in links
    assert not any("machine learning" in l.shared and len(l.shared) == 1 for l in links.values())
    link = links[("r1", "r2")]
    assert link.reason == "shared: MuJoCo (method, 2 papers)"
    assert link.evidence == ({"key": "mujoco", "name": "MuJoCo", "type": "Method", "papers": 2,
                              "contribution": link.weight},)
    two = links[("t1", "t2")]
    assert abs(sum(e["contribution"] for e in two.evidence) - two.weight) < 1e-5


def test_seeds_graph_schema(seeds_kg):
    graph = seeds_kg.graph
    kinds = {attrs["kind"] for _, attrs in graph.nodes(data=True)}
    assert kinds == {"Paper", "Entity", "Result"}, "the seeds report results"
    slot_kinds = set(RESULT_EDGES.values())
    for source, target, data in graph.edges(data=True):
        pair = (graph.nodes[source]["kind"], graph.nodes[target]["kind"])
        if data["kind"] == "HAS":
            assert pair == ("Paper", "Entity")
            assert data["role"] in ("proposed", "used", "mentioned") and data["count"] >= 1 and data["evidence"]
            abstract = graph.nodes[source]["abstract"]
            for start, end, text in data["mentions"]:
                assert abstract[start:end] == text
        elif data["kind"] == "REPORTS":
            assert pair == ("Paper", "Result") and graph.nodes[target]["paper_id"] == graph.nodes[source]["paper_id"]
        elif pair == ("Result", "Entity"):
            assert data["kind"] in slot_kinds
            # a slot names one of the paper's own entities
            assert graph.has_edge(PAPER_PREFIX + graph.nodes[source]["paper_id"], target)
        elif pair == ("Entity", "Entity"):
            assert data["kind"] in ("EVALUATED_ON", "ADDRESSES", "MEASURED_BY") and data["count"] >= 1
        else:
            assert data["kind"] == "RELATED_TO" and pair == ("Paper", "Paper") and source < target and data["weight"] > 0
    for node, attrs in graph.nodes(data=True):
        if attrs["kind"] == "Entity":
            assert attrs["paper_count"] == sum(1 for p in graph.predecessors(node) if graph.nodes[p]["kind"] == "Paper")
        elif attrs["kind"] == "Result":
            abstract = graph.nodes[PAPER_PREFIX + attrs["paper_id"]]["abstract"]
            assert abstract[attrs["start"]:attrs["end"]] == attrs["value"] and attrs["value"] in attrs["evidence"]
            assert attrs["result_kind"] in ("score", "gain") and attrs["unit"] in ("%", "x", "points", "absolute")


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


def test_graph_keeps_one_object_per_repeated_value_of_the_same_type():
    # The records arrive unpickled, every value a new object: the graph keeps one per distinct
    # value (the build's memory at 95k papers), yet a count of 1 stays an int and a confidence
    # of 1.0 a float, and two sentences of one paper that are equal stay one.
    import pickle

    from paperkg.graph.build import add_extractions
    from paperkg.types import Extraction, Mention, Paper, PaperEntity

    def extraction(pid):
        text = "Words. " * 43 + "SAC beats PPO on MuJoCo."  # offsets past Python's cached small ints
        entities = tuple(PaperEntity(key, name, "Method", "used", (Mention(start, end, name, "Method", key, "used", text),),
                                     text, confidence=1.0) for key, name, start, end in (("sac", "SAC", 301, 304), ("ppo", "PPO", 311, 314)))
        return pickle.loads(pickle.dumps(Extraction(Paper(pid, text), pid, entities)))

    graph = add_extractions(nx.DiGraph(), [extraction("a"), extraction("b")])
    a, b = graph.edges["paper:a", "entity:sac"], graph.edges["paper:b", "entity:sac"]
    assert a == b and a["mentions"] == [[301, 304, "SAC"]]
    assert all(x is y for x, y in zip(a["mentions"][0], b["mentions"][0]))
    assert a["evidence"] is graph.edges["paper:a", "entity:ppo"]["evidence"]
    assert type(a["count"]) is int and type(a["confidence"]) is float and a["confidence"] is b["confidence"]
