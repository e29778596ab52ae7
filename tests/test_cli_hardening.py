"""Issue 11, M6 and the low CLI items: every argument range-checked, output paths checked before
any extraction, and every error one line on stderr (exit 1 for paperkg errors, 2 for usage)."""

import json
import os
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


# ------------------------------------------------------------------ issue 21, M7: output errors

@pytest.fixture
def tmpfs(tmp_path):
    """``mount(size, ro=False)``: a small tmpfs in tmp_path, unmounted afterwards (needs root)."""
    mounted = []

    def mount(size: str, ro: bool = False) -> Path:
        point = tmp_path / f"tmpfs{len(mounted)}"
        point.mkdir()
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}" + (",ro" if ro else ""), "tmpfs",
                                 str(point)], capture_output=True, text=True)
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()[:200]}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], check=False)


def test_m7_neo4j_admin_export_into_a_file(graph_file, tmp_path):
    """It was FileExistsError's traceback from mkdir."""
    target = tmp_path / "import"
    target.write_text("keep me")
    one_line_error(run("export", graph_file, "--format", "neo4j-admin", target), 1, str(target), "is a file, not a folder")
    assert target.read_text() == "keep me"


def test_m7_neo4j_import_with_a_data_dir_that_is_a_file(graph_file, tmp_path):
    """It was NotADirectoryError's traceback from mkdir DATA/conf (after building the launcher)."""
    target = tmp_path / "data"
    target.write_text("keep me")
    one_line_error(run("neo4j", "import", graph_file, "--data-dir", target), 1, str(target), "is a file, not a folder")
    assert target.read_text() == "keep me"


def test_m7_a_full_tmpdir_during_a_build(tmpfs, tmp_path, shared_data):
    """The build's records spill to TMPDIR: a full one was ENOSPC's traceback from pickle.dump.
    One page is left free, so Python still picks the folder (it tries a small file first)."""
    tmp = tmpfs("8k")
    (tmp / "fill").write_bytes(b"x" * 4096)
    corpus = tmp_path / "papers.jsonl"
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as source:
        corpus.write_text("".join(next(source) for _ in range(40)), encoding="utf-8")
    result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "build", str(corpus),
                             "--no-model", "--no-progress", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    one_line_error(result, 1, str(tmp), "no space left", "TMPDIR")


@pytest.mark.parametrize("where", ["missing", "read-only"])
def test_m7_an_unusable_tmpdir_is_passed_over(tmpfs, tmp_path, where):
    """Already held: Python's tempfile skips a TMPDIR it cannot write in (for the next of /tmp,
    /var/tmp, ...), so the build succeeds."""
    tmp = tmp_path / "nowhere" if where == "missing" else tmpfs("64k", ro=True)
    result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "build", str(EXAMPLES),
                             "--no-model", "--no-progress", "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    assert result.returncode == 0, result.stderr
    assert paperkg.load(tmp_path / "out" / "graph.json").counts()["papers"] == 8


def test_m7_a_full_disk_during_a_build_export(tmpfs, tmp_path):
    """Already held (atomic writes raise DiskFullError): one line naming the file, and no partial
    set is left (the store lives elsewhere, so extraction fits)."""
    out = tmpfs("64k") / "out"
    result = run("build", EXAMPLES, "--no-model", "--no-progress", "--store", tmp_path / "store.sqlite", "--out", out)
    one_line_error(result, 1, str(out), "no space left on the device")
    assert {p.name for p in out.iterdir()} <= {".paperkg-lock"}


def test_m7_a_file_size_limit_during_a_neo4j_admin_export(graph_file, tmp_path):
    """RLIMIT_FSIZE (works unprivileged; Python ignores SIGXFSZ, so the write fails with EFBIG):
    already one line naming the CSV; the folder keeps no partial set."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = tmp_path / "import"
    result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", "export", str(graph_file),
                             "--format", "neo4j-admin", str(out)], capture_output=True, text=True, preexec_fn=limit)
    one_line_error(result, 1, str(out), "file too large")
    assert {p.name for p in out.iterdir()} <= {".paperkg-lock"}


def test_m7_an_unexpected_os_error_is_one_line_naming_its_path(graph_file):
    """The last resort: an OSError no command turned into a paperkg error (here EIO, raised from
    deep inside ``stats``) was a traceback; now one line with the path and the errno."""
    code = ("import errno, paperkg.api\n"
            "def broken(*a, **k):\n"
            "    raise OSError(errno.EIO, 'Input/output error', '/mnt/disk/graph.json')\n"
            "paperkg.api.KnowledgeGraph.stats = broken\n"
            "from paperkg.cli import main; main()\n")
    result = subprocess.run([sys.executable, "-c", code, "stats", str(graph_file)], capture_output=True, text=True)
    assert one_line_error(result, 1) == "error: /mnt/disk/graph.json: Input/output error (EIO)"
