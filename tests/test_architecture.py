"""The house: stages and rooms import one way, every module sits in a room, none is too long.

Stages, each importing only itself and the ones before it::

    base (types, errors, atomic, paths, spill, forks) -> extract -> graph -> queries -> api, cli

Rooms of ``extract`` (``extract/__init__.py``)::

    read -> nlp -> resolve -> results -> run -> evaluate -> learn

``extract/output.py`` (the mentions JSONL contract) imports no room, and outside ``extract`` only
the API and the CLI may import ``evaluate`` or ``learn``. Imports inside functions count too.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Import package -> source folder (as pyproject's package-dir says).
FOLDERS = {"paperkg": ROOT / "src" / "paperkg", "paperkg.extract": ROOT / "extract",
           "paperkg.graph": ROOT / "graph", "paperkg.queries": ROOT / "queries"}
BASE = {"paperkg.types", "paperkg.errors", "paperkg.atomic", "paperkg.paths", "paperkg.spill", "paperkg.forks"}
STAGES = ("base", "extract", "graph", "queries", "top")
ROOMS = ("read", "nlp", "resolve", "results", "run", "evaluate", "learn")
RUNTIME_ONLY = ("read", "nlp", "resolve", "results")  # what graph and queries may use of extract
MAX_LINES = 600


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Every module of the import package, by dotted name."""
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if "__pycache__" in parts or (package == "paperkg" and len(parts) > 1):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def stage(module: str) -> str:
    if module in BASE:
        return "base"
    for name in ("extract", "graph", "queries"):
        if module == f"paperkg.{name}" or module.startswith(f"paperkg.{name}."):
            return name
    return "top"


def room(module: str) -> str | None:
    """The room of an ``extract`` module (``"output"`` for the contract), else None."""
    parts = module.split(".")
    return parts[2] if stage(module) == "extract" and len(parts) > 2 else None


def imports(source: str) -> list[tuple[int, str]]:
    """``(line, module)`` of every paperkg import in ``source``, at any depth."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("paperkg")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("paperkg") and not node.level:
            # "from paperkg.extract.run import store" names the module paperkg.extract.run.store
            found += [(node.lineno, f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules() else node.module)
                      for alias in node.names]
    return found


def violations(module: str, source: str) -> list[str]:
    """Every import of ``module`` that runs against the arrows (empty when it keeps to them)."""
    out = []
    here, here_room = stage(module), room(module)
    for line, target in imports(source):
        there, there_room = stage(target), room(target)
        why = None
        if STAGES.index(there) > STAGES.index(here):
            why = f"stage {here} imports the later stage {there}"
        elif here == there == "extract" and there_room and there_room != here_room:
            if here_room == "output" or there_room == "output":
                why = "the output contract and the rooms stay apart"
            elif here_room is None or ROOMS.index(there_room) > ROOMS.index(here_room):
                why = f"room {here_room} imports the later room {there_room}"
        elif there == "extract" and here in ("graph", "queries") and there_room not in (*RUNTIME_ONLY, None):
            why = f"stage {here} imports extract.{there_room} (only read, nlp and resolve are for run time)"
        if why:
            out.append(f"{module}:{line}: imports {target}: {why}")
    return out


def test_imports_run_one_way():
    found = [v for name, path in sorted(modules().items()) for v in violations(name, path.read_text(encoding="utf-8"))]
    assert found == []


@pytest.mark.parametrize("module, source, expected", [
    ("paperkg.extract.nlp.rules", "from paperkg.extract.resolve.canonical import known_tables", "room nlp imports the later room resolve"),
    ("paperkg.extract.read.readers", "def f():\n    from paperkg.extract.nlp import budget", "room read imports the later room nlp"),
    ("paperkg.extract.run.corpus", "import paperkg.extract.evaluate.spans", "room run imports the later room evaluate"),
    ("paperkg.extract.output", "from paperkg.extract.resolve.canonical import Resolved", "the output contract"),
    ("paperkg.graph.build", "from paperkg.queries.runner import statement", "stage graph imports the later stage queries"),
    ("paperkg.graph.build", "from paperkg.extract.learn.roles import fit", "only read, nlp and resolve"),
    ("paperkg.types", "from paperkg.extract.nlp.normalize import normalize_key", "stage base imports the later stage extract"),
])
def test_the_check_catches_an_import_against_the_arrows(module, source, expected):
    (found,) = violations(module, source)
    assert expected in found


def test_every_extract_module_is_in_a_room_with_a_docstring():
    for name, path in modules().items():
        if stage(name) != "extract":
            continue
        assert room(name) in (*ROOMS, "output", None), f"{path} is in no room"
    for name in ROOMS:
        init = ROOT / "extract" / name / "__init__.py"
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and "import" in doc.lower(), f"{init}: the room's docstring says what it does and what it may import"


def test_no_module_is_past_the_house_limit():
    long = {str(path.relative_to(ROOT)): n for path in modules().values()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"past {MAX_LINES} lines a module is two: {long}"
