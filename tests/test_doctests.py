"""The runnable examples in docstrings are tests too."""

import doctest
import importlib

import pytest

MODULES = [
    "paperkg.extract.readers",
    "paperkg.extract.markup",
    "paperkg.extract.abbreviations",
    "paperkg.extract.normalize",
    "paperkg.extract.rules",
    "paperkg.extract.gazetteer",
    "paperkg.extract.canonical",
    "paperkg.extract.pipeline",
    "paperkg.graph.build",
    "paperkg.graph.linking",
    "paperkg.graph.analytics",
    "paperkg.graph.export",
    "paperkg.queries.runner",
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
