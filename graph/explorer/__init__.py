"""Offline, self-contained HTML explorer for the paper knowledge graph (a package, one concern a file).

One public entry point writes every page: :func:`write_html` (one view, or ``view="all"``) and
:func:`write_views` (all views into one directory). :func:`render_html` returns the page text and
:func:`explorer_data` the JSON payload the page is built from (for tests and other front ends).

Design
  * pyvis assembles the vis-network node/edge lists (``Network.add_node`` / ``add_edge``); the page
    itself is our own Jinja template (``templates/explorer.html.j2``) with the vis-network JS/CSS
    from the installed pyvis package inlined. No Bootstrap, no CDN, zero network requests; a
    Content-Security-Policy (``default-src 'none'``, scripts and styles pinned by SHA-256)
    enforces that and would block any injected script or event handler.
  * All graph text travels as JSON inside ``<script type="application/json">`` (``<``, ``>``,
    ``&``, U+2028/9 escaped) and the page script builds every tooltip and panel with DOM text
    nodes - never ``innerHTML`` with data. Canvas labels are plain text (vis ``font.multi`` off).
  * Every view is capped (see :data:`DEFAULT_CAPS`) and laid out in Python with a fixed seed, so
    the page draws once with physics off and is interactive immediately. Search, the side panel
    and focus mode still reach every node of the graph: the page carries the whole graph compactly
    (papers, entities, paper-entity links with their evidence sentences, similarity links).
  * Same graph + same arguments -> byte-identical HTML (everything is sorted, no timestamps).

Modules
  ``config``   views, file names, caps, colours, shapes, the headless browser
  ``text``     JSON safe in a script element, labels, URLs, UTF-16 mark offsets
  ``universe`` the whole graph, compactly: array rows for the views, and the page's arrays
               (what search, panel and focus mode read) as compressed JSON chunks; built
               once per write and shared by its pages, each page streamed to its file
  ``results``  the Result nodes as rows, and each dataset's leaderboard (its panels)
  ``views``    which nodes and edges each view draws
  ``layout``   the deterministic force layout
  ``payload``  the page's JSON (vis lists assembled with pyvis)
  ``render``   assets, CSP, the Jinja page, the files written (as one export set)
  ``templates/explorer/*.js`` are the page script's modules, inlined in order (``JS_MODULES``).

Views (file names used by :func:`write_views`)
  ``overview``   -> ``explorer.html``   the topic map: communities of papers (``paperkg.graph.
                                        communities``) sized by papers, labelled by their most
                                        specific entities; a click opens one in place (page script)
  ``entity-map`` -> ``entities.html``   entities linked by 2+ shared papers, umbrella terms out
  ``similarity`` -> ``similarity.html`` the ``max_papers`` papers with the most RELATED_TO weight,
                                        each with its 3 strongest links among them
  ``focus``      -> ``focus-<node>.html`` the ego graph of ``focus`` within ``hops`` hops
"""

from paperkg.graph.explorer.config import (
    CHROMIUM, CHROMIUM_ARGS, DEFAULT_CAPS, DEFAULT_HOPS, PALETTE, VIEW_FILES, VIEWS,
)
from paperkg.graph.explorer.payload import explorer_data
from paperkg.graph.explorer.render import render_html, write_html, write_views
from paperkg.graph.explorer.text import json_for_script

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "DEFAULT_CAPS",
    "DEFAULT_HOPS",
    "PALETTE",
    "VIEWS",
    "VIEW_FILES",
    "explorer_data",
    "json_for_script",
    "render_html",
    "write_html",
    "write_views",
]
