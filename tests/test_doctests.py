"""The runnable examples in docstrings are tests too."""

import doctest
import importlib

import pytest

MODULES = [
    "paperkg.extract.read.readers",
    "paperkg.extract.read.sanitize",
    "paperkg.extract.evaluate.spans",
    "paperkg.extract.nlp.budget",
    "paperkg.paths",
    "paperkg.extract.nlp.markup",
    "paperkg.extract.nlp.abbreviations",
    "paperkg.extract.nlp.normalize",
    "paperkg.extract.nlp.rules",
    "paperkg.extract.nlp.gazetteer",
    "paperkg.extract.resolve.canonical",
    "paperkg.extract.nlp.pipeline",
    "paperkg.extract.run.store",
    "paperkg.graph.build",
    "paperkg.graph.linking",
    "paperkg.graph.analytics",
    "paperkg.graph.export",
    "paperkg.queries.neo4j_admin",
    "paperkg.queries.runner",
    "paperkg.queries.server.launcher",
    "paperkg.queries.loader",
    "paperkg.queries.shell",
    "paperkg.graph.export_set",
    "paperkg.extract.output",
    "paperkg.atomic",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no runnable examples"


@pytest.mark.parametrize("page, heading", [("README.md", "## Your abstracts"), ("docs/api.md", "# Python API")])
def test_python_blocks_of_the_docs(page, heading, tmp_path, monkeypatch):
    """The Python blocks of the README's first screen and of docs/api.md run as written, from a
    copy of the repository's examples."""
    import re
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = (root / page).read_text(encoding="utf-8")
    section = text[text.index(heading):]
    block = re.search(r"```pycon\n(.*?)```", section, re.S).group(1)
    shutil.copytree(root / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(block, {}, f"{page}: Python", str(root / page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 3
    if page == "docs/api.md":
        assert runner.tries > 10
        assert (tmp_path / "out" / "mentions.jsonl").exists() and (tmp_path / "out" / "graph.graphml").exists()
        from paperkg.graph.export_set import read_manifest, verify

        # kg.to_html("out/") after kg.export("out/", html=False): the pages joined the export set
        assert verify(tmp_path / "out") == [] and "explorer.html" in read_manifest(tmp_path / "out")["files"]
