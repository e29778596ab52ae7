"""Issue 11, M6 and the low CLI items: every argument range-checked, output paths checked before
any extraction, and every error one line on stderr (exit 1 for paperkg errors, 2 for usage)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import paperkg

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "abstracts.txt"


def run(*args):
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True)


def one_line_error(result, code, *fragments):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == code, result.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def graph_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("g") / "graph.json"
    paperkg.build([EXAMPLES], use_model=False, progress=False).save(path)
    return path


def test_out_naming_a_file_fails_before_extraction(tmp_path):
    target = tmp_path / "graph.json"
    target.write_text("keep me")
    result = run("build", EXAMPLES, "--out", target, "--no-progress")
    one_line_error(result, 1, "is a file, not a folder")
    assert target.read_text() == "keep me"


def test_output_naming_a_folder_fails_before_extraction(tmp_path):
    one_line_error(run("extract", EXAMPLES, "-o", tmp_path, "--no-progress"), 1, "is a folder, not a file")


def test_out_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    one_line_error(run("build", EXAMPLES, "--out", blocker / "sub", "--no-progress"), 1, "is not a folder")


@pytest.mark.parametrize("args, option", [
    (["build", EXAMPLES, "--out", "o", "--n-process", "-1"], "--n-process"),
    (["build", EXAMPLES, "--out", "o", "--top-k", "-5"], "--top-k"),
    (["extract", EXAMPLES, "-o", "m.jsonl", "--max-chars", "2000000"], "--max-chars"),
    (["stats", "g.json", "--top", "-1"], "--top"),
    (["html", "g.json", "--out", "o", "--max-papers", "0"], "--max-papers"),
    (["neo4j", "start", "--port", "70000"], "--port"),
    (["build", "--frob"], "--frob"),
    (["frobnicate"], "frobnicate"),
])
def test_usage_errors_are_one_line_exit_2(args, option):
    one_line_error(run(*args), 2, option, "--help")


@pytest.mark.parametrize("value, fragment", [("99999999999999999999", "64-bit"), ("null", "cannot be null")])
def test_query_parameters_are_range_checked(graph_file, value, fragment):
    one_line_error(run("query", "top_entities", "-p", f"k={value}", "--graph", graph_file), 1, fragment)


def test_stats_on_a_folder_and_on_a_graph_without_nodes(graph_file, tmp_path):
    one_line_error(run("stats", graph_file.parent), 1, "is a folder")
    data = json.loads(graph_file.read_text(encoding="utf-8"))
    del data["nodes"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data), encoding="utf-8")
    one_line_error(run("stats", broken), 1, "'nodes' is not a list")


def test_max_chars_above_spacy_limit_is_an_input_error(tmp_path):
    """spaCy's E088 (texts over 1,000,000 characters) never surfaces as a traceback."""
    source = tmp_path / "p.jsonl"
    source.write_text(json.dumps({"abstract": "short"}) + "\n", encoding="utf-8")
    with pytest.raises(paperkg.PaperKGError, match="outside 1-1,000,000"):
        paperkg.extract_entities([source], max_chars=1_500_000, use_model=False, progress=False)


def test_graph_file_with_a_lone_surrogate_loads_and_exports(graph_file, tmp_path):
    """H3: a graph.json holding "\\udc80" made load and export crash."""
    data = json.loads(graph_file.read_text(encoding="utf-8"))
    paper = next(n for n in data["nodes"] if n["kind"] == "Paper")
    paper["title"] = "Bad \udc80 title"
    broken = tmp_path / "graph.json"
    broken.write_text(json.dumps(data), encoding="utf-8")  # ensure_ascii: the surrogate is an escape
    kg = paperkg.load(broken)
    assert kg.graph.nodes["paper:" + paper["paper_id"]]["title"] == "Bad \ufffd title"
    kg.to_graphml(tmp_path / "g.graphml")
    kg.to_neo4j_admin(tmp_path / "import")
    kg.save(tmp_path / "again.json")
