"""Paper communities (graph/communities.py): deterministic, on every paper, in every export."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import networkx as nx

from paperkg.graph.analytics import community_summary, counts
from paperkg.graph.communities import add_communities, community_labels, community_of, louvain_groups
from paperkg.graph.export import read_node_link, write_graphml, write_node_link

_spec = importlib.util.spec_from_file_location("_paperkg_html_helpers", Path(__file__).with_name("test_html.py"))
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)


def test_same_graph_same_numbers_whatever_the_insertion_order():
    g = _helpers.make_graph(80, 30, seed=11, nasty=False)
    first = community_of(g)
    for seed in (1, 2, 3):
        again = add_communities(_helpers._shuffled(g, seed))
        assert community_of(again) == first
    sizes = [len(group) for group in louvain_groups(g)]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) >= 2
    numbers = sorted(set(first.values()) - {-1})
    assert numbers == list(range(len(sizes)))


def test_unlinked_papers_are_minus_one_and_every_paper_has_one():
    g = _helpers.make_graph(40, 25, seed=7, nasty=False)
    linked = {n for u, v, k in g.edges(data="kind") if k == "RELATED_TO" for n in (u, v)}
    for node, attrs in g.nodes(data=True):
        if attrs["kind"] == "Paper":
            assert isinstance(attrs["community"], int)
            assert (attrs["community"] == -1) == (node not in linked)


def test_community_is_in_graph_json_graphml_and_stats(tmp_path):
    g = _helpers.make_graph(40, 25, seed=7, nasty=False)
    loaded = read_node_link(write_node_link(g, tmp_path / "graph.json"))
    assert community_of(loaded) == community_of(g)
    write_graphml(g, tmp_path / "graph.graphml")
    graphml = nx.read_graphml(tmp_path / "graph.graphml")
    assert {n: int(d["community"]) for n, d in graphml.nodes(data=True) if d["kind"] == "Paper"} == community_of(g)
    assert counts(g)["communities"] == len(set(community_of(g).values()) - {-1})
    summary = community_summary(g, k=3)
    labels = community_labels(g)
    assert [row["community"] for row in summary] == [0, 1, 2]
    assert all(row["labels"] == [g.nodes[e]["name"] for e in labels[row["community"]]] for row in summary)
