"""Every export is valid for its format on any input, and reads back (issue 11, H1 and H3).

The campaign's reproductions: the ICML 2024 GraphML did not parse (paper 5zXTwX92qv has a
``\\x08`` in its abstract; NUL, ``\\x01``, ``\\x0b``, ``\\x0c``, ``\\x1b``, ``\\ufffe``,
``\\uffff`` did the same), and a ``graph.json`` holding a lone surrogate crashed ``load`` and
``export``.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import networkx as nx
import pytest

import paperkg
from paperkg.graph.export import XML_ILLEGAL, write_graphml
from paperkg.graph.export_set import MANIFEST, read_manifest, verify

HOSTILE = "N\x00U\x01L\x08 \x0b\x0c\x1b\x7f \ufffe\uffff lone \udc80 cr\r\nlf\ttab \U0001F600 & <tag> \"q\""


def hostile_graph() -> nx.DiGraph:
    graph = nx.DiGraph(paperkg_schema=1)
    graph.add_node("paper:p\x01", kind="Paper", paper_id="p\x01", label=HOSTILE, title=HOSTILE, abstract=HOSTILE,
                   venue="V", year=2024, url=None, authors=[HOSTILE, "B"], source="s", line=1)
    graph.add_node("paper:q", kind="Paper", paper_id="q", label="q", title=None, abstract="Q uses Foo.", venue=None,
                   year=None, url=None, authors=[], source="s", line=2)
    graph.add_node("entity:foo\x00net", kind="Entity", type="Method", key="foo\x00net", name="Foo\x00Net",
                   aliases=["F\x1bN"], paper_count=2)
    for paper in ("paper:p\x01", "paper:q"):
        graph.add_edge(paper, "entity:foo\x00net", kind="HAS", role="used", count=1, evidence=HOSTILE,
                       evidence_offset=0, mentions=[[0, 3, "N\x00U"]])
    graph.add_edge("paper:p\x01", "paper:q", kind="RELATED_TO", weight=0.5, shared=["entity:foo\x00net"])
    return graph


def xml_expected(value):
    """What a GraphML reader gives back for a value written by write_graphml."""
    if isinstance(value, str):
        return XML_ILLEGAL.sub("\ufffd", value)
    if isinstance(value, (list, dict)):
        return xml_expected(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return value


def assert_graphml_round_trip(graph: nx.DiGraph, path: Path) -> None:
    back = nx.read_graphml(path)
    assert back.number_of_nodes() == graph.number_of_nodes()
    assert back.number_of_edges() == graph.number_of_edges()
    for node, attrs in graph.nodes(data=True):
        got = back.nodes[xml_expected(node)]
        assert got == {k: xml_expected(v) for k, v in attrs.items() if v is not None}, node
    for u, v, attrs in graph.edges(data=True):
        got = back.edges[xml_expected(u), xml_expected(v)]
        assert got == {k: xml_expected(x) for k, x in attrs.items() if x is not None}


def assert_csvs_read_back(written: dict, graph: nx.DiGraph) -> None:
    kinds = {"papers": "Paper", "entities": "Entity"}
    for key in ("papers", "entities", "paper_entity", "related_to"):
        raw = written[key].read_bytes().decode("utf-8")  # strict: valid UTF-8
        with open(written[key], encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        assert all(len(row) == len(rows[0]) for row in rows), key
        if key in kinds:
            assert len(rows) - 1 == sum(1 for _, k in graph.nodes(data="kind") if k == kinds[key]), key
        assert "\udc80" not in raw


def test_hostile_text_in_every_field_gives_valid_exports(tmp_path):
    graph = hostile_graph()
    replaced = write_graphml(graph, tmp_path / "g.graphml")
    assert replaced > 0
    assert_graphml_round_trip(graph, tmp_path / "g.graphml")
    back = nx.read_graphml(tmp_path / "g.graphml")
    assert "cr\r\nlf\ttab" in back.nodes[xml_expected("paper:p\x01")]["abstract"], "a CR must survive the parser"

    kg = paperkg.KnowledgeGraph(graph=graph)
    written = kg.export(tmp_path / "out", html=False)
    data = json.loads(written["graph"].read_bytes().decode("utf-8"))  # strict UTF-8
    assert data["graph"]["format"] == "paperkg-graph"
    for line in written["mentions"].read_bytes().decode("utf-8").splitlines():
        json.loads(line)
    assert read_manifest(tmp_path / "out")["graphml_replaced_characters"] == replaced
    assert verify(tmp_path / "out") == []
    assert_csvs_read_back(kg.to_neo4j_admin(tmp_path / "admin"), graph)


def test_graph_json_with_a_lone_surrogate_loads_and_exports(tmp_path):
    """H3 (output side): a "\\udc80" escape in a title, id and author of graph.json."""
    path = tmp_path / "graph.json"
    paperkg.KnowledgeGraph(graph=hostile_graph()).save(path)
    text = path.read_text(encoding="utf-8").replace("\ufffd", "\\udc80")  # the escape, as a user's JSON has it
    assert "\\udc80" in text
    path.write_text(text, encoding="utf-8")
    kg = paperkg.load(path)
    paper = kg.graph.nodes["paper:p\x01"]
    assert "lone \ufffd" in paper["title"] and paper["authors"][0] == paper["title"]
    assert len(paper["abstract"]) == len(HOSTILE), "one character for one: offsets stay valid"
    written = kg.export(tmp_path / "out", html=True)
    assert {"graph", "graphml", "mentions"} <= set(written)
    nx.read_graphml(written["graphml"])
    assert_csvs_read_back(kg.to_neo4j_admin(tmp_path / "admin"), kg.graph)


def test_export_after_load_writes_what_build_writes(seeds_kg, tmp_path):
    built = seeds_kg.export(tmp_path / "built", html=False)
    loaded = paperkg.load(built["graph"]).export(tmp_path / "loaded", html=False)
    # The resolution report is made while resolving, so only a graph built in this process has it.
    assert set(built) - {"resolution"} == set(loaded) and "resolution" in built
    assert built["graph"].read_bytes() == loaded["graph"].read_bytes()
    assert built["graphml"].read_bytes() == loaded["graphml"].read_bytes()
    strip = [{**r, "entities": [{**e, "mentions": [{k: m[k] for k in ("start", "end", "text")} for m in e["mentions"]]}
                                for e in r["entities"]]}
             for r in map(json.loads, built["mentions"].read_text(encoding="utf-8").splitlines())]
    assert strip == [json.loads(line) for line in loaded["mentions"].read_text(encoding="utf-8").splitlines()]


def round_trip_everything(kg, out: Path) -> None:
    written = kg.export(out, html=False)
    assert verify(out) == [] and (out / MANIFEST).exists()
    assert_graphml_round_trip(kg.graph, written["graphml"])
    back = paperkg.load(written["graph"]).graph
    assert dict(back.nodes(data=True)) == dict(kg.graph.nodes(data=True))
    assert list(back.edges(data=True)) == list(kg.graph.edges(data=True))
    lines = written["mentions"].read_bytes().decode("utf-8").splitlines()
    assert [json.loads(line)["paper_id"] for line in lines] == [
        a["paper_id"] for _, a in kg.graph.nodes(data=True) if a["kind"] == "Paper"]
    assert_csvs_read_back(kg.to_neo4j_admin(out / "admin"), kg.graph)


@pytest.mark.shared_data
def test_icml2024_exports_read_back_with_the_model(shared_data, use_model, tmp_path):
    kg = paperkg.build([shared_data / "corpus" / "icml2024.jsonl"], use_model=use_model, progress=False)
    round_trip_everything(kg, tmp_path / "icml")


@pytest.mark.shared_data
def test_whole_corpus_exports_read_back(shared_data, tmp_path):
    files = sorted((shared_data / "corpus").glob("*.jsonl"))
    kg = paperkg.build(files, use_model=False, progress=False)
    assert kg.report.read >= 8000
    round_trip_everything(kg, tmp_path / "corpus")


def test_build_of_hostile_jsonl_writes_valid_files(tmp_path):
    """The campaign's inputs through ``paperkg build``: control characters, NUL, U+FFFE and a
    lone-surrogate escape in titles, authors and abstracts; every output parses."""
    import subprocess
    import sys

    records = [
        '{"id": "a1", "title": "Foo\\udc80Net: a title", "authors": ["A \\udc80 B"], '
        '"abstract": "We propose FooNet, a method for image classification on CIFAR-10 with a \\b control char."}',
        '{"id": "b2", "title": "Bar\\u0000Net", "authors": [], '
        '"abstract": "We use CIFAR-10 and ImageNet to evaluate BarNet\\u000b\\u001b with \\ufffe accuracy."}',
        # U+2028 / U+2029: line breaks to str.splitlines, so a JSONL writer must escape them.
        '{"id": "c3", "abstract": "We propose BazNet (BN)\\u2028for image classification on CIFAR-10.\\u2029 BN is fast."}',
    ]
    (tmp_path / "in.jsonl").write_text("\n".join(records) + "\n", encoding="ascii")
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "build",
                             str(tmp_path / "in.jsonl"), "--out", str(out), "--no-model", "--no-progress"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    graph = nx.read_graphml(out / "graph.graphml")
    assert graph.number_of_nodes() >= 2
    json.loads((out / "graph.json").read_bytes().decode("utf-8"))
    for name in ("mentions.jsonl", "resolution.jsonl"):
        lines = (out / name).read_bytes().decode("utf-8").splitlines()
        assert [json.loads(line) for line in lines]
    assert len((out / "mentions.jsonl").read_text(encoding="utf-8").splitlines()) == 3
    for page in out.glob("*.html"):
        page.read_bytes().decode("utf-8")
    assert verify(out) == []
    kg = paperkg.load(out / "graph.json")
    assert_csvs_read_back(kg.to_neo4j_admin(tmp_path / "admin"), kg.graph)
