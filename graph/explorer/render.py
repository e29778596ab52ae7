"""The page: inlined assets, Content-Security-Policy, Jinja template, and the files written."""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from paperkg.atomic import atomic_open
from paperkg.errors import GraphError
from paperkg.graph.explorer.config import JS_MODULES, TEMPLATES, VIEW_FILES, VIEWS
from paperkg.graph.explorer.payload import page_data
from paperkg.graph.explorer.text import iter_json_for_script
from paperkg.graph.explorer.universe import Universe, as_digraph, build_universe
from paperkg.graph.explorer.views import fmt, resolve_node
from paperkg.graph.export_set import read_manifest, write_set


@functools.lru_cache(maxsize=1)
def vis_assets() -> tuple[str, str]:
    """(vis-network.min.js, vis-network.css) from the pyvis package, ready to inline."""
    import pyvis  # light: pyvis/__init__ does not import IPython

    root = Path(pyvis.__file__).resolve().parent
    for lib in (root / "templates" / "lib" / "vis-9.1.2", root / "lib" / "vis-9.1.2"):
        js_path, css_path = lib / "vis-network.min.js", lib / "vis-network.css"
        if js_path.is_file() and css_path.is_file():
            break
    else:  # pragma: no cover - a broken pyvis install
        raise GraphError(f"vis-network 9.1.2 not found in the pyvis package at {root}")
    js = js_path.read_text(encoding="utf-8")
    css = css_path.read_text(encoding="utf-8")
    # The source-map comment would make devtools fetch a file; drop it.
    js = re.sub(r"\n//# sourceMappingURL=\S*\s*$", "\n", js)
    css = re.sub(r"/\*# sourceMappingURL=\S*\s*\*/", "", css)
    if re.search(r"</script|<!--", js, re.I) or re.search(r"</style", css, re.I):
        raise GraphError("the vendored vis-network cannot be inlined safely")  # pragma: no cover
    return js, css


@functools.lru_cache(maxsize=1)
def app_assets() -> tuple[str, str]:
    """The page script (its modules in ``JS_MODULES`` order, one shared scope) and stylesheet."""
    modules = [(TEMPLATES / "explorer" / name).read_text(encoding="utf-8") for name in JS_MODULES]
    js = (
        "/* paperkg explorer. All graph text is inserted with text nodes (textContent /\n"
        "   createTextNode): never HTML strings built from data. */\n"
        '(function () {\n"use strict";\n' + "".join(modules) + "})();\n"
    )
    css = (TEMPLATES / "explorer.css").read_text(encoding="utf-8")
    if re.search(r"</script|<!--", js, re.I) or re.search(r"</style", css, re.I):
        raise GraphError("explorer.js/.css cannot be inlined safely")  # pragma: no cover
    return js, css


@functools.lru_cache(maxsize=1)
def jinja_env():
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


#: Where the payload goes in the rendered template: holds ``<``, which no escaped text and no
#: inlined asset (checked in :func:`vis_assets` / :func:`app_assets`) contains.
_DATA_MARK = "<paperkg-data/>"


def iter_html(graph: Any, **options: Any) -> Iterator[str]:
    """The text of :func:`render_html` in pieces: the template around the payload, and the
    payload streamed (:func:`~paperkg.graph.explorer.text.iter_json_for_script`), so a page's
    text never exists whole. ``options`` as in :func:`render_html`, plus ``universe`` (see
    :func:`~paperkg.graph.explorer.payload.prepare`)."""
    data = page_data(graph, **options)
    meta = data["meta"]
    vis_js, vis_css = vis_assets()
    app_js, app_css = app_assets()
    # swatch colours per type index (our palette constants only)
    app_css += "".join(f".sw-{i} {{ background: {c}; }}\n" for i, c in enumerate(meta["colors"]))
    csp = "; ".join(
        [
            "default-src 'none'",
            f"script-src {csp_hash(vis_js)} {csp_hash(app_js)}",
            f"style-src {csp_hash(vis_css)} {csp_hash(app_css)}",
            "img-src data:",
            "base-uri 'none'",
            "form-action 'none'",
        ]
    )
    template = jinja_env().get_template("explorer.html.j2")
    from markupsafe import Markup

    page = template.render(
        title=meta["title"],
        view_title=meta["viewTitle"],
        view_name=meta["view"],
        notes=meta["notes"],
        stats=meta["stats"],
        fmt=fmt,
        shown_nodes=len(data["view"]["nodes"]),
        shown_edges=len(data["view"]["edges"]),
        nav=meta["links"],
        csp=Markup(csp),  # our constants and base64 digests only (no quotes)
        vis_css=Markup(vis_css),
        vis_js=Markup(vis_js),
        app_css=Markup(app_css),
        app_js=Markup(app_js),
        data_json=Markup(_DATA_MARK),
    )
    if page.count(_DATA_MARK) != 1:  # pragma: no cover - a template edit broke the contract
        raise GraphError("the explorer template must hold the page data exactly once")
    head, _mark, tail = page.partition(_DATA_MARK)
    del page
    yield head
    yield from iter_json_for_script(data)
    yield tail


def render_html(graph: Any, **options: Any) -> str:
    """The complete, self-contained HTML page of one view (see :func:`write_html`): the payload
    :func:`~paperkg.graph.explorer.payload.explorer_data` makes of ``graph`` with the same
    keyword ``options`` (view, caps, focus, hops, title, links), embedded in our template."""
    return "".join(iter_html(graph, **options))


def focus_file(uni_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", uni_id.replace(":", "-")).strip("-.")[:60] or "node"
    if slug.replace("-", ":", 1) != uni_id:
        slug += "-" + hashlib.sha1(uni_id.encode("utf-8")).hexdigest()[:8]
    return f"focus-{slug}.html"


def is_dir_target(out: Path) -> bool:
    return out.is_dir() or out.suffix.lower() not in (".html", ".htm")


def write_pages(out_dir: Path, g: Any, pages: Sequence[tuple[str, dict[str, Any]]],
                universe: Universe | None = None) -> list[Path]:
    """Render ``(file name, render_html options)`` pages into ``out_dir`` as one export set
    (:mod:`paperkg.graph.export_set`), merged into the set already there (a build's files stay):
    a writer killed half-way leaves the previous pages, never some old and some new.

    The pages share one universe (``universe``, else built here) and each is streamed to its
    file (:func:`iter_html`): memory holds the universe and one view, not the pages' text."""
    def write(folder: Path) -> dict[str, Path]:
        uni = build_universe(g) if universe is None else universe
        written = {}
        for filename, options in pages:
            with atomic_open(folder / filename, "w", newline="\n") as handle:
                handle.writelines(iter_html(g, universe=uni, **options))
            written[filename] = folder / filename
        return written

    return list(write_set(out_dir, write, merge=True).values())


def write_views(
    graph: Any,
    out_dir: str | Path,
    *,
    views: Iterable[str] = ("overview", "entity-map", "similarity"),
    focus: str | Sequence[str] | None = None,
    **options: Any,
) -> list[Path]:
    """Write the views into ``out_dir`` (created): ``explorer.html`` (overview), ``entities.html``
    (entity map), ``similarity.html`` and, per ``focus`` node, ``focus-<node>.html``. The pages
    link to each other and are written as one set (:func:`write_pages`). ``options``: ``hops``,
    ``title`` and the caps, as in :func:`write_html`; caps left ``None`` take the per-view
    :data:`DEFAULT_CAPS`. Returns the written paths in that order."""
    views = list(views)
    for name in views:
        if name not in VIEW_FILES:
            raise GraphError(f"unknown view {name!r}; expected some of {', '.join(VIEW_FILES)}")
    focus_list: list[str] = [] if focus is None else [focus] if isinstance(focus, str) else list(focus)
    g = as_digraph(graph)
    uni = build_universe(g) if focus_list else None
    focus_ids = [uni.ids[resolve_node(uni, g, f)] for f in focus_list] if uni else []
    nav_labels = {"overview": "Overview", "entity-map": "Entity map", "similarity": "Similarity"}
    shared = {**options, "links": [(nav_labels[name], VIEW_FILES[name]) for name in views]}
    pages = [(VIEW_FILES[name], {**shared, "view": name}) for name in views]
    pages += [(focus_file(fid), {**shared, "view": "focus", "focus": fid}) for fid in focus_ids]
    return write_pages(Path(out_dir), g, pages, uni)


def write_html(
    graph: Any,
    out: str | Path,
    *,
    view: str | None = None,
    focus: str | None = None,
    **options: Any,
) -> list[Path]:
    """Write the explorer page(s) for ``graph`` (a ``networkx.DiGraph`` or a ``KnowledgeGraph``).

    ``out`` is a file (``*.html``/``*.htm``) or a directory (created; files named after the
    view, see :data:`VIEW_FILES`). ``view``: ``"overview"``, ``"entity-map"``, ``"similarity"``,
    ``"focus"`` (needs ``focus``) or ``"all"`` (every view into the directory ``out``, plus the
    focus page if ``focus`` is given). ``view=None`` (default) means ``"all"`` for a directory
    (every view, plus the focus page when ``focus`` is given) and ``"overview"`` for a file
    (the focus page instead when ``focus`` is given). ``focus`` (a node id
    such as ``"paper:<id>"`` / ``"entity:<key>"``, a bare paper id / entity key, or an exact
    entity name) writes the focus page: the ego graph within ``hops`` (1-3, default 2) hops, at
    most ``max_focus_nodes`` nodes and ``max_edges`` edges. ``options`` are those, ``title`` and
    the caps ``max_entities``, ``max_papers``, ``max_edges`` (see
    :func:`~paperkg.graph.explorer.payload.prepare`); caps left ``None`` take :data:`DEFAULT_CAPS`. The pages of a directory are written as one set (:func:`write_pages`);
    so is a file whose folder holds a set (a build's folder), else it is one atomic write.
    Returns the paths written. Raises :class:`paperkg.errors.GraphError` on bad arguments.
    """
    out = Path(out)
    if view is None:
        view = "all" if is_dir_target(out) else "overview"
    if view == "all":
        if not is_dir_target(out):
            raise GraphError(f"view 'all' writes several pages; {out} must be a directory")
        return write_views(graph, out, focus=focus, **options)
    if view not in VIEWS:
        raise GraphError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}, all")
    effective = "focus" if focus is not None and view == "overview" else view
    if effective == "focus" and focus is None:
        raise GraphError("view 'focus' needs focus=<paper or entity id>")
    g = as_digraph(graph)
    options = {**options, "view": effective, "focus": focus}
    if is_dir_target(out):
        uni = None
        if effective == "focus":
            uni = build_universe(g)
            filename = focus_file(uni.ids[resolve_node(uni, g, focus)])
        else:
            filename = VIEW_FILES[effective]
        return write_pages(out, g, [(filename, options)], uni)
    if read_manifest(out.parent):
        return write_pages(out.parent, g, [(out.name, options)])
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(out, "w", newline="\n") as handle:
        handle.writelines(iter_html(g, **options))
    return [out]
