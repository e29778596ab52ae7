"""Unit tests of the HTML explorer (paperkg.graph.explorer): escaping, caps, data assembly, files.

``make_graph`` builds a synthetic knowledge graph in the documented schema, with hostile strings
(script/img/svg payloads, ``</script>``, U+2028, astral characters, a ``javascript:`` URL) in
titles, abstracts/evidence, entity names, aliases, venues and authors. The browser tests reuse it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from paperkg.errors import GraphError
from paperkg.graph import explorer as kghtml
from paperkg.graph.communities import add_communities, community_labels
from paperkg.graph.explorer.layout import force_layout, separate
from paperkg.graph.explorer.text import mark_ranges, short
from paperkg.graph.export_set import MANIFEST, STAGING_PREFIX, read_manifest, verify

TYPES = ("Method", "Dataset", "Benchmark", "Task", "Metric")
XSS_IMG = "<img src=x onerror=alert(1)>"
XSS_SCRIPT = "<script>alert(1)</script>"
XSS_SVG = '"><svg onload=alert(1)>'
NASTY_NAMES = {
    0: XSS_SCRIPT + "Net",
    1: XSS_SVG + "Set",
    2: XSS_IMG + "Bench",
    3: "Task \U0001d4aa(n) with \u2028 separator",
    4: "Metric & </script><!-- F1",
}
NASTY_TITLE = XSS_IMG + " Attention </script> is all & you need \u2029"


def make_graph(n_papers: int = 40, n_entities: int = 25, *, seed: int = 7, nasty: bool = True) -> nx.DiGraph:
    """A synthetic paper/entity graph in the schema of ``paperkg.graph`` (see its docstring)."""
    rng = random.Random(seed)
    g = nx.DiGraph()
    entities = []
    for j in range(n_entities):
        etype = TYPES[j % len(TYPES)]
        name = NASTY_NAMES.get(j, f"{etype}{j:03d}") if nasty else f"{etype}{j:03d}"
        key = f"{etype.lower()}/{etype.lower()}{j:03d}"
        aliases = sorted({name.upper(), f"{etype[:2]}-{j}"} - {name})
        if nasty and j == 1:
            aliases.append(XSS_IMG)
        entities.append((f"entity:{key}", etype, key, name, aliases))
    weights = [1.0 / (j + 1) for j in range(n_entities)]
    papers = []
    for i in range(n_papers):
        pid = f"P{i:04d}"
        k = 0 if i == n_papers - 1 else rng.randint(1, min(6, n_entities))
        chosen: list[int] = []
        while len(chosen) < k:
            j = rng.choices(range(n_entities), weights)[0]
            if j not in chosen:
                chosen.append(j)
        if nasty and i == 0:
            chosen = sorted(set(chosen) | {0, 1, 2, 3, 4})
        sentences, edges = [], []
        offset = 0
        prefix = (XSS_IMG + " " + XSS_SCRIPT + " " + XSS_SVG + " \U0001f600 ") if nasty and i == 0 else ""
        for n, j in enumerate(chosen):
            eid, etype, key, name, _aliases = entities[j]
            role = ("proposed", "used", "mentioned")[(i + j) % 3]
            lead = prefix if n == 0 else ""
            sentence = f"{lead}We {('propose', 'use', 'mention')[(i + j) % 3]} {name} in study {i}."
            start = offset + sentence.index(name, len(lead))
            edges.append(
                (
                    eid,
                    {
                        "kind": "HAS",
                        "role": role,
                        "count": 1,
                        "evidence": sentence,
                        "evidence_offset": offset,
                        "mentions": [[start, start + len(name), name]],
                    },
                )
            )
            sentences.append(sentence)
            offset += len(sentence) + 1
        abstract = " ".join(sentences)
        title = NASTY_TITLE if nasty and i == 0 else (None if i == 3 else f"Paper {i} on topic {i % 5}")
        url = {0: "javascript:alert(1)", 1: "https://example.org/p?a=1&b=<x>"}.get(i, f"https://openreview.net/forum?id={pid}")
        g.add_node(
            f"paper:{pid}",
            kind="Paper",
            paper_id=pid,
            label=(XSS_SVG + " label") if nasty and i == 0 else f"{pid} paper {i}",
            title=title,
            abstract=abstract,
            venue=(XSS_SVG if nasty and i == 0 else "ICML"),
            year=None if i == 2 else 2024,
            url=url,
            authors=[XSS_IMG, "Ada Lovelace"] if nasty and i == 0 else [f"Author {i}", "Grace Hopper"],
            source="synthetic.jsonl",
            line=i + 1,
        )
        papers.append((f"paper:{pid}", {eid for eid, _ in edges}))
        for eid, data in edges:
            if eid not in g:
                ent = next(e for e in entities if e[0] == eid)
                g.add_node(eid, kind="Entity", type=ent[1], key=ent[2], name=ent[3], aliases=ent[4], paper_count=0)
            g.add_edge(f"paper:{pid}", eid, **data)
    # an entity without papers
    eid, etype, key, name, aliases = entities[-1]
    if eid not in g:
        g.add_node(eid, kind="Entity", type=etype, key=key, name=name, aliases=aliases, paper_count=0)
    for node, data in g.nodes(data=True):
        if data["kind"] == "Entity":
            data["paper_count"] = g.in_degree(node)
    for a in range(len(papers)):
        for b in range(a + 1, len(papers)):
            (pa, ea), (pb, eb) = papers[a], papers[b]
            shared = ea & eb
            if shared:
                weight = len(shared) / len(ea | eb)
                src, dst = sorted((pa, pb))
                keys = sorted(s.split(":", 1)[1] for s in shared)
                # the link-evidence contract: one row per shared entity, strongest first
                evidence = [
                    {"key": k, "name": g.nodes["entity:" + k]["name"], "type": g.nodes["entity:" + k]["type"],
                     "papers": g.nodes["entity:" + k]["paper_count"], "contribution": round(weight / (n + 1), 4)}
                    for n, k in enumerate(keys)
                ]
                reason = "shared: " + ", ".join(f"{e['name']} ({e['type'].lower()}, {e['papers']} papers)" for e in evidence)
                g.add_edge(src, dst, kind="RELATED_TO", weight=weight, shared=keys, evidence=evidence, reason=reason)
    # archived records: a Papers with Code method, a CodeSOTA one, and a record URL that is no link
    for j, (pwc, codesota, url) in {
        0: ("soft-actor-critic", None, "https://paperswithcode.com/method/soft-actor-critic"),
        2: (None, "cs-42", "https://codesota.example/records/42"),
        4: ("bad-url", None, "javascript:alert(1)"),
    }.items():
        node = entities[j][0]
        if node in g:
            g.nodes[node].update(pwc_id=pwc, codesota_id=codesota, record_url=url)
    return add_communities(g)


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    return make_graph()


def _data_block(page: str) -> str:
    m = re.search(r'<script type="application/json" id="paperkg-data">(.*?)</script>', page, re.S)
    assert m, "data block missing"
    return m.group(1)


def _template_part(page: str) -> str:
    """The page without its <script> and <style> bodies (what the template itself produced)."""
    page = re.sub(r"(<script[^>]*>).*?(</script>)", r"\1\2", page, flags=re.S)
    return re.sub(r"(<style[^>]*>).*?(</style>)", r"\1\2", page, flags=re.S)


# ------------------------------------------------------------------------------ escaping


@pytest.mark.parametrize(
    "value",
    [
        XSS_SCRIPT,
        "</script><script>alert(1)</script>",
        "<!-- <script>",
        "a\u2028b\u2029c",
        "&amp; & <> \"'",
        "\U0001d4aa astral",
        "lone \ud800 surrogate",
        {"k": ["</SCRIPT>", 1, None, 2.5]},
    ],
)
def test_json_for_script_is_inert_and_round_trips(value):
    text = kghtml.json_for_script(value)
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in text
    text.encode("utf-8")  # no lone surrogates left
    assert json.loads(text) == value


VIEW_NAV = [("Overview", "explorer.html"), ("Entity map", "entities.html"), ("Similarity", "similarity.html")]


def check_streamed_pages(g, tmp_path, monkeypatch):
    """The pages are streamed from compressed chunks of the universe: with chunks of 7 records
    (many boundaries), each page's data is exactly the whole-string ``json_for_script`` of its
    payload, and the files equal those written with the default chunk size, byte for byte."""
    from paperkg.graph.explorer import text

    default = kghtml.write_html(g, tmp_path / "default")
    monkeypatch.setattr(text, "CHUNK", 7)
    small = kghtml.write_html(g, tmp_path / "small")
    assert [p.name for p in small] == [p.name for p in default] == [name for _, name in VIEW_NAV]
    for path, view in zip(small, ("overview", "entity-map", "similarity")):
        page = path.read_bytes()
        assert page == (tmp_path / "default" / path.name).read_bytes()
        data = page.decode("utf-8").split('id="paperkg-data">', 1)[1].split("</script>", 1)[0]
        assert data == kghtml.json_for_script(kghtml.explorer_data(g, view=view, links=VIEW_NAV))
        assert page.decode("utf-8") == kghtml.render_html(g, view=view, links=VIEW_NAV)


def test_streamed_pages_equal_whole_payload_hostile(graph, tmp_path, monkeypatch):
    check_streamed_pages(graph, tmp_path, monkeypatch)


def test_streamed_pages_equal_whole_payload_real(seeds_kg, tmp_path, monkeypatch):
    check_streamed_pages(seeds_kg.graph, tmp_path, monkeypatch)


def test_hostile_strings_never_reach_markup(graph):
    page = kghtml.render_html(graph, title=XSS_SCRIPT + " & title")
    template = _template_part(page)
    for payload in ("<img", "<svg", "<script>alert", "onerror", "onload"):
        assert payload not in template
    # the only alert(1) text left is the escaped page title (twice: <title> and <h1>)
    assert template.count("alert(1)") == 2
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; title" in template
    data = _data_block(page)
    assert "<" not in data and ">" not in data and "&" not in data and "\u2028" not in data
    decoded = json.loads(data)
    names = {e["n"] for e in decoded["entities"]}
    assert set(NASTY_NAMES.values()) <= names
    assert any(p.get("t") == NASTY_TITLE for p in decoded["papers"])
    # exactly three script elements: data, vis-network, explorer
    assert len(re.findall(r"<script\b", template)) == 3
    assert len(re.findall(r"(?i)</script", page)) == 3


def test_only_http_urls_become_links(graph):
    data = kghtml.explorer_data(graph)
    by_id = {p["i"]: p for p in data["papers"]}
    assert "u" not in by_id["paper:P0000"]  # javascript: dropped
    assert by_id["paper:P0001"]["u"] == "https://example.org/p?a=1&b=<x>"
    assert all(p.get("u", "https://").startswith(("http://", "https://")) for p in data["papers"])


def test_page_is_offline_and_csp_pins_the_scripts(graph):
    page = kghtml.render_html(graph)
    template = _template_part(page)
    assert "<link" not in template
    assert not re.search(r"<script[^>]+src=", page)
    assert not re.search(r"(?i)\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", template)
    assert "bootstrap" not in page.lower()
    assert "sourceMappingURL" not in page
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in csp
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    styles = re.findall(r"<style>(.*?)</style>", page, re.S)
    assert len(scripts) == 2 and len(styles) == 2
    assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    for body in scripts + styles:
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert f"'sha256-{digest}'" in csp


# ------------------------------------------------------------------------------ data assembly


def test_overview_is_the_topic_map(graph):
    data = kghtml.explorer_data(graph)
    view = data["view"]
    community = {n: d["community"] for n, d in graph.nodes(data=True) if d["kind"] == "Paper"}
    sizes = Counter(c for c in community.values() if c != -1)
    assert len(sizes) >= 2
    smallest = min(5, max(sizes.values()))  # the map draws topics of 5+ papers (any, if no topic is that big)
    unlinked = sum(1 for c in community.values() if c == -1)
    assert unlinked  # P0039 has no entity: the grey cluster of papers without links
    expected = {f"community:{c}" for c, n in sizes.items() if n >= smallest} | ({"community:-1"} if unlinked >= smallest else set())
    assert {n["id"] for n in view["nodes"]} == expected
    labels = community_labels(graph)
    for node in view["nodes"]:
        c = int(node["id"].split(":")[1])
        if c == -1:
            assert node["label"] == f"no similarity link\n{unlinked} papers"
            continue
        lines = node["label"].split("\n")
        assert lines[-1] == f"{sizes[c]} papers"
        names = [short(graph.nodes[e]["name"]) for e in labels[c][:2]]
        assert lines[:-1] == (names or ["(no shared entity)"])
        assert node["group"] == "topic" and isinstance(node["x"], int) and isinstance(node["y"], int)
    # bigger topics are bigger, and no two topic circles overlap
    radius = {n["id"]: n["size"] for n in view["nodes"]}
    drawn = [c for c, n in sizes.most_common() if n >= smallest]
    big, small = f"community:{drawn[0]}", f"community:{drawn[-1]}"
    assert radius[big] >= radius[small]
    for a in view["nodes"]:
        for b in view["nodes"]:
            if a["id"] < b["id"]:
                assert math.dist((a["x"], a["y"]), (b["x"], b["y"])) >= a["size"] + b["size"]
    assert view["edges"] and all(e["kind"] == "TOPIC" and e["from"] != e["to"] for e in view["edges"])
    assert [c[0] for c in data["communities"]] == [c for c, _n in sorted(sizes.items(), key=lambda i: (-i[1], i[0]))] + [-1]
    assert data["communities"][-1] == [-1, unlinked, []]
    papers = data["papers"]
    assert all(p.get("c", -1) == community[p["i"]] for p in papers)
    stats = data["meta"]["stats"]
    has = [(u, v) for u, v, d in graph.edges(data=True) if d["kind"] == "HAS"]
    assert stats["papers"] == len(community) and stats["has"] == len(has) and stats["communities"] == len(sizes)
    assert stats["related"] == sum(1 for *_e, d in graph.edges(data=True) if d["kind"] == "RELATED_TO")
    assert data["meta"]["colors"][:6] == ["#8C8C8C", "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00"]


def test_topic_labels_are_specific_not_umbrella_terms():
    """Three groups of papers, each with its own two entities, plus "deep learning" in every paper
    and "transformer" in most: no topic may be labelled by them."""
    g = nx.DiGraph()
    groups = {"rl": ["soft actor-critic", "mujoco"], "diff": ["latent diffusion", "fid"], "graph": ["gcn", "cora"]}
    for gi, (name, ents) in enumerate(groups.items()):
        for i in range(6):
            pid = f"paper:{name}{i}"
            g.add_node(pid, kind="Paper", paper_id=f"{name}{i}", label=pid)
            for e in ents + ["deep learning"] + (["transformer"] if i % 3 else []):
                g.add_node("entity:" + e, kind="Entity", type="Method", key=e, name=e, aliases=[], paper_count=0)
                g.add_edge(pid, "entity:" + e, kind="HAS", role="used", count=1)
    for u, v in combinations([n for n in g if n.startswith("paper:")], 2):
        same = u.split(":")[1][:-1] == v.split(":")[1][:-1]
        g.add_edge(u, v, kind="RELATED_TO", weight=0.9 if same else 0.05, shared=[])
    add_communities(g)
    labels = {c: {g.nodes[e]["name"] for e in ents} for c, ents in community_labels(g).items()}
    assert sorted(map(sorted, labels.values())) == sorted(sorted(v) for v in groups.values())


def test_pyvis_fields_and_edge_ids(graph):
    data = kghtml.explorer_data(graph, focus="paper:P0005", hops=2)
    node = data["view"]["nodes"][0]
    assert set(node) >= {"id", "label", "shape", "group", "size", "x", "y"}
    kinds = set()
    for edge in data["view"]["edges"]:
        assert "arrows" not in edge
        k = int(edge["id"][1:])
        kinds.add(edge["kind"])
        if edge["kind"] == "HAS":
            row = data["has"][k]
            assert (data["papers"][row[0]]["i"], data["entities"][row[1] - len(data["papers"])]["i"]) == (edge["from"], edge["to"])
            assert edge["role"] == row[2]
        else:
            row = data["related"][k]
            assert {data["papers"][row[0]]["i"], data["papers"][row[1]]["i"]} == {edge["from"], edge["to"]}
    assert kinds == {"HAS", "REL"}


def test_link_evidence_and_entity_records_reach_the_page(graph):
    data = kghtml.explorer_data(graph)
    n_papers = len(data["papers"])
    checked = 0
    for a, b, weight, shared, kind, terms in data["related"]:
        edge = graph.edges[data["papers"][a]["i"], data["papers"][b]["i"]]
        expected = [["entity:" + e["key"], e["contribution"]] for e in edge["evidence"]][:6]
        assert [[data["entities"][j - n_papers]["i"], c] for j, c in shared] == expected
        assert kind == edge.get("link_kind", "entities") and terms == edge.get("terms", [])
        checked += 1
    assert checked == len(data["related"]) > 0
    ents = {e["i"]: e for e in data["entities"]}
    assert ents["entity:method/method000"]["pw"] == "soft-actor-critic"
    assert ents["entity:method/method000"]["ru"] == "https://paperswithcode.com/method/soft-actor-critic"
    assert ents["entity:benchmark/benchmark002"]["cs"] == "cs-42"
    assert "ru" not in ents["entity:metric/metric004"]  # javascript: is never a link
    assert all(e["k"] == e["i"].split(":", 1)[1] for e in data["entities"])
    # without evidence (an older graph) the shared keys still come through, without contributions
    old = graph.copy()
    for *_e, d in old.edges(data=True):
        d.pop("evidence", None)
    rows = kghtml.explorer_data(old)["related"]
    assert all(c is None for *_r, shared, _k, _t in rows for _j, c in shared) and any(r[3] for r in rows)


def _utf16_slice(text: str, start: int, end: int) -> str:
    raw = text.encode("utf-16-le", "surrogatepass")
    return raw[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")


def test_marks_are_utf16_offsets_inside_the_evidence(graph):
    data = kghtml.explorer_data(graph)
    n_papers = len(data["papers"])
    checked = 0
    for row in data["has"]:
        sentence = data["sentences"][row[4]]
        marks = row[5]
        name = data["entities"][row[1] - n_papers]["n"]
        assert _utf16_slice(sentence, marks[0], marks[1]) == name
        checked += 1
    assert checked == len(data["has"])
    # the astral-character sentence really needs UTF-16 offsets
    astral = [r for r in data["has"] if "\U0001f600" in data["sentences"][r[4]]]
    assert astral


def test_mark_ranges_fallbacks():
    ev = "We use BERT and BERT again."
    assert mark_ranges(ev, 100, [[107, 111, "BERT"]]) == [7, 11]
    # wrong offsets: found by text
    assert mark_ranges(ev, 0, [[0, 4, "BERT"]]) == [7, 11]
    # outside the sentence and text absent: dropped
    assert mark_ranges(ev, 0, [[500, 504, "GPT"]]) == []
    # overlaps merged
    assert mark_ranges(ev, 0, [[7, 11, "BERT"], [7, 15, "BERT and"]]) == [7, 15]
    assert mark_ranges("", 0, [[0, 1, "x"]]) == []
    assert mark_ranges(ev, None, "garbage") == []


def test_evidence_sentences_are_deduplicated():
    g = nx.DiGraph()
    g.add_node("paper:a", kind="Paper", paper_id="a", label="a", title="A", abstract="X and Y.")
    for key in ("x", "y"):
        g.add_node(f"entity:{key}", kind="Entity", type="Method", key=key, name=key.upper(), aliases=[], paper_count=1)
    g.add_edge("paper:a", "entity:x", kind="HAS", role="used", count=1, evidence="X and Y.", evidence_offset=0, mentions=[[0, 1, "X"]])
    g.add_edge("paper:a", "entity:y", kind="HAS", role="used", count=1, evidence="X and Y.", evidence_offset=0, mentions=[[6, 7, "Y"]])
    data = kghtml.explorer_data(g)
    assert data["sentences"] == ["X and Y."]
    assert [r[4] for r in data["has"]] == [0, 0]
    assert [r[5] for r in data["has"]] == [[0, 1], [6, 7]]


# ------------------------------------------------------------------------------ caps and views


def test_topic_map_edge_cap_keeps_the_strongest():
    g = make_graph(120, 60, seed=3, nasty=False)
    full = kghtml.explorer_data(g)["view"]["edges"]
    capped = kghtml.explorer_data(g, max_edges=3)
    assert len(full) > 3 and len(capped["view"]["edges"]) == 3
    assert sorted(e["w"] for e in capped["view"]["edges"]) == sorted(e["w"] for e in full)[-3:]
    assert capped["meta"]["caps"]["max_edges"] == 3 and capped["meta"]["notes"]


def test_separate_removes_every_overlap():
    rng = np.random.RandomState(0)
    pos = rng.uniform(0, 100, size=(40, 2))
    half = rng.uniform(5, 25, size=(40, 2))
    out = separate(pos, half, gap=2)
    for i in range(40):
        for j in range(i + 1, 40):
            assert (abs(out[i] - out[j]) >= half[i] + half[j] + 1.9).any()


def test_entity_map_keeps_shared_co_occurrences_without_umbrella_terms():
    g = make_graph(240, 40, seed=5, nasty=False)
    n_papers = 240
    umbrella = {n for n, d in g.nodes(data=True) if d["kind"] == "Entity" and d["paper_count"] > max(0.05 * n_papers, 10)}
    assert umbrella  # the synthetic corpus has frequent entities
    data = kghtml.explorer_data(g, view="entity-map", max_entities=15, max_edges=25)
    nodes = {n["id"] for n in data["view"]["nodes"]}
    assert nodes and all(n.startswith("entity:") for n in nodes) and not nodes & umbrella
    assert 0 < len(data["view"]["edges"]) <= 25
    for edge in data["view"]["edges"]:
        shared = set(g.predecessors(edge["from"])) & set(g.predecessors(edge["to"]))
        assert edge["w"] == len(shared) == edge["value"] >= 2 and edge["kind"] == "CO"
    drawn = {e["from"] for e in data["view"]["edges"]} | {e["to"] for e in data["view"]["edges"]}
    assert drawn == nodes  # every drawn entity has a co-occurrence
    assert any("umbrella" in note for note in data["meta"]["notes"])


def test_similarity_view_uses_related_edges():
    g = make_graph(60, 20, seed=5, nasty=False)
    data = kghtml.explorer_data(g, view="similarity", max_papers=25, max_edges=40)
    nodes = {n["id"] for n in data["view"]["nodes"]}
    assert len(nodes) <= 25 and all(n.startswith("paper:") for n in nodes)
    assert 0 < len(data["view"]["edges"]) <= 40
    for edge in data["view"]["edges"]:
        assert edge["kind"] == "REL"
        assert g.has_edge(edge["from"], edge["to"]) or g.has_edge(edge["to"], edge["from"])


def test_focus_view_is_the_capped_ego_graph(graph):
    data = kghtml.explorer_data(graph, focus="paper:P0005", hops=1)
    ids = {n["id"] for n in data["view"]["nodes"]}
    assert ids == {"paper:P0005"} | set(nx.ego_graph(graph.to_undirected(as_view=True), "paper:P0005", radius=1))
    capped = kghtml.explorer_data(graph, focus="P0005", hops=3, max_focus_nodes=7)
    assert len(capped["view"]["nodes"]) == 7
    assert capped["meta"]["view"] == "focus" and capped["meta"]["center"] == "paper:P0005"
    by_name = kghtml.explorer_data(graph, focus=NASTY_NAMES[0], hops=1)
    assert by_name["meta"]["center"].startswith("entity:method/")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_entities": 0},
        {"max_papers": -1},
        {"max_edges": 2.5},
        {"hops": 0},
        {"hops": 9},
        {"view": "nope"},
        {"view": "focus"},
        {"focus": "paper:does-not-exist"},
        {"view": "entity-map", "max_papers": 0},
        {"view": "similarity", "focus": "paper:P0001"},
    ],
)
def test_bad_arguments_raise_graph_error(graph, kwargs):
    with pytest.raises(GraphError):
        kghtml.explorer_data(graph, **kwargs)


def test_empty_graph_renders():
    page = kghtml.render_html(nx.DiGraph())
    data = json.loads(_data_block(page))
    assert data["view"]["nodes"] == [] and data["meta"]["stats"]["papers"] == 0


def test_knowledge_graph_like_objects_are_accepted(graph):
    class KG:
        def __init__(self, g):
            self.graph = g

    assert kghtml.explorer_data(KG(graph))["view"] == kghtml.explorer_data(graph)["view"]
    with pytest.raises(GraphError):
        kghtml.explorer_data(object())


# ------------------------------------------------------------------------------ determinism


def _shuffled(g: nx.DiGraph, seed: int) -> nx.DiGraph:
    rng = random.Random(seed)
    nodes = list(g.nodes(data=True))
    edges = list(g.edges(data=True))
    rng.shuffle(nodes)
    rng.shuffle(edges)
    out = nx.DiGraph()
    out.add_nodes_from(nodes)
    out.add_edges_from(edges)
    return out


@pytest.mark.parametrize("view", ["overview", "entity-map", "similarity"])
def test_same_input_gives_byte_identical_html(graph, view):
    first = kghtml.render_html(graph, view=view)
    assert kghtml.render_html(graph, view=view) == first
    assert kghtml.render_html(_shuffled(graph, 1), view=view) == first


def test_byte_identical_across_processes(tmp_path):
    """No dependence on hash randomisation (set/dict order) or on anything else per process."""
    import subprocess
    import sys

    script = (
        "import sys, hashlib; sys.path.insert(0, sys.argv[1]);"
        "from test_html import make_graph; from paperkg.graph.explorer import render_html;"
        "g = make_graph(60, 30, seed=2);"
        "print(hashlib.sha256(''.join(render_html(g, view=v) for v in ('overview', 'entity-map', 'similarity')).encode()).hexdigest())"
    )
    digests = set()
    for seed in ("1", "2"):
        env = {**__import__("os").environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", script, str(Path(__file__).parent)], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_unknown_entity_types_still_render():
    g = make_graph(10, 5, seed=1, nasty=False)
    g.add_node("entity:other/x", kind="Entity", type="Software", key="other/x", name="X", aliases=[], paper_count=1)
    g.add_edge("paper:P0001", "entity:other/x", kind="HAS", role="used", count=1, evidence="", evidence_offset=0, mentions=[])
    g.add_node("weird", kind="Something")  # neither paper nor entity: ignored
    data = kghtml.explorer_data(g)
    assert data["meta"]["types"][-1] == "Software"
    assert len(data["meta"]["colors"]) == len(data["meta"]["types"]) == len(data["meta"]["shapes"])
    row = next(r for r in data["has"] if data["entities"][r[1] - len(data["papers"])]["i"] == "entity:other/x")
    assert row[4] == -1 and len(row) == 5  # no evidence, no marks
    page = kghtml.render_html(g)
    assert ".sw-6 { background: #56B4E9; }" in page


def test_layout_is_deterministic_and_spread():
    import numpy as np

    edges = np.array([[i, (i * 7 + 3) % 300] for i in range(300)], dtype=np.int64)
    a = force_layout(300, edges, np.ones(300), seed=1)
    b = force_layout(300, edges, np.ones(300), seed=1)
    assert (a == b).all()
    assert np.ptp(a, axis=0).min() > 5


# ------------------------------------------------------------------------------ files


def test_write_views_writes_linked_pages(graph, tmp_path):
    paths = kghtml.write_views(graph, tmp_path / "site", focus=["paper:P0001", NASTY_NAMES[1]])
    names = [p.name for p in paths]
    assert names[:3] == ["explorer.html", "entities.html", "similarity.html"]
    assert names[3] == "focus-paper-P0001.html"
    assert names[4].startswith("focus-entity-dataset-dataset001")
    for path in paths:
        page = path.read_text(encoding="utf-8")
        assert 'href="entities.html"' in page and 'href="similarity.html"' in page


def test_write_html_targets(graph, tmp_path):
    assert kghtml.write_html(graph, tmp_path / "one.html") == [tmp_path / "one.html"]
    # a directory without a view gets every view (what KnowledgeGraph.to_html(dir) relies on)
    assert [p.name for p in kghtml.write_html(graph, tmp_path / "d0")] == list(kghtml.VIEW_FILES.values())
    assert kghtml.write_html(graph, tmp_path / "d1", view="overview") == [tmp_path / "d1" / "explorer.html"]
    assert kghtml.write_html(graph, tmp_path / "dir", view="entity-map") == [tmp_path / "dir" / "entities.html"]
    focus = kghtml.write_html(graph, tmp_path / "dir", focus="paper:P0002")
    # a directory gets every view and, with focus=, the focus page too (as the CLI says)
    assert [p.name for p in focus] == ["explorer.html", "entities.html", "similarity.html", "focus-paper-P0002.html"]
    everything = kghtml.write_html(graph, tmp_path / "all", view="all")
    assert [p.name for p in everything] == ["explorer.html", "entities.html", "similarity.html"]
    with pytest.raises(GraphError):
        kghtml.write_html(graph, tmp_path / "x.html", view="all")
    first = (tmp_path / "one.html").read_bytes()
    kghtml.write_html(graph, tmp_path / "one.html")
    assert (tmp_path / "one.html").read_bytes() == first


def test_templates_ship_as_package_data():
    root = Path(kghtml.__file__).parent.parent / "templates"
    for name in ("explorer.html.j2", "explorer.css", *(f"explorer/{m}" for m in kghtml.config.JS_MODULES)):
        assert (root / name).is_file()
    js = "".join((root / "explorer" / m).read_text(encoding="utf-8") for m in kghtml.config.JS_MODULES)
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js and "document.write" not in js


def test_cli_html_focus_writes_every_view_and_the_focus_page(graph, tmp_path):
    """`paperkg html G --out DIR --focus X` does what its --help says: all views plus X's page."""
    from click.testing import CliRunner

    from paperkg.cli import cli
    from paperkg.graph.export import write_node_link

    saved = write_node_link(graph, tmp_path / "graph.json")
    result = CliRunner().invoke(cli, ["html", str(saved), "--out", str(tmp_path / "site"), "--focus", "paper:P0002"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "site").iterdir() if not p.name.startswith(".")) == sorted(
        ["explorer.html", "entities.html", "similarity.html", "focus-paper-P0002.html", MANIFEST]
    )
    assert verify(tmp_path / "site") == []
    assert "also write its focus page" in " ".join(CliRunner().invoke(cli, ["html", "--help"]).output.split())


def test_pages_join_the_export_set_of_a_build_folder(graph, tmp_path):
    """`paperkg html G --out BUILD_DIR` adds its pages to the build's set: graph.json stays listed and
    unchanged, the manifest lists the new pages, and a file target there joins the set too."""
    from paperkg.api import KnowledgeGraph

    out = tmp_path / "build"
    KnowledgeGraph(graph).export(out, html=False)
    before = read_manifest(out)["files"]
    paths = kghtml.write_html(graph, out, focus="paper:P0002", title="Again")
    files = read_manifest(out)["files"]
    assert {p.name for p in paths} <= set(files) and {n: files[n] for n in before} == before
    kghtml.write_html(graph, out / "one.html", view="similarity")
    assert "one.html" in read_manifest(out)["files"] and verify(out) == []
    assert (out / "graph.json").exists() and not list(out.glob(STAGING_PREFIX + "*"))


KILL_ON_SECOND_PAGE = """
import os, signal, sys
from paperkg.graph.explorer import render
real, calls = render.iter_html, []
def iter_html(g, **options):
    calls.append(1)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return real(g, **options)
render.iter_html = iter_html
from paperkg.cli import main
sys.argv = ["paperkg", "html", sys.argv[1], "--out", sys.argv[2], "--title", "second"]
main()
"""


def test_a_killed_html_writer_leaves_the_previous_pages(graph, tmp_path):
    """Killed (SIGKILL) after writing one page of three: every page is still the previous run's, the
    set verifies, and the next write clears the dead writer's staging folder."""
    import subprocess
    import sys

    from paperkg.graph.export import write_node_link

    saved = write_node_link(graph, tmp_path / "graph.json")
    site = tmp_path / "site"
    kghtml.write_html(graph, site, title="first")
    pages = {p.name: p.read_bytes() for p in site.glob("*.html")}
    killed = subprocess.run([sys.executable, "-c", KILL_ON_SECOND_PAGE, str(saved), str(site)], capture_output=True)
    assert killed.returncode == -9, killed.stderr
    assert list(site.glob(STAGING_PREFIX + "*"))  # the dead writer's half-written pages, hidden
    assert {p.name: p.read_bytes() for p in site.glob("*.html")} == pages and verify(site) == []
    kghtml.write_html(graph, site, title="third")
    assert not list(site.glob(STAGING_PREFIX + "*")) and verify(site) == []
    assert all(b"third" in p.read_bytes() for p in site.glob("*.html"))


def test_a_failing_page_writes_none(graph, tmp_path, monkeypatch):
    site = tmp_path / "site"
    kghtml.write_html(graph, site, title="first")
    pages = {p.name: p.read_bytes() for p in site.glob("*.html")}
    real = kghtml.render.iter_html

    def fail_on_similarity(g, **options):
        if options["view"] == "similarity":
            raise GraphError("disk full, say")
        return real(g, **options)

    monkeypatch.setattr(kghtml.render, "iter_html", fail_on_similarity)
    with pytest.raises(GraphError):
        kghtml.write_html(graph, site, title="second")
    assert {p.name: p.read_bytes() for p in site.glob("*.html")} == pages and verify(site) == []
    assert not list(site.glob(STAGING_PREFIX + "*"))


# ------------------------------------------------------------------------------ results and leaderboards

#: ICML 2024 papers whose abstracts report results: FID scores on CIFAR-10 by three methods
#: (a leaderboard with a known direction), a score on CelebA, ImageNet accuracy, and gains.
RESULT_PAPERS = ("k5ncz7TIPX", "dMhF96PfQi", "pktvuR7b5v", "6aKwVmHQI1", "HQtTg1try7")
HOSTILE_PAPER = "dMhF96PfQi"
HOSTILE_EVIDENCE = "We reach </script><script>alert(1)</script> " + XSS_IMG + " on it & more \u2028."


def build_results_graph(shared: Path, use_model: bool, folder: Path) -> nx.DiGraph:
    """:data:`RESULT_PAPERS` from ``corpus/icml2024.jsonl``, built by ``paperkg.build``."""
    import paperkg

    lines = [line for line in (shared / "corpus" / "icml2024.jsonl").open(encoding="utf-8")
             if json.loads(line)["id"] in RESULT_PAPERS]
    assert len(lines) == len(RESULT_PAPERS)
    path = folder / "results.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return paperkg.build([path], use_model=use_model, progress=False).graph


def add_hostile_result(g: nx.DiGraph) -> str:
    """Adds to ``g`` in place (pass a copy) a score of HOSTILE_PAPER whose value is a script
    payload, with the slots of the paper's first result (so it tops that dataset's leaderboard:
    0.5 is the best FID), and whose evidence would break out of the data script."""
    from paperkg.graph.build import add_result, result_nodes, result_slots
    from paperkg.types import Result

    paper = "paper:" + HOSTILE_PAPER
    first = result_nodes(g, paper)[0]
    keys = {slot: g.nodes[n]["key"] if n else None for slot, n in result_slots(g, first).items()}
    result = Result(0, len(XSS_IMG), XSS_IMG, 0.5, "absolute", "score", keys["metric"], keys["dataset"],
                    keys["method"], keys["task"], HOSTILE_EVIDENCE)
    return add_result(g, HOSTILE_PAPER, len(result_nodes(g, paper)), result)


@pytest.fixture(scope="module")
def results_graph(shared_data, use_model, tmp_path_factory) -> nx.DiGraph:
    return build_results_graph(shared_data, use_model, tmp_path_factory.mktemp("results"))


def _results_by_node(g: nx.DiGraph, data: dict) -> dict[str, list]:
    """Result node id -> its payload row (the rows name their paper and place, as the graph)."""
    from paperkg.graph.build import result_nodes

    ids = [p["i"] for p in data["papers"]]
    expected = [r for p in ids for r in result_nodes(g, p)]
    assert len(data["results"]) == len(expected)
    return dict(zip(expected, data["results"]))


def test_results_reach_the_payload_with_their_value_marked(results_graph):
    from paperkg.graph.build import result_slots

    g = results_graph
    data = kghtml.explorer_data(g)
    ids = [p["i"] for p in data["papers"]] + [e["i"] for e in data["entities"]]
    rows = _results_by_node(g, data)
    assert len(rows) >= 10 and data["meta"]["stats"]["results"] == len(rows)
    assert data["meta"]["resultKinds"] == ["score", "gain"]
    marked = 0
    for node, row in rows.items():
        attrs = g.nodes[node]
        paper, kind, value, *slots = row[:7]
        assert ids[paper] == "paper:" + attrs["paper_id"] and value == attrs["value"]
        assert data["meta"]["resultKinds"][kind] == attrs["result_kind"]
        expected = result_slots(g, node)
        assert [ids[u] if u >= 0 else None for u in slots] == [expected[s] for s in ("dataset", "metric", "method", "task")]
        assert data["sentences"][row[7]] == attrs["evidence"]
        if len(row) > 8:
            assert _utf16_slice(attrs["evidence"], *row[8]) == value
            marked += 1
    assert marked == len(rows)  # every real result's value sits in its sentence
    # the sentences are shared with the entities' evidence, not shipped twice
    assert len(data["sentences"]) == len(set(data["sentences"]))
    # compact: a few dozen bytes a result (the sentences are counted once, above)
    size = len(kghtml.json_for_script(data["results"])) + len(kghtml.json_for_script(data["boards"]))
    assert size < 120 * len(rows), size
    # a graph without results ships empty arrays
    plain = kghtml.explorer_data(make_graph(12, 10, nasty=False))
    assert plain["results"] == [] and plain["boards"] == [] and plain["meta"]["stats"]["results"] == 0


def test_boards_are_the_leaderboards_grouped_by_metric(results_graph):
    from paperkg.graph.results import leaderboard

    g = results_graph
    data = kghtml.explorer_data(g)
    ids = [p["i"] for p in data["papers"]] + [e["i"] for e in data["entities"]]
    rows = _results_by_node(g, data)
    row_index = {node: k for k, node in enumerate(rows)}
    boards = {ids[u]: groups for u, groups in data["boards"]}
    datasets = [n for n, d in g.nodes(data=True) if d.get("kind") == "Entity" and d["type"] in ("Dataset", "Benchmark")]
    for node in datasets:
        expected = leaderboard(g, g.nodes[node]["key"], k=10_000)
        if not expected:
            assert node not in boards
            continue
        flat = [k for _metric, _direction, ks in boards[node] for k in ks]
        assert flat == [row_index[f"result:{r['paper_id']}:{r['index']}"] for r in expected]
        for metric, direction, ks in boards[node]:
            assert {data["results"][k][4] for k in ks} == {metric}
            assert {r["direction"] for r in expected if r["metric_key"] == (ids[metric][7:] if metric >= 0 else None)} \
                == {{1: "higher", -1: "lower", 0: None}[direction]}
    # CIFAR-10 by FID: lower is better, best first, three methods of three papers
    cifar = next(groups for node, groups in boards.items() if g.nodes[node]["name"] == "CIFAR-10")
    metric, direction, ks = next(group for group in cifar if group[0] >= 0 and "fréchet" in ids[group[0]])
    numbers = [g.nodes[node]["number"] for node in rows if row_index[node] in ks]
    values = [float(data["results"][k][2]) for k in ks]
    assert direction == -1 and len(ks) >= 3 and values == sorted(numbers)
    assert len({data["results"][k][0] for k in ks}) == 3


def test_hostile_result_strings_stay_data(results_graph, tmp_path, monkeypatch):
    g = results_graph.copy()
    node = add_hostile_result(g)
    page = kghtml.render_html(g)
    template = _template_part(page)
    assert "<img" not in template and "onerror" not in template and "alert(1)" not in template
    block = _data_block(page)
    assert "<" not in block and ">" not in block and "&" not in block and "\u2028" not in block
    assert len(re.findall(r"(?i)</script", page)) == 3
    data = json.loads(block)
    row = _results_by_node(g, data)[node]
    assert row[2] == XSS_IMG and data["sentences"][row[7]] == HOSTILE_EVIDENCE
    assert _utf16_slice(HOSTILE_EVIDENCE, *row[8]) == XSS_IMG  # found by its text: offsets are elsewhere
    # and it tops its dataset's board (the best FID), where the page will show it as text
    k = list(_results_by_node(g, data)).index(node)
    assert any(groups[0][2][0] == k for _u, groups in data["boards"])
    check_streamed_pages(g, tmp_path, monkeypatch)
