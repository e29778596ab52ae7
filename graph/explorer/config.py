"""Constants of the explorer: views, file names, caps, colours, shapes, the browser."""

from __future__ import annotations

import re
from pathlib import Path

#: The views :func:`write_html` renders; ``"all"`` is accepted there too (= :func:`write_views`).
VIEWS: tuple[str, ...] = ("overview", "entity-map", "similarity", "focus")
#: File names :func:`write_views` and directory outputs of :func:`write_html` use.
VIEW_FILES: dict[str, str] = {
    "overview": "explorer.html",
    "entity-map": "entities.html",
    "similarity": "similarity.html",
}
#: Per-view caps used when an argument is ``None``. ``max_edges`` drops the weakest edges; on
#: the overview (the topic map) ``max_papers`` and ``max_entities`` cap what opening a topic draws;
#: ``max_focus_nodes`` caps the ego graph (focus pages and the in-page focus mode alike).
DEFAULT_CAPS: dict[str, dict[str, int]] = {
    "overview": {"max_entities": 40, "max_papers": 150, "max_edges": 2_000},
    "entity-map": {"max_entities": 300, "max_edges": 1_500},
    "similarity": {"max_papers": 1_000, "max_edges": 4_000},
    "focus": {"max_focus_nodes": 300, "max_edges": 3_000},
}
DEFAULT_HOPS = 2

#: Headless Chromium (Debian's package) as the browser tests and bench/bench_html.py run it: no
#: background networking, so a page can be checked for making no request of its own.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
)
MAX_HOPS = 3

#: Okabe-Ito colours for the entity types (colour-blind safe), neutral grey for papers; each
#: type also has its own shape, so nothing depends on telling colours apart.
PALETTE: dict[str, str] = {
    "Paper": "#8C8C8C",
    "Method": "#0072B2",
    "Dataset": "#E69F00",
    "Benchmark": "#009E73",
    "Task": "#CC79A7",
    "Metric": "#D55E00",
}
SHAPES: dict[str, str] = {
    "Paper": "square",
    "Method": "dot",
    "Dataset": "diamond",
    "Benchmark": "star",
    "Task": "triangle",
    "Metric": "triangleDown",
}
EXTRA_COLOURS = ("#56B4E9", "#F0E442", "#000000")
LABEL_MAX = 32
MAX_AUTHORS = 12
MAX_ALIASES = 30
MAX_SHARED = 6
LAYOUT_SEED = 20240601
SPACING = 46.0  # px per layout unit
GRAVITY = 0.05
SIMILARITY_K = 3
#: links kept per topic on the topic map; topics drawn there: the MAX_TOPICS largest of at least
#: MIN_TOPIC_PAPERS papers (labels need room; search and panels reach the others)
TOPIC_K = 3
MAX_TOPICS = 40
MIN_TOPIC_PAPERS = 5
#: the canvas a page usually fits its drawing into (px), and the smallest fit scale planned for
FIT_CANVAS = (1050.0, 680.0)
MIN_FIT_SCALE = 0.35
#: the entity map: pairs need this many shared papers (umbrella terms: graph/communities.py)
MIN_SHARED = 2
#: px per layout unit, per view (the entity map has few, large nodes with long labels)
VIEW_SPACING = {"entity-map": 80.0, "focus": 60.0, "overview": 150.0}

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
#: The page script's modules (``templates/explorer/``), inlined in this order into one scope:
#: each may use what the ones before it define.
JS_MODULES = (
    "data.js", "graph.js", "style.js", "network.js", "labels.js", "panel.js",
    "filters.js", "views.js", "search.js", "main.js",
)
SURROGATE = re.compile("[\ud800-\udfff]")
