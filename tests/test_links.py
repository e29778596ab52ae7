"""Links a researcher would follow: the two signals (similar text, shared specific entities),
each link naming its kind and evidence, measured on real ICML 2024 abstracts and judged pairs."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from paperkg.extract.read.readers import read_papers
from paperkg.forks import can_fork
from paperkg.graph.communities import add_communities
from paperkg.graph.linking import TEXT_MIN, add_links, is_umbrella, paper_links
from paperkg.graph import linking, text_similarity
from paperkg.graph.text_similarity import row_top
from paperkg.queries.loader import load_graph
from paperkg.queries.runner import Neo4jSettings
from paperkg.types import LINK_KINDS


@pytest.fixture(scope="module")
def icml_text_graph(shared_data):
    """The ICML 2024 papers with their abstracts and no entities: links from text alone."""
    graph = nx.DiGraph()
    for paper in read_papers([shared_data / "corpus" / "icml2024.jsonl"]).papers:
        graph.add_node("paper:" + paper.id, kind="Paper", paper_id=paper.id, title=paper.title, abstract=paper.abstract)
    return add_links(graph, copy=False)


def test_text_links_on_icml_find_related_pairs(icml_text_graph, shared_data):
    pairs = [json.loads(line) for line in (shared_data / "gold" / "pairs_train.jsonl").read_text().splitlines()]
    linked = {tuple(sorted((u, v))) for u, v in icml_text_graph.edges()}
    labels = [p["label"] for p in pairs if tuple(sorted(("paper:" + p["a"], "paper:" + p["b"]))) in linked]
    related = sum(1 for p in pairs if p["label"] == "RELATED")
    # Judged by reading both abstracts: an abstract's nearest neighbour by text is far more often
    # RELATED than UNRELATED (entity links alone: 27% RELATED, 11% UNRELATED of the linked pairs).
    assert labels.count("RELATED") >= 0.4 * len(labels) and labels.count("UNRELATED") <= 0.05 * len(labels)
    assert labels.count("RELATED") >= 0.5 * related
    papers = [n for n, k in icml_text_graph.nodes(data="kind") if k == "Paper"]
    unlinked = [p for p in papers if icml_text_graph.degree(p) == 0]
    assert len(unlinked) <= 0.1 * len(papers)


def test_every_text_link_names_its_words(icml_text_graph):
    for u, v, data in icml_text_graph.edges(data=True):
        assert data["link_kind"] == "text" and data["shared"] == [] and data["evidence"] == []
        assert data["weight"] >= TEXT_MIN and data["terms"], (u, v)
        assert data["reason"] == "similar text: " + ", ".join(data["terms"][:3])
        abstract = icml_text_graph.nodes[u]["abstract"] + " " + (icml_text_graph.nodes[u]["title"] or "")
        assert all(word in abstract.lower() for term in data["terms"] for word in term.split())


def test_seeds_links_name_kind_and_evidence(seeds_kg):
    graph = seeds_kg.graph
    links = [(u, v, d) for u, v, d in graph.edges(data=True) if d["kind"] == "RELATED_TO"]
    assert links
    for u, v, data in links:
        assert data["link_kind"] in LINK_KINDS and data["reason"]
        if data["link_kind"] == "both":
            assert data["shared"] and data["terms"]
            # never on umbrella entities alone
            assert not all(is_umbrella(graph.nodes["entity:" + key]) for key in data["shared"]), data["reason"]
        elif data["link_kind"] == "text":
            assert data["terms"]


def test_papers_without_text_link_on_entities_alone():
    graph = nx.DiGraph()
    for paper in ("a", "b", "c"):
        graph.add_node("paper:" + paper, kind="Paper")
    for paper in ("a", "b"):
        graph.add_node("entity:mujoco", kind="Entity", name="MuJoCo", type="Benchmark")
        graph.add_edge("paper:" + paper, "entity:mujoco", kind="HAS", role="used", count=1)
    [link] = paper_links(graph)
    assert (link.source, link.target, link.kind, link.shared, link.terms) == ("paper:a", "paper:b", "entities", ("mujoco",), ())


def test_shared_entity_without_similar_text_does_not_link():
    # Two papers evaluate on the same dataset but are about different things.
    graph = nx.DiGraph()
    texts = {"a": "Diffusion models for image synthesis with guidance", "b": "Federated optimization under client drift",
             "c": "Diffusion models with classifier guidance for synthesis", "d": "Client drift in federated optimization"}
    for paper, text in texts.items():
        graph.add_node("paper:" + paper, kind="Paper", abstract=text)
    for paper in ("a", "b"):
        graph.add_node("entity:cifar-10", kind="Entity", name="CIFAR-10", type="Dataset")
        graph.add_edge("paper:" + paper, "entity:cifar-10", kind="HAS", role="used", count=1)
    links = {(l.source[6:], l.target[6:]): l.kind for l in paper_links(graph)}
    assert links == {("a", "c"): "text", ("b", "d"): "text"}


def test_neo4j_links_keep_kind_and_words(seeds_kg, clean_neo4j, neo4j_settings):
    graph = seeds_kg.graph
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(graph, settings, progress=False)
    expected = {tuple(sorted((graph.nodes[u]["paper_id"], graph.nodes[v]["paper_id"]))): (d["link_kind"], d["terms"])
                for u, v, d in graph.edges(data=True) if d["kind"] == "RELATED_TO"}
    with clean_neo4j.session(database=settings.database) as session:
        rows = session.run("MATCH (a:Paper)-[r:RELATED_TO]->(b:Paper) "
                           "RETURN a.id AS a, b.id AS b, r.link_kind AS kind, coalesce(r.terms, []) AS terms").data()
    assert {(r["a"], r["b"]): (r["kind"], r["terms"]) for r in rows} == expected


@pytest.mark.parametrize("seed", range(5))
def test_row_top_keeps_what_a_full_sort_keeps(seed):
    # The selection a sort of every entry by (row, -value, column) makes, on blocks with many
    # ties (values from a few levels) and rows shorter and longer than k.
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.integers(0, 40, 3000))
    cols = np.empty_like(rows)
    for row in np.unique(rows):
        at = np.flatnonzero(rows == row)
        cols[at] = rng.choice(500, len(at), replace=False)
    values = np.round(rng.integers(1, 6, len(rows)) / 7, 12)
    for k in (1, 3, 15, 200):
        order = np.lexsort((cols, -values, rows))
        sorted_rows = rows[order]
        first = (np.arange(len(rows)) - np.searchsorted(sorted_rows, sorted_rows, side="left")) < k
        expected = np.zeros(len(rows), dtype=bool)
        expected[order[first]] = True
        assert row_top(rows, cols, values, k).tolist() == expected.tolist()


def _sparse_tfidf(texts: list[str]):
    # The weights as plain sparse operations give them (what tfidf_rows did before it computed
    # them in place): the reference it must equal bit for bit, row order and column order too.
    from scipy import sparse

    parsed = [np.unique(text_similarity._parse(text)[3], return_counts=True) for text in texts]
    indptr = np.concatenate([[0], np.cumsum([len(columns) for columns, _ in parsed])])
    matrix = sparse.csr_matrix((np.concatenate([np.zeros(0), *(1.0 + np.log(c) for _, c in parsed)]),
                                np.concatenate([np.zeros(0, dtype=np.int32), *(c.astype(np.int32) for c, _ in parsed)]),
                                indptr), shape=(len(texts), text_similarity.COLUMNS))
    df = np.bincount(matrix.indices, minlength=text_similarity.COLUMNS)
    matrix = matrix.multiply(np.where(df > 1, np.log((1 + len(texts)) / (1 + df)) + 1.0, 0.0)).tocsr()
    matrix.eliminate_zeros()
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    return (sparse.diags(1.0 / norms) @ matrix).tocsr(), df


@pytest.mark.parametrize("processes", [1, 2])
def test_tfidf_rows_equal_the_sparse_products_bit_for_bit(shared_data, processes, monkeypatch):
    # Real abstracts, with texts that keep no term (empty, stop words only) and chunks of a few
    # hundred texts, so the in-place pass crosses many chunk boundaries.
    monkeypatch.setattr(text_similarity, "PARSE_CHUNK", 317)
    texts = [p.abstract for p in read_papers([shared_data / "corpus" / "icml2024.jsonl"]).papers][:1500]
    texts[10:10] = ["", "the of and with", "SAC"]
    for given in (texts, texts[:1], []):
        rows, df = text_similarity.tfidf_rows(given, processes)
        expected, expected_df = _sparse_tfidf(given)
        assert rows.shape == expected.shape and np.array_equal(df, expected_df)
        for name in ("data", "indices", "indptr"):
            ours, theirs = getattr(rows, name), getattr(expected, name)
            assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes(), name


def test_neighbour_ranks_match_a_full_sort():
    rng = np.random.default_rng(3)
    lefts = rng.integers(0, 50, 400)
    rights = lefts + rng.integers(1, 20, 400)
    pairs = text_similarity.unique_pairs(np.stack([lefts, rights], axis=1))
    lefts, rights = pairs[:, 0], pairs[:, 1]
    scores = np.round(rng.integers(1, 5, len(lefts)) / 5, 12)
    ranks = linking.neighbour_ranks(lefts, rights, scores, 70)
    for i in range(len(lefts)):
        better = [max(0, sum(1 for j in range(len(lefts)) if paper in (lefts[j], rights[j]) and j != i
                             and (scores[j] > scores[i] or (scores[j] == scores[i] and
                                                             (rights[j] if lefts[j] == paper else lefts[j]) < other))))
                  for paper, other in ((lefts[i], rights[i]), (rights[i], lefts[i]))]
        assert ranks[i] == min(better)


@pytest.mark.skipif(not can_fork(), reason="no fork on this platform: linking runs in one process")
@pytest.mark.parametrize("built", ["icml_text_graph", "results_kg"])
def test_links_and_topics_in_two_processes_equal_one(built, request, monkeypatch):
    # The ICML text alone (2,634 papers), and real abstracts with their entities (the entity
    # evidence's blocks); small chunks, so every forked map has many tasks and the last one short.
    given = request.getfixturevalue(built)
    given = given if isinstance(given, nx.Graph) else given.graph
    papers = sum(1 for _, kind in given.nodes(data="kind") if kind == "Paper")
    for module, name, share in ((text_similarity, "PARSE_CHUNK", 9), (text_similarity, "PAIR_CHUNK", 2),
                                (text_similarity, "BLOCK_ROWS", 10), (linking, "BLOCK_ROWS", 10),
                                (linking, "TERMS_CHUNK", 8)):
        monkeypatch.setattr(module, name, max(3, papers // share))
    alone = add_communities(add_links(given, processes=1))
    forked = add_communities(add_links(given, processes=2), processes=2)
    assert sum(1 for *_, kind in forked.edges(data="kind") if kind == "RELATED_TO") > papers // 3
    assert sorted(forked.edges(data=True)) == sorted(alone.edges(data=True))
    assert dict(forked.nodes(data="community")) == dict(alone.nodes(data="community"))


def test_papers_without_text_link_on_their_entities_alone():
    """A pair where a side has no text to compare links on the cosine of the two papers' entity
    vectors (kind ``entities``)."""
    g = nx.DiGraph()
    for paper, text in (("a", ""), ("b", ""), ("c", "Soft actor-critic on MuJoCo"), ("d", "Graph coloring")):
        g.add_node("paper:" + paper, kind="Paper", abstract=text)
    g.add_node("entity:sac", kind="Entity", name="SAC", type="Method")
    g.add_node("entity:mujoco", kind="Entity", name="MuJoCo", type="Benchmark")
    for paper, key in (("a", "sac"), ("b", "sac"), ("c", "sac"), ("a", "mujoco"), ("d", "mujoco")):
        g.add_edge("paper:" + paper, "entity:" + key, kind="HAS", role="used", count=1)
    links = {(link.source[6:], link.target[6:]): link for link in paper_links(g)}
    assert sorted(links) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c")]
    assert all(link.kind == "entities" and link.terms == () for link in links.values())
    assert links["a", "d"].shared == ("mujoco",) and links["b", "c"].shared == ("sac",)
    # b and c hold SAC alone; a holds MuJoCo too, in its vector's norm.
    assert links["b", "c"].weight == 1.0 and 0 < links["a", "b"].weight == links["a", "c"].weight < 1
