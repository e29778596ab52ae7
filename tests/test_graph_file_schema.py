"""Issue 21 M13: a hand-edited graph.json with a null, wrong-typed or missing field is one line
naming the node or edge and the field, for every command that reads a graph (stats, export,
html, query, load), never a TypeError or KeyError from deep inside one.

The fuzz: a small real graph (examples/abstracts.txt and one abstract with results, so every node
and edge kind of the schema is there), the first node or edge of each kind, each of its fields
set to null, to a wrong type, given a wrong list item, or deleted. Most runs call the API in
process; a few go through the CLI.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
from conftest import EXAMPLES

import paperkg
from paperkg.errors import GraphFileError, PaperKGError
from paperkg.graph.export import write_node_link
from paperkg.queries.runner import library

RESULTS = ("We propose FooNet, a convolutional network for image classification. FooNet achieves 96.1% accuracy "
           "on CIFAR-10 and 81.2% top-1 accuracy on ImageNet, improving over ResNet by 2.3 points.")
CLI = [sys.executable, "-c", "from paperkg.cli import main; main()"]
_FIXED = ("id", "kind", "source", "target")


@pytest.fixture(scope="module")
def graph_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("graph")
    text = folder / "abstracts.txt"
    text.write_text((EXAMPLES / "abstracts.txt").read_text(encoding="utf-8") + "\n\n" + RESULTS + "\n", encoding="utf-8")
    kg = paperkg.build([text], use_model=False, progress=False)
    data = json.loads(write_node_link(kg.graph, folder / "graph.json").read_text(encoding="utf-8"))
    kinds = {item["kind"] for item in data["nodes"] + data["edges"]}
    assert kinds == {"Paper", "Entity", "Result", "HAS", "RELATED_TO", "REPORTS", "ON_DATASET", "MEASURED_BY",
                     "ACHIEVED_BY", "FOR_TASK", "EVALUATED_ON", "ADDRESSES"}
    return data


def _wrong(value):
    return 7 if isinstance(value, str) else ["x"] if value is None else "x"


def mutations(data):
    """(what, mutated data, the node or edge it changed) for each field of the first node or
    edge of each kind (edges: of each kind and source kind, as MEASURED_BY joins two)."""
    kinds = {item["id"]: item["kind"] for item in data["nodes"]}
    seen = set()
    for part in ("nodes", "edges"):
        for index, item in enumerate(data[part]):
            sort = (item["kind"], kinds.get(item.get("source")))
            if sort in seen:
                continue
            seen.add(sort)
            for field, value in item.items():
                if field in _FIXED:
                    continue
                changes = [("null", None), ("wrong type", _wrong(value)), ("deleted", ...)]
                if isinstance(value, list) and value:
                    changes.append(("wrong item", [_wrong(value[0])] + value[1:]))
                for how, new in changes:
                    mutated = copy.deepcopy(data)
                    if new is ...:
                        del mutated[part][index][field]
                    else:
                        mutated[part][index][field] = new
                    yield f"{item['kind']}.{field} {how}", mutated, (part, index, item, field)


def _commands(kg, folder, paper_id):
    yield "stats", lambda: kg.stats()
    yield "export", lambda: kg.to_neo4j_admin(folder / "admin")
    yield "html", lambda: kg.to_html(folder / "html")
    yield "focus", lambda: kg.to_html(folder / "focus.html", view="focus", focus=paper_id)
    yield "leaderboard", lambda: kg.leaderboard("CIFAR-10")
    for name, spec in library().items():
        params = {p.name: paper_id if p.type == "paper" else "cifar-10" for p in spec.params if p.required}
        yield name, lambda name=name, params=params: kg.query(name, **params)


def test_every_fuzzed_graph_is_read_or_one_line_naming_node_and_field(graph_data, tmp_path):
    crashes, rejected, accepted = [], 0, 0
    for number, (what, mutated, (part, index, item, field)) in enumerate(mutations(graph_data)):
        folder = tmp_path / str(number)
        folder.mkdir()
        path = folder / "graph.json"
        path.write_text(json.dumps(mutated), encoding="utf-8")
        try:
            kg = paperkg.load(path)
        except GraphFileError as exc:
            rejected += 1
            message = str(exc)
            named = f"node {item['id']!r} ({item['kind']})" if part == "nodes" else f"edge {index} ({item['kind']} "
            assert "\n" not in message and named in message and repr(field) in message, (what, message)
            continue
        accepted += 1
        paper_id = next(n["paper_id"] for n in mutated["nodes"] if n["kind"] == "Paper")
        for command, run in _commands(kg, folder, paper_id):
            try:
                run()
            except PaperKGError:
                pass
            except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
                crashes.append(f"{what}: {command}: {type(exc).__name__}: {exc}")
    assert crashes == []
    assert rejected > 100 and accepted > 20  # the fuzz reaches both sides of the check


def test_an_edge_between_the_wrong_kinds_is_named(graph_data, tmp_path):
    data = copy.deepcopy(graph_data)
    has = next(i for i, e in enumerate(data["edges"]) if e["kind"] == "HAS")
    data["edges"][has]["target"] = next(n["id"] for n in data["nodes"] if n["kind"] == "Result")
    (tmp_path / "graph.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GraphFileError, match=rf"edge {has} \(HAS .*\) joins a Paper to a Result, not Paper to Entity"):
        paperkg.load(tmp_path / "graph.json")


@pytest.mark.parametrize("change", ["year wrong", "count null", "title null"])
def test_the_cli_says_one_line_or_runs(graph_data, tmp_path, change):
    data = copy.deepcopy(graph_data)
    paper = next(n for n in data["nodes"] if n["kind"] == "Paper")
    if change == "year wrong":
        paper["year"] = "soon"
    elif change == "count null":
        next(e for e in data["edges"] if e["kind"] == "HAS")["count"] = None
    else:
        paper["title"] = None
    graph = tmp_path / "graph.json"
    graph.write_text(json.dumps(data), encoding="utf-8")
    commands = [["stats", str(graph)], ["export", str(graph), "--format", "neo4j-admin", str(tmp_path / "admin")],
                ["html", str(graph), "--out", str(tmp_path / "html")],
                ["query", "top_entities", "--graph", str(graph)],
                ["load", str(graph), "--uri", "bolt://127.0.0.1:9", "--password", "x"]]
    for command in commands if change != "title null" else commands[:-1]:
        run = subprocess.run(CLI + command, capture_output=True, text=True)
        assert "Traceback" not in run.stderr, (command, run.stderr)
        if change == "title null":
            assert run.returncode == 0, (command, run.stderr)
        else:
            lines = run.stderr.strip().splitlines()
            assert run.returncode == 1 and lines[-1].startswith(f"error: {graph}: malformed paperkg graph file: "), lines
            assert ("field 'year'" if change == "year wrong" else "field 'count' is null") in lines[-1]
