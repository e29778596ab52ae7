"""The docs stay true to the tree: the README is a front door (at most 200 lines), and every
relative link of README.md and docs/*.md names a file that exists and, with #anchor, a heading
that is in it."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "queries" / "README.md",
         ROOT / "extract" / "model" / "MODEL_CARD.md"]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if m := re.match(r"#+\s+(.*)", line):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            found.add(slug)
    return found


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the rest belongs in docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves(page: Path):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(f"{target}: no heading #{anchor} in {file.name}")
    assert broken == []


# Figures that stay true: every figure a page quotes is in a results file (bench/results/*.json,
# each with its commit and machine), and the marked figures are rendered from them.
sys.path.insert(0, str(ROOT / "scripts"))
import render_figures  # noqa: E402  (a script, not a package)

FIGURE_PAGES = render_figures.PAGES


@pytest.fixture(scope="module")
def results() -> dict:
    return render_figures.load_results()


@pytest.mark.parametrize("page", FIGURE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_figure_is_in_a_results_file(page: Path, results: dict):
    missing = render_figures.unrecorded(page.read_text(encoding="utf-8"), results)
    assert missing == [], (f"{page.name} quotes figures no bench/results/*.json holds (line, figure): {missing}; "
                           "run the bench with --record, or record a hand reading (docs/development.md#figures)")


@pytest.mark.parametrize("page", FIGURE_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pages_are_rendered_from_the_results(page: Path, results: dict):
    text = page.read_text(encoding="utf-8")
    assert render_figures.render(text, results) == text, "run python scripts/render_figures.py"


def test_an_invented_figure_fails_the_check(results: dict):
    page = ("Extraction runs at 987.6 abstracts/s on 13,441,999 papers, a 61.93% gain; "
            "Python ≥ 3.10, spaCy 3.8 and `--sizes 10000,50000` are not figures, nor is \"an FID of 2.57\".\n")
    assert render_figures.unrecorded(page, results) == [(1, "987.6"), (1, "13,441,999"), (1, "61.93")]


def test_rendering_fills_marks_and_is_idempotent():
    results = {"b": {"commit": "0" * 40, "measured": "2026-01-01T00:00:00+00:00", "command": "python bench/b.py",
                     "machine": {"cores": 2, "load_average": [1.5, 1, 1]},
                     "figures": {"rate": 118.7, "n": 13441, "share": {"value": 0.7584}}}}
    page = ("rate 1.0<!--=b.rate--> on 1<!--=b.n--> papers, recall 0.1<!--=b.share.value:.3f-->\n"
            "<!-- figures:runs -->\nstale\n<!-- /figures -->\n")
    once = render_figures.render(page, results)
    assert once.startswith("rate 118.7<!--=b.rate--> on 13,441<!--=b.n--> papers, recall 0.758<!--=b.share.value:.3f-->")
    assert "| `b.json` | 0000000 | 2026-01-01 | 2, 1.5 |" in once and "stale" not in once
    assert render_figures.render(once, results) == once
    assert render_figures.unrecorded(once, results) == []


def test_every_results_file_says_where_it_was_measured(results: dict):
    assert {"bench_extract", "quality"} <= set(results)
    for name, data in results.items():
        assert data["bench"] == name and re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", data["commit"]), name
        assert data["measured"] and data["command"] and data["figures"], name
        assert str(ROOT.parent) not in json.dumps(data), f"{name}.json names a path of this machine"
