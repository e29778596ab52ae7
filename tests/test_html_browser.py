"""The HTML explorer in a real headless Chromium (Playwright, sync API).

Every page is opened from ``file://`` with every request routed: anything that is not a
``file:`` URL fails the test. No dialog may fire (the graph is full of script payloads), no page
error, no Content-Security-Policy violation. Screenshots go to ``tests/artifacts/``.

Chromium: ``/usr/bin/chromium`` (Debian package; Playwright's own download is not used). Without
it these tests skip locally and FAIL in CI (``CI`` set).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from pathlib import Path

import pytest

from paperkg.graph import explorer as kghtml
from paperkg.graph.communities import community_labels

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("PAPERKG_CHROMIUM", kghtml.CHROMIUM)
CHROMIUM_ARGS = list(kghtml.CHROMIUM_ARGS)
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
TTI_BUDGET_S = 5.0

_spec = importlib.util.spec_from_file_location("_paperkg_html_helpers", Path(__file__).with_name("test_html.py"))
_helpers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_helpers)
make_graph = _helpers.make_graph
NASTY_NAMES = _helpers.NASTY_NAMES
NASTY_TITLE = _helpers.NASTY_TITLE
XSS_IMG = _helpers.XSS_IMG
HOSTILE_EVIDENCE = _helpers.HOSTILE_EVIDENCE


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install playwright)")
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        _unavailable(f"{CHROMIUM} not found (apt-get install chromium)")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


class Page:
    """A Playwright page that records external requests, dialogs, errors and CSP violations."""

    def __init__(self, browser, path: Path, viewport=(1400, 900)):
        self.context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]})
        self.page = self.context.new_page()
        self.external: list[str] = []
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.route("**/*", self._route)
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("console", lambda msg: self.errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
        self.page.add_init_script(
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        self.page.goto(path.as_uri())
        self.page.wait_for_function("window.paperkgReady === true", timeout=30_000)

    def _route(self, route):
        url = route.request.url
        if url.startswith("file:"):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def eval(self, script: str, arg=None):
        return self.page.evaluate(script, arg)

    def check_clean(self):
        csp = self.eval("window.__csp")
        assert self.external == [], f"external requests: {self.external}"
        assert self.dialogs == [], f"dialogs fired: {self.dialogs}"
        assert self.errors == [], f"page errors: {self.errors}"
        assert csp == [], f"CSP violations: {csp}"

    def screenshot(self, name: str):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

    def close(self):
        self.context.close()

    # --- helpers on the page -----------------------------------------------------------
    def counts(self) -> dict:
        return self.eval("window.paperkg.counts()")

    def hidden_nodes(self) -> set[str]:
        return set(self.eval("window.paperkg.nodes.get({filter: (n) => !!n.hidden}).map((n) => n.id)"))

    def panel_node(self):
        return self.eval("document.getElementById('panel').hidden ? null : document.getElementById('panel').dataset.node")

    def click_node(self, node_id: str) -> bool:
        """A real mouse click on the node's canvas position; False if another node covers it."""
        point = self.eval(
            """(id) => {
                const net = window.paperkg.network;
                const pos = net.getPositions([id])[id];
                const dom = net.canvasToDOM(pos);
                const hit = net.getNodeAt(dom);
                const box = document.querySelector('#graph canvas').getBoundingClientRect();
                return {x: box.left + dom.x, y: box.top + dom.y, hit: hit === undefined ? null : hit,
                        inside: dom.x > 0 && dom.y > 0 && dom.x < box.width && dom.y < box.height};
            }""",
            node_id,
        )
        if point["hit"] != node_id or not point["inside"]:
            return False
        self.page.mouse.click(point["x"], point["y"])
        return True

    def open_topic(self) -> str:
        """Open the largest topic of the topic map with a real click on it; returns its node id."""
        topic = self.eval("'community:' + window.paperkg.data.communities[0][0]")
        self.eval("window.paperkg.network.fit({animation: false})")
        assert self.click_node(topic), f"{topic} cannot be clicked"
        self.page.wait_for_function("document.getElementById('crumbs').hidden === false")
        return topic

    def label_overlap(self) -> tuple[int, float]:
        """(labels drawn, share of them whose box overlaps another's), the boxes measured here:
        each label's text width with the canvas font it was drawn in, placed at its node's
        screen position (centred on a topic, below any other node)."""
        boxes = self.eval(
            """() => {
                const net = window.paperkg.network, ctx = document.createElement('canvas').getContext('2d');
                return window.paperkg.labels().map((l) => {
                    const pos = net.canvasToDOM(net.getPositions([l.id])[l.id]);
                    const w = Math.max(...l.lines.map((t, i) => { ctx.font = l.fonts[i]; return ctx.measureText(t).width; }));
                    const h = l.lineH * l.lines.length, r = window.paperkg.nodes.get(l.id).size * net.getScale();
                    const top = l.id.startsWith('community:') ? pos.y - h / 2 : pos.y + r + 2;
                    return [pos.x - w / 2, top, w, h];
                });
            }"""
        )
        def hit(a, b):
            return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
        overlapping = sum(1 for i, a in enumerate(boxes) if any(hit(a, b) for j, b in enumerate(boxes) if j != i))
        return len(boxes), overlapping / max(len(boxes), 1)

    def free_edge(self, kind: str):
        """(id, from, to, DOM point) of a drawn edge of ``kind`` whose midpoint, zoomed in, hits
        that edge and no node; fails the test when there is none."""
        edges = self.eval("(k) => window.paperkg.edges.get().filter((e) => e.kind === k).map((e) => [e.id, e.from, e.to])", kind)
        assert edges, f"no {kind} edge drawn"
        for edge_id, source, target in edges[:60]:
            self.zoom_to(source, 1.5)
            point = self.eval(
                """([id, a, b]) => {
                    const net = window.paperkg.network, pos = net.getPositions([a, b]);
                    const m = net.canvasToDOM({x: (pos[a].x + pos[b].x) / 2, y: (pos[a].y + pos[b].y) / 2});
                    const box = document.querySelector('#graph canvas').getBoundingClientRect();
                    // vis shows an edge's tooltip only where no node overlaps and no other edge does
                    const c = net.DOMtoCanvas(m), probe = {left: c.x, top: c.y, right: c.x, bottom: c.y};
                    const covered = net.body.nodeIndices.some((i) => net.body.nodes[i].isOverlappingWith(probe));
                    const hits = net.body.edgeIndices.filter((i) => net.body.edges[i].isOverlappingWith(probe));
                    const ok = hits.length === 1 && hits[0] === id && !covered &&
                               m.x > 20 && m.y > 20 && m.x < box.width - 20 && m.y < box.height - 20;
                    return ok ? {x: box.left + m.x, y: box.top + m.y} : null;
                }""",
                [edge_id, source, target],
            )
            if point:
                return edge_id, source, target, point
        pytest.fail(f"no {kind} edge midpoint free of nodes")

    def zoom_to(self, node_id: str, scale: float = 2.0):
        self.eval("([id, s]) => window.paperkg.network.focus(id, {scale: s, animation: false})", [node_id, scale])
        self.page.wait_for_timeout(50)


@pytest.fixture(scope="module")
def graph():
    return make_graph()


@pytest.fixture(scope="module")
def site(graph, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    focus = ["paper:P0000", "entity:" + "dataset/dataset001"]
    paths = kghtml.write_views(graph, out, focus=focus)
    capped = kghtml.write_html(graph, out / "capped.html", view="similarity", max_papers=5)
    return {"dir": out, "pages": {p.name: p for p in paths}, "capped": capped[0]}


@pytest.fixture
def topic_page(site, open_page):
    """The topic map with its largest topic opened (papers and their entities drawn)."""
    def _open():
        page = open_page(site["pages"]["explorer.html"])
        page.open_topic()
        return page
    return _open


@pytest.fixture
def open_page(browser):
    opened = []

    def _open(path: Path, **kwargs) -> Page:
        page = Page(browser, path, **kwargs)
        opened.append(page)
        return page

    yield _open
    for page in opened:
        page.close()


def _expected(graph, name: str) -> dict:
    view = {"explorer.html": "overview", "entities.html": "entity-map", "similarity.html": "similarity"}.get(name)
    if view:
        data = kghtml.explorer_data(graph, view=view)
    elif name == "focus-paper-P0000.html":
        data = kghtml.explorer_data(graph, focus="paper:P0000")
    else:
        data = kghtml.explorer_data(graph, focus="entity:dataset/dataset001")
    return data


# ------------------------------------------------------------------------------ loading


@pytest.mark.parametrize(
    "name",
    ["explorer.html", "entities.html", "similarity.html", "focus-paper-P0000.html", "focus-entity-dataset-dataset001.html"],
)
def test_every_view_loads_offline_with_the_expected_network(graph, site, open_page, name):
    name = name if name in site["pages"] else next(n for n in site["pages"] if n.startswith(name[:-5]))
    page = open_page(site["pages"][name])
    data = _expected(graph, name)
    counts = page.counts()
    assert counts["nodes"] == len(data["view"]["nodes"]) > 0
    assert counts["edges"] == len(data["view"]["edges"]) > 0
    assert counts["visibleNodes"] == counts["nodes"] and counts["visibleEdges"] == counts["edges"]
    drawn = set(page.eval("window.paperkg.nodes.getIds()"))
    assert drawn == {n["id"] for n in data["view"]["nodes"]}
    assert page.eval("window.paperkg.network.physics.options.enabled") is False
    timing = page.eval("window.paperkgTiming")
    assert 0 < timing["ready"] < TTI_BUDGET_S * 1000
    stats = page.eval("Array.from(document.querySelectorAll('.stats dd')).map((d) => d.textContent)")
    assert stats[0] == str(data["meta"]["stats"]["papers"])
    if data["meta"]["center"]:
        assert page.eval("window.paperkg.network.getSelectedNodes()") == [data["meta"]["center"]]
        assert page.panel_node() == data["meta"]["center"]
    page.screenshot("view-" + name.removesuffix(".html"))
    page.check_clean()


def test_view_links_navigate_between_files(site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    page.page.click("nav.views a[href='entities.html']")
    page.page.wait_for_function("document.body.dataset.view === 'entity-map' && window.paperkgReady === true")
    page.check_clean()


# ------------------------------------------------------------------------------ search


def test_search_selects_a_drawn_paper(site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    page.page.fill("#search", "Paper 7 on topic")
    page.page.wait_for_selector("#suggestions li[role=option]")
    first = page.eval("document.querySelector('#suggestions li').dataset.node")
    assert first == "paper:P0007"
    assert page.eval("document.getElementById('search').getAttribute('aria-expanded')") == "true"
    assert "opens its topic" in page.eval("document.querySelector('#suggestions li .s-kind').textContent")
    page.page.keyboard.press("Enter")
    assert page.eval("window.paperkg.network.getSelectedNodes()") == ["paper:P0007"]
    assert page.eval("document.getElementById('crumbs').textContent").startswith("Topic map › Topic: ")
    assert page.panel_node() == "paper:P0007"
    assert page.eval("document.getElementById('panel-title').textContent") == "Paper 7 on topic 2"
    assert page.eval("document.getElementById('suggestions').hidden") is True
    # the camera moved to it: the node is at the canvas centre
    centre = page.eval(
        """() => { const net = window.paperkg.network; const p = net.canvasToDOM(net.getPositions(['paper:P0007'])['paper:P0007']);
                   const box = document.querySelector('#graph canvas').getBoundingClientRect();
                   return [Math.round(p.x - box.width / 2), Math.round(p.y - box.height / 2)]; }"""
    )
    assert abs(centre[0]) <= 2 and abs(centre[1]) <= 2
    page.check_clean()


def test_search_matches_aliases_and_reaches_undrawn_nodes(graph, site, open_page):
    page = open_page(site["capped"])
    drawn = set(page.eval("window.paperkg.nodes.getIds()"))
    i = next(i for i in range(10, 39) if f"paper:P{i:04d}" not in drawn)
    node = f"paper:P{i:04d}"
    page.page.fill("#search", f"Paper {i} on")
    page.page.wait_for_selector(f"#suggestions li[data-node='{node}']")
    hint = page.eval(f"document.querySelector(\"#suggestions li[data-node='{node}'] .s-kind\").textContent")
    assert "opens its neighbourhood" in hint
    page.page.click(f"#suggestions li[data-node='{node}']")
    assert page.eval("window.paperkg.network.getSelectedNodes()") == [node]
    assert page.eval("document.getElementById('view-title').textContent").startswith("Focus: ")
    assert page.eval("document.getElementById('reset-view').hidden") is False
    # aliases: "Me-5" is an alias of Method005
    page.page.fill("#search", "me-5")
    page.page.wait_for_selector("#suggestions li[role=option]")
    assert page.eval("document.querySelector('#suggestions li').dataset.node") == "entity:method/method005"
    assert "alias" in page.eval("document.querySelector('#suggestions li .s-kind').textContent")
    page.page.keyboard.press("ArrowDown")
    page.page.keyboard.press("Escape")
    assert page.eval("document.getElementById('suggestions').hidden") is True
    page.check_clean()


# ------------------------------------------------------------------------------ filters


def test_type_filter_hides_exactly_that_type(site, topic_page):
    page = topic_page()
    by_group = page.eval("window.paperkg.nodes.get().map((n) => [n.id, n.group])")
    methods = {node for node, group in by_group if group == "g1"}
    assert methods
    page.page.uncheck("#type-options input[value='Method']")
    assert page.hidden_nodes() == methods
    counts = page.counts()
    assert counts["visibleNodes"] == counts["nodes"] - len(methods)
    status = page.eval("document.getElementById('filter-status').textContent")
    assert f"Showing {counts['visibleNodes']} of {counts['nodes']} nodes" in status
    page.page.check("#type-options input[value='Method']")
    assert page.hidden_nodes() == set()
    page.check_clean()


def test_filters_never_hide_everything_silently(site, topic_page):
    page = topic_page()
    for box in page.page.query_selector_all("#type-options input"):
        box.uncheck()
    assert page.counts()["visibleNodes"] == 0
    status = page.page.locator("#filter-status")
    assert "Every node is hidden" in status.text_content()
    assert "warn" in status.get_attribute("class")
    page.screenshot("filters-all-hidden")
    page.page.click("#reset-filters")
    counts = page.counts()
    assert counts["visibleNodes"] == counts["nodes"] and counts["visibleEdges"] == counts["edges"]
    assert "warn" not in (status.get_attribute("class") or "")
    page.check_clean()


def test_role_filter_hides_links_of_that_role(graph, site, topic_page):
    page = topic_page()
    edges = page.eval("window.paperkg.edges.get().map((e) => [e.id, e.role, e.to])")
    page.page.uncheck("#role-options input[value='mentioned']")
    hidden_edges = set(page.eval("window.paperkg.edges.get({filter: (e) => !!e.hidden}).map((e) => e.id)"))
    assert hidden_edges == {e for e, role, _to in edges if role == 2}
    only_mentioned = {to for _e, _r, to in edges} - {to for _e, role, to in edges if role != 2}
    assert page.hidden_nodes() == only_mentioned
    page.page.check("#role-options input[value='mentioned']")
    assert page.counts()["visibleEdges"] == len(edges)
    page.check_clean()


# ------------------------------------------------------------------------------ panel


def test_clicking_a_node_opens_its_evidence(graph, site, topic_page):
    page = topic_page()
    drawn = set(page.eval("window.paperkg.nodes.getIds()"))
    candidates = [n for n in sorted(graph) if n in drawn and n.startswith("paper:") and graph.out_degree(n) >= 2]
    clicked = None
    for node in candidates:
        page.zoom_to(node)
        if page.click_node(node):
            clicked = node
            break
    assert clicked, "no paper could be clicked without another node on top"
    page.page.wait_for_selector("#panel:not([hidden])")
    assert page.panel_node() == clicked
    assert page.eval("window.paperkg.network.getSelectedNodes()") == [clicked]
    marks = page.eval("Array.from(document.querySelectorAll('#panel .evidence mark')).map((m) => m.textContent)")
    names = {graph.nodes[e]["name"] for e in graph.successors(clicked) if graph.nodes[e]["kind"] == "Entity"}
    assert marks and set(marks) <= names
    evidence = page.eval("Array.from(document.querySelectorAll('#panel .evidence')).map((p) => p.textContent)")
    expected = {d["evidence"] for _, _, d in graph.out_edges(clicked, data=True) if d["kind"] == "HAS"}
    assert set(evidence) == expected
    # neighbours highlighted: every other node is faded
    faded = set(page.eval("window.paperkg.nodes.get({filter: (n) => n.color && n.color.background === '#ececec'}).map((n) => n.id)"))
    linked = page.eval("(id) => window.paperkg.edges.get().filter((e) => e.from === id || e.to === id).map((e) => [e.from, e.to])", clicked)
    neighbours = {n for pair in linked for n in pair} | {clicked}
    assert {e for e in graph.successors(clicked) if graph.nodes[e]["kind"] == "Entity"} & drawn <= neighbours
    assert faded == drawn - neighbours
    page.screenshot("panel-paper")
    # Escape closes the panel and restores the colours
    page.page.keyboard.press("Escape")
    assert page.panel_node() is None
    assert page.eval("window.paperkg.nodes.get({filter: (n) => n.color && n.color.background === '#ececec'}).length") == 0
    page.check_clean()


def test_edge_tooltip_and_click_show_the_evidence(graph, site, topic_page):
    page = topic_page()
    edges = page.eval("window.paperkg.edges.get().filter((e) => e.kind === 'HAS').map((e) => [e.id, e.from, e.to])")
    for edge_id, source, target in edges:
        page.zoom_to(source, 1.5)
        point = page.eval(
            """([id, a, b]) => {
                const net = window.paperkg.network, pos = net.getPositions([a, b]);
                const m = net.canvasToDOM({x: (pos[a].x + pos[b].x) / 2, y: (pos[a].y + pos[b].y) / 2});
                const box = document.querySelector('#graph canvas').getBoundingClientRect();
                // vis shows an edge tooltip only where no node (label included) overlaps
                const c = net.DOMtoCanvas(m), probe = {left: c.x, top: c.y, right: c.x, bottom: c.y};
                const covered = net.body.nodeIndices.some((i) => net.body.nodes[i].isOverlappingWith(probe));
                const hits = net.body.edgeIndices.filter((i) => net.body.edges[i].isOverlappingWith(probe));
                return {x: box.left + m.x, y: box.top + m.y, edge: hits.length === 1 ? hits[0] : null, node: covered ? 'covered' : null,
                        inside: m.x > 20 && m.y > 20 && m.x < box.width - 20 && m.y < box.height - 20};
            }""",
            [edge_id, source, target],
        )
        if point["edge"] == edge_id and point["node"] is None and point["inside"]:
            break
    else:
        pytest.fail("no edge midpoint free of nodes")
    page.page.mouse.move(point["x"] - 15, point["y"] - 15)
    page.page.mouse.move(point["x"], point["y"], steps=3)
    page.page.wait_for_selector("div.vis-tooltip", state="visible", timeout=5000)
    data = graph.edges[source, target]
    tooltip = page.eval("document.querySelector('div.vis-tooltip').textContent")
    assert data["evidence"] in tooltip and data["role"] in tooltip
    marks = page.eval("Array.from(document.querySelectorAll('div.vis-tooltip mark')).map((m) => m.textContent)")
    assert marks == [graph.nodes[target]["name"]]
    page.page.mouse.click(point["x"], point["y"])
    assert page.eval("document.getElementById('panel-title').textContent") == "Link: " + data["role"]
    assert page.eval("document.querySelector('#panel .evidence').textContent") == data["evidence"]
    page.check_clean()


def test_entity_panel_lists_papers_by_role_and_cooccurring(graph, site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    entity = max((n for n in graph if n.startswith("entity:")), key=lambda n: (graph.in_degree(n), n))
    page.eval("(id) => window.paperkg.select(id)", entity)
    roles = page.eval(
        "Object.fromEntries(Array.from(document.querySelectorAll('#panel ul[data-role]')).map((u) => [u.dataset.role, u.children.length]))"
    )
    expected = {}
    for _p, _e, d in graph.in_edges(entity, data=True):
        expected[d["role"]] = expected.get(d["role"], 0) + 1
    assert {r: min(n, 25) for r, n in expected.items()} == roles
    assert page.eval("document.querySelectorAll('#panel ul[data-list=co-occurring] li').length") > 0
    page.check_clean()


def test_only_http_links_in_the_panel(site, topic_page):
    page = topic_page()
    page.eval("window.paperkg.select('paper:P0000')")  # javascript: URL
    assert page.eval("document.querySelectorAll('#panel a').length") == 0
    page.eval("window.paperkg.select('paper:P0002')")
    hrefs = page.eval("Array.from(document.querySelectorAll('#panel a')).map((a) => [a.href, a.rel, a.target])")
    assert hrefs == [["https://openreview.net/forum?id=P0002", "noopener noreferrer", "_blank"]]
    page.check_clean()


# ------------------------------------------------------------------------------ hostile text


def test_hostile_text_renders_as_text(graph, site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    # paper with payloads in title, label, venue, authors and evidence
    page.page.fill("#search", "attention </script>")
    page.page.wait_for_selector("#suggestions li[data-node='paper:P0000']")
    suggestion = page.eval("document.querySelector(\"#suggestions li[data-node='paper:P0000']\").textContent")
    assert NASTY_TITLE in suggestion
    page.page.keyboard.press("Enter")
    assert page.eval("document.getElementById('panel-title').textContent") == NASTY_TITLE
    body = page.eval("document.getElementById('panel-body').textContent")
    assert XSS_IMG in body and '"><svg onload=alert(1)>' in body and "<script>alert(1)</script>" in body
    for name in list(NASTY_NAMES.values())[:5]:
        assert name in body  # entity names listed with their evidence
    page.screenshot("hostile-paper-panel")
    # entity panels and tooltips
    for key in ("method/method000", "dataset/dataset001", "benchmark/benchmark002", "metric/metric004"):
        node = "entity:" + key
        page.eval("(id) => window.paperkg.select(id)", node)
        assert page.eval("document.getElementById('panel-title').textContent") == graph.nodes[node]["name"]
    page.zoom_to("paper:P0000", 3)
    point = page.eval(
        """() => { const net = window.paperkg.network; const d = net.canvasToDOM(net.getPositions(['paper:P0000'])['paper:P0000']);
                   const box = document.querySelector('#graph canvas').getBoundingClientRect(); return [box.left + d.x, box.top + d.y]; }"""
    )
    page.page.mouse.move(point[0] - 30, point[1] - 30)
    page.page.mouse.move(point[0], point[1], steps=4)
    page.page.wait_for_selector("div.vis-tooltip", state="visible", timeout=5000)
    tooltip = page.eval("document.querySelector('div.vis-tooltip').textContent")
    assert NASTY_TITLE in tooltip
    page.screenshot("hostile-tooltip")
    injected = page.eval("document.querySelectorAll('body img, body svg, body iframe, body object').length")
    assert injected == 0
    scripts = page.eval("document.querySelectorAll('script').length")
    assert scripts == 3
    page.check_clean()


# ------------------------------------------------------------------------------ topic map, links, records


def test_topic_map_opens_a_topic_in_place_and_the_breadcrumb_returns(graph, site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    base = page.counts()
    topics = page.eval("window.paperkg.data.communities")
    floor = min(5, max(c[1] for c in topics if c[0] != -1))
    assert set(page.eval("window.paperkg.nodes.getIds()")) == {f"community:{c[0]}" for c in topics if c[1] >= floor}
    assert page.eval("document.getElementById('type-filter').hidden") is True  # no 0/0 rows on the map
    assert page.eval("document.getElementById('legend-topics').hidden") is False
    topic = page.open_topic()
    number = int(topic.split(":")[1])
    members = {n for n, d in graph.nodes(data=True) if d["kind"] == "Paper" and d["community"] == number}
    drawn = set(page.eval("window.paperkg.nodes.getIds()"))
    papers = {n for n in drawn if n.startswith("paper:")}
    assert papers and papers <= members and len(papers) == min(len(members), 150)
    for entity in (n for n in drawn if n.startswith("entity:")):
        assert len(set(graph.predecessors(entity)) & members) >= 2  # entities the topic's papers share
    assert page.panel_node() == topic
    labels = page.eval("Array.from(document.querySelectorAll('#panel ul[data-list=labels] li button')).map((b) => b.textContent)")
    assert labels == [graph.nodes[e]["name"] for e in community_labels(graph)[number]]
    # the filters show only the types and roles the topic holds: no 0/0 row
    rows = page.eval("Array.from(document.querySelectorAll('#type-options label, #role-options label')).filter((l) => !l.hidden).map((l) => l.textContent)")
    assert rows and not any(r.endswith(" 0/0") or r.endswith(" 0") for r in rows)
    assert "Topic: " in page.eval("document.getElementById('crumbs').textContent")
    page.screenshot("topic-open")
    page.page.click("#crumb-base")
    assert page.counts() == base
    assert page.eval("document.getElementById('crumbs').hidden") is True
    page.check_clean()


def test_paper_paper_edge_shows_why_they_are_linked(graph, topic_page):
    page = topic_page()
    edge_id, source, target, point = page.free_edge("REL")
    data = graph.edges[source, target] if graph.has_edge(source, target) else graph.edges[target, source]
    # straight onto the midpoint: passing over other edges on the way could show their tooltip
    page.page.mouse.move(point["x"], point["y"])
    page.page.wait_for_function(
        "(t) => { const tt = document.querySelector('div.vis-tooltip'); return tt && tt.style.visibility !== 'hidden' && tt.textContent.includes(t); }",
        arg="Why linked", timeout=5000,
    )
    tooltip = page.eval("document.querySelector('div.vis-tooltip').textContent")
    assert "Why linked" in tooltip and data["evidence"][0]["name"] in tooltip
    assert f"+{data['evidence'][0]['contribution']}" in tooltip
    page.page.mouse.click(point["x"], point["y"])
    assert page.eval("document.getElementById('panel-title').textContent") == "Why these papers are linked"
    assert page.eval("document.getElementById('panel').dataset.edge") == edge_id
    shared = page.eval("Array.from(document.querySelectorAll('#panel ul[data-list=shared] > li')).map((li) => [li.querySelector('button').textContent, li.querySelector('.contribution').textContent])")
    assert shared == [[e["name"], f"contribution {e['contribution']}"] for e in data["evidence"]][:6]
    ends = page.eval("Array.from(document.querySelectorAll('#panel ul[data-list=papers] button')).map((b) => b.textContent)")
    title = lambda n: graph.nodes[n]["title"] or graph.nodes[n]["label"]  # noqa: E731
    assert sorted(ends) == sorted([title(source), title(target)])
    page.page.click("#panel ul[data-list=papers] li:first-child button")  # the link to a paper works
    assert page.panel_node() in {source, target}
    page.screenshot("edge-why-linked")
    page.check_clean()


def test_entity_panel_shows_canonical_id_and_archived_record(graph, site, open_page):
    page = open_page(site["pages"]["entities.html"])
    page.eval("window.paperkg.select('entity:method/method000')")
    assert page.eval("document.querySelector('#panel .canonical').textContent") == "Canonical id: method/method000"
    record = page.eval("Array.from(document.querySelectorAll('#panel .record a')).map((a) => [a.href, a.rel, a.target])")
    assert record == [["https://paperswithcode.com/method/soft-actor-critic", "noopener noreferrer", "_blank"]]
    assert "Papers with Code: soft-actor-critic" in page.eval("document.querySelector('#panel .record').textContent")
    page.eval("window.paperkg.select('entity:metric/metric004')")  # javascript: record URL: no link
    assert page.eval("document.querySelectorAll('#panel .record a').length") == 0
    page.check_clean()


def test_labels_never_overlap_at_the_initial_view_and_when_zoomed(site, topic_page):
    page = topic_page()
    drawn, share = page.label_overlap()
    assert drawn >= 10 and share < 0.05
    before = drawn
    page.eval("window.paperkg.network.moveTo({scale: window.paperkg.network.getScale() * 3, animation: false})")
    page.page.wait_for_timeout(100)
    drawn, share = page.label_overlap()
    assert drawn > 0 and share < 0.05
    page.eval("window.paperkg.network.fit({animation: false})")
    page.page.wait_for_timeout(100)
    assert page.label_overlap()[0] == before
    page.check_clean()


# ------------------------------------------------------------------------------ focus mode


def test_in_page_focus_matches_the_python_ego_graph(graph, site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    base = page.counts()
    for node, hops, cap in (("paper:P0001", 2, 300), ("entity:method/method005", 1, 300), ("paper:P0003", 3, 12)):
        expected = kghtml.explorer_data(graph, focus=node, hops=hops, max_focus_nodes=cap)
        ids = sorted(n["id"] for n in expected["view"]["nodes"])
        assert page.eval("([id, h, c]) => window.paperkg.ego(id, h, c)", [node, hops, cap]) == ids
    expected = kghtml.explorer_data(graph, focus="paper:P0001", hops=2)
    page.page.select_option("#hops", "2")
    page.eval("window.paperkg.select('paper:P0001')")
    page.page.click("#focus-selected")
    counts = page.counts()
    assert counts["nodes"] == len(expected["view"]["nodes"])
    assert counts["edges"] == len(expected["view"]["edges"])
    assert sorted(page.eval("window.paperkg.edges.getIds()")) == sorted(e["id"] for e in expected["view"]["edges"])
    assert page.eval("window.paperkg.network.getSelectedNodes()") == ["paper:P0001"]
    assert page.eval("document.getElementById('view-title').textContent").startswith("Focus: ")
    page.screenshot("focus-in-page")
    page.page.click("#reset-view")
    assert page.counts() == base
    page.check_clean()


def test_keyboard_only_flow(site, open_page):
    page = open_page(site["pages"]["explorer.html"])
    page.page.keyboard.press("Tab")  # skip link
    page.page.keyboard.press("Enter")
    assert page.eval("document.activeElement.id") == "search"
    page.page.keyboard.type("Paper 5 on")
    page.page.keyboard.press("ArrowDown")
    active = page.eval("document.getElementById('search').getAttribute('aria-activedescendant')")
    assert active and page.eval(f"document.getElementById('{active}').getAttribute('aria-selected')") == "true"
    page.page.keyboard.press("Enter")
    assert page.panel_node() is not None
    # the panel's buttons are reachable and work from the keyboard
    page.eval("document.querySelector('#panel .actions button').focus()")
    page.page.keyboard.press("Enter")
    assert page.eval("document.getElementById('view-title').textContent").startswith("Focus: ")
    assert page.eval("document.activeElement.id") == "panel"
    page.page.keyboard.press("Escape")
    assert page.panel_node() is None
    outline = page.eval(
        "(() => { const b = document.getElementById('reset-filters'); b.focus(); return getComputedStyle(b).outlineStyle; })()"
    )
    assert outline == "solid"
    # the drawing is one tab stop (vis' own frame) and pans with the arrow keys
    page.page.keyboard.press("Escape")
    for _ in range(3):
        page.page.keyboard.press("Tab")
        if page.eval("document.activeElement.classList.contains('vis-network')"):
            break
    assert page.eval("document.activeElement.getAttribute('role')") == "application"
    before = page.eval("window.paperkg.network.getViewPosition()")
    page.page.keyboard.down("ArrowRight")
    page.page.wait_for_timeout(250)
    page.page.keyboard.up("ArrowRight")
    assert page.eval("window.paperkg.network.getViewPosition()")["x"] != before["x"]
    page.check_clean()


# ------------------------------------------------------------------------------ real data


@pytest.mark.shared_data
def test_seeds_graph_views(seeds_kg, tmp_path, open_page):
    """The seeds corpus (../shared/data/seeds) built by paperkg.build, every view in Chromium;
    at the initial view of each, under 5% of the drawn labels overlap another."""
    paths = seeds_kg.to_html(tmp_path)
    assert [p.name for p in paths] == list(kghtml.VIEW_FILES.values())
    for path in paths:
        page = open_page(path)
        view = json.loads(page.eval("JSON.stringify(window.paperkg.data.meta.view)"))
        data = kghtml.explorer_data(seeds_kg.graph, view=view)
        counts = page.counts()
        assert counts["nodes"] == len(data["view"]["nodes"])
        assert counts["edges"] == len(data["view"]["edges"])
        drawn, share = page.label_overlap()
        assert drawn > 0 and share < 0.05, f"{path.name}: {share:.0%} of {drawn} labels overlap"
        if view == "overview":
            assert all(n["id"].startswith("community:") for n in data["view"]["nodes"])
            page.open_topic()
            drawn, share = page.label_overlap()
            assert drawn > 0 and share < 0.05
        page.screenshot("seeds-" + path.stem)
        page.check_clean()


@pytest.mark.shared_data
def test_icml2024_topic_map(shared_data, tmp_path, open_page):
    """ICML 2024 (2,634 papers): the overview is a topic map with specific labels, ready within
    5 s; a topic, a paper and a paper-paper edge open with real clicks; labels do not overlap.

    Uses the graph.json named by PAPERKG_ICML_GRAPH when set, else builds it with the rules
    only (about 15 s; bench/bench_html.py times the default build with the trained model).
    """
    import paperkg
    from paperkg.graph.communities import umbrella_threshold

    prebuilt = os.environ.get("PAPERKG_ICML_GRAPH")
    if prebuilt:
        kg = paperkg.load(prebuilt)
    else:
        kg = paperkg.build([shared_data / "corpus" / "icml2024.jsonl"], use_model=False, progress=False)
    g = kg.graph
    assert g.number_of_nodes() > 2634
    started = time.perf_counter()
    path = kghtml.write_html(g, tmp_path / "icml.html")[0]
    assert time.perf_counter() - started < 60
    page = open_page(path)
    ready_ms = page.eval("window.paperkgTiming.ready")
    assert ready_ms < TTI_BUDGET_S * 1000, f"interactive after {ready_ms:.0f} ms"
    # a topic map whose largest topics carry specific labels (never an umbrella term), all different
    topics = page.eval("window.paperkg.data.communities")
    drawn_topics = set(page.eval("window.paperkg.nodes.getIds()"))
    assert len(topics) >= 8 and drawn_topics == {f"community:{t[0]}" for t in [t for t in topics if t[1] >= 5][:40]}
    assert len(drawn_topics) >= 8
    entities = page.eval("window.paperkg.data.entities")
    n_papers = len(page.eval("window.paperkg.data.papers"))
    label_ids = [entities[u - n_papers]["i"] for t in topics[:10] for u in t[2]]
    assert all(t[2] for t in topics[:10]) and len(label_ids) == len(set(label_ids))
    assert all(g.nodes[e]["paper_count"] <= umbrella_threshold(n_papers) for e in label_ids)
    drawn, share = page.label_overlap()
    assert drawn >= 8 and share < 0.05, f"{share:.0%} of {drawn} labels overlap"
    page.screenshot("icml2024-topic-map")
    # open a topic (click), then a paper (click), then a paper-paper edge (click)
    topic = page.open_topic()
    assert page.panel_node() == topic
    drawn, share = page.label_overlap()
    assert drawn > 0 and share < 0.05
    papers = page.eval("window.paperkg.nodes.getIds().filter((id) => id.startsWith('paper:'))")
    clicked = None
    for node in papers[:40]:
        page.zoom_to(node, 2.5)
        if page.click_node(node):
            clicked = node
            break
    assert clicked and page.panel_node() == clicked
    assert page.eval("document.querySelectorAll('#panel .evidence').length") > 0
    page.page.keyboard.press("Escape")
    edge_id, source, target, point = page.free_edge("REL")
    page.page.mouse.click(point["x"], point["y"])
    assert page.eval("document.getElementById('panel').dataset.edge") == edge_id
    # a link names its entities, or (kind text) the shared words its text similarity rests on
    assert page.eval("document.querySelectorAll('#panel ul[data-list=shared] > li, #panel ul[data-list=terms] > li')"
                     ".length") > 0
    page.screenshot("icml2024-why-linked")
    # interactive means it: a search selects a paper at once
    title = next(d["title"] for _n, d in g.nodes(data=True) if d.get("kind") == "Paper" and d.get("title"))
    page.page.fill("#search", title)
    page.page.wait_for_selector("#suggestions li[role=option]")
    page.page.keyboard.press("Enter")
    assert page.panel_node() is not None
    page.check_clean()


# ------------------------------------------------------------------------------ results and leaderboards


@pytest.fixture(scope="module")
def results_site(shared_data, use_model, tmp_path_factory):
    """Real ICML 2024 abstracts that report results (test_html.RESULT_PAPERS), built by
    paperkg.build, plus one hostile result; every view written."""
    out = tmp_path_factory.mktemp("results-site")
    g = _helpers.build_results_graph(shared_data, use_model, out)
    hostile = _helpers.add_hostile_result(g)
    paths = kghtml.write_views(g, out / "site")
    return {"graph": g, "hostile": hostile, "page": paths[0]}


def _panel_results(page) -> list[dict]:
    return page.eval(
        """Array.from(document.querySelectorAll('#panel ul[data-list=results] > li')).map((li) => ({
            value: li.querySelector('.result-value').textContent,
            kind: li.querySelector('.badge').textContent,
            slots: li.querySelector('.slots') ? li.querySelector('.slots').textContent : '',
            evidence: li.querySelector('.evidence').textContent,
            marks: Array.from(li.querySelectorAll('.evidence mark')).map((m) => m.textContent)}))"""
    )


@pytest.mark.shared_data
def test_paper_panel_lists_its_results_with_the_value_marked(results_site, open_page):
    from paperkg.graph.results import paper_results

    g = results_site["graph"]
    page = open_page(results_site["page"])
    checked = 0
    for paper_id in _helpers.RESULT_PAPERS:
        expected = paper_results(g, paper_id)
        page.eval("(id) => window.paperkg.select(id)", "paper:" + paper_id)
        assert page.panel_node() == "paper:" + paper_id
        shown = _panel_results(page)
        assert [(r["value"], r["kind"], r["evidence"]) for r in shown] == \
            [(r["value"], r["kind"], r["evidence"]) for r in expected]
        for row, want in zip(shown, expected):
            assert row["marks"] == [want["value"]]
            for slot in ("metric", "dataset", "method", "task"):
                assert (f"{slot}: {want[slot]}" in row["slots"]) == (want[slot] is not None)
            checked += 1
    assert checked >= 10
    header = page.eval("Object.fromEntries(Array.from(document.querySelectorAll('.stats div')).map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent]))")
    assert header["Results"] == str(sum(1 for _n, kind in g.nodes(data="kind") if kind == "Result"))
    page.eval("(id) => window.paperkg.select(id)", "paper:k5ncz7TIPX")
    page.screenshot("results-paper-panel")
    page.check_clean()


@pytest.mark.shared_data
def test_dataset_panel_shows_its_leaderboard_and_a_metric_its_datasets(results_site, open_page):
    from paperkg.graph.analytics import find_entity
    from paperkg.graph.results import leaderboard

    g = results_site["graph"]
    page = open_page(results_site["page"])
    cifar = find_entity(g, "CIFAR-10")
    expected = leaderboard(g, g.nodes[cifar]["key"], k=10_000)
    assert len(expected) >= 4
    page.eval("(id) => window.paperkg.select(id)", cifar)
    tables = page.eval(
        """Array.from(document.querySelectorAll('#panel [data-list=leaderboard] table')).map((t) => ({
            metric: t.dataset.metric,
            rows: Array.from(t.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.cells).map((c) => c.textContent)),
            evidence: Array.from(t.querySelectorAll('tbody td:first-child')).map((c) => c.title)}))"""
    )
    shown = [(t["metric"], *row) for t in tables for row in t["rows"]]
    assert shown == [("entity:" + r["metric_key"] if r["metric_key"] else "", r["value"], r["method"] or "—",
                      g.nodes["paper:" + r["paper_id"]]["title"]) for r in expected]
    assert [e for t in tables for e in t["evidence"]] == [r["evidence"] for r in expected]
    headings = page.eval("Array.from(document.querySelectorAll('#panel [data-list=leaderboard] h4')).map((h) => h.textContent)")
    assert any(h.startswith("Fréchet Inception Distance") and h.endswith("lower is better") for h in headings)
    page.screenshot("results-leaderboard")
    # clicking a leaderboard row's paper opens that paper's panel
    first = expected[0]["paper_id"]
    page.page.click("#panel [data-list=leaderboard] tbody tr:first-child td:last-child button")
    assert page.panel_node() == "paper:" + first
    # the metric lists the datasets it is reported on, with their counts
    fid = find_entity(g, "Fréchet Inception Distance")
    page.eval("(id) => window.paperkg.select(id)", fid)
    listed = page.eval("Array.from(document.querySelectorAll('#panel ul[data-list=datasets] li')).map((li) => li.textContent)")
    on = {}
    for node, attrs in g.nodes(data=True):
        if attrs.get("kind") == "Result":
            slots = _slots(g, node)
            if slots["metric"] == fid and slots["dataset"]:
                on[g.nodes[slots["dataset"]]["name"]] = on.get(g.nodes[slots["dataset"]]["name"], 0) + 1
    assert len(listed) == len(on) >= 2
    assert sorted(listed) == sorted(f" {name}{n} result{'s' if n > 1 else ''}" for name, n in on.items())
    assert listed[0].startswith(" CIFAR-10")  # most results first
    page.check_clean()


def _slots(g, node):
    from paperkg.graph.build import result_slots

    return result_slots(g, node)


@pytest.mark.shared_data
def test_hostile_result_renders_as_text(results_site, open_page):
    from paperkg.graph.analytics import find_entity

    g = results_site["graph"]
    page = open_page(results_site["page"])
    page.eval("(id) => window.paperkg.select(id)", "paper:" + _helpers.HOSTILE_PAPER)
    hostile = [r for r in _panel_results(page) if r["value"] == XSS_IMG]
    assert hostile and hostile[0]["evidence"] == HOSTILE_EVIDENCE and hostile[0]["marks"] == [XSS_IMG]
    page.screenshot("results-hostile-paper")
    page.eval("(id) => window.paperkg.select(id)", find_entity(g, "CIFAR-10"))
    first = page.eval("document.querySelector('#panel [data-list=leaderboard] tbody td').textContent")
    assert first == XSS_IMG  # 0.5: the best FID
    assert page.eval("document.querySelectorAll('body img, body svg, body iframe, body object').length") == 0
    assert page.eval("document.querySelectorAll('script').length") == 3
    page.check_clean()
