"""Issue 21, HIGH 3 and M8: the output folder is ours only where we say so.

A ``paperkg-manifest.json`` or ``.paperkg-commit`` found in ``--out`` may be someone else's (a
``kg/`` folder rebuilt from another's work). The campaign's reproduction: a manifest listing
``../victim.txt`` or an absolute path made ``paperkg build`` (and ``kg.export``, ``paperkg html``)
delete those files, a planted ``.paperkg-commit/remove.json`` did the same, and a manifest name
that is a folder made every later write fail with IsADirectoryError. ``--out ''`` wrote into the
current folder, ``--out /`` into the root.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

import paperkg
from paperkg.errors import OutputError, PaperKGError
from paperkg.graph.export_set import COMMIT_DIR, MANIFEST, MANIFEST_FORMAT, read_manifest, verify

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "abstracts.txt"


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def kg():
    return paperkg.build([EXAMPLES], use_model=False, progress=False)


@pytest.fixture
def warnings():
    """The warnings paperkg logs (the CLI may have turned propagation off in this process)."""
    records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler, logger = Collect(level=logging.WARNING), logging.getLogger("paperkg")
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


def victims(tmp_path: Path) -> dict[Path, str]:
    """Files outside the output folder (one beside it, one by absolute path, one in a user folder)."""
    files = {tmp_path / "victim.txt": "beside the output folder", tmp_path / "home" / "thesis.tex": "years of work"}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return files


def plant_manifest(out: Path, names) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    entries = {name: {"bytes": 1, "sha256": "0" * 64} for name in names}
    (out / MANIFEST).write_text(json.dumps({"format": MANIFEST_FORMAT, "version": 1, "files": entries}))
    return out / MANIFEST


def assert_intact(files: dict[Path, str]) -> None:
    for path, text in files.items():
        assert path.is_file() and path.read_text() == text, f"{path} was deleted or changed"


def test_a_planted_manifest_deletes_nothing_outside_the_folder_through_build(tmp_path):
    out = tmp_path / "kg"
    files = victims(tmp_path)
    (out / "notes").mkdir(parents=True)
    (out / "notes.txt").write_text("the user's own file")
    manifest = plant_manifest(out, ["../victim.txt", str(tmp_path / "home" / "thesis.tex"), "notes.txt"])
    result = run("build", EXAMPLES, "--out", out, "--no-model", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert_intact({**files, out / "notes.txt": "the user's own file"})
    for name in ("'../victim.txt'", repr(str(tmp_path / "home" / "thesis.tex")), "'notes.txt'"):
        assert any(line.startswith("warning: ") and str(manifest) in line and name in line
                   for line in result.stderr.splitlines()), result.stderr
    assert verify(out) == [] and "../victim.txt" not in read_manifest(out)["files"]


def test_a_planted_manifest_through_export_and_html(kg, tmp_path, warnings):
    out = tmp_path / "kg"
    files = victims(tmp_path)
    plant_manifest(out, ["../victim.txt", str(tmp_path / "home" / "thesis.tex"), "focus-planted.html"])
    (out / "focus-planted.html").write_text("a page of ours by name: the new set replaces it")
    kg.export(out, html=False)
    assert_intact(files)
    assert not (out / "focus-planted.html").exists()
    assert any("../victim.txt" in w for w in warnings)
    manifest = read_manifest(out)
    manifest["files"]["../victim.txt"] = {"bytes": 24, "sha256": "0" * 64}
    (out / MANIFEST).write_text(json.dumps(manifest))
    kg.to_html(out)  # merges its pages into the set: keeps the files, drops the planted name
    assert_intact(files)
    assert verify(out) == [] and "../victim.txt" not in read_manifest(out)["files"]


def test_a_manifest_name_that_is_a_folder_breaks_no_write(kg, tmp_path, warnings):
    out = tmp_path / "kg"
    for name in ("data", "focus-dir.html"):
        (out / name).mkdir(parents=True)
        (out / name / "keep.txt").write_text("inside a folder")
    plant_manifest(out, ["data", "focus-dir.html"])
    for _ in range(2):  # the old code failed here, after its commit point, and so on every later write
        kg.export(out, html=False)
        assert verify(out) == []
    assert (out / "data" / "keep.txt").is_file() and (out / "focus-dir.html" / "keep.txt").is_file()
    assert any("focus-dir.html" in w and "folder" in w for w in warnings)


def test_a_folder_where_an_export_goes_is_a_one_line_error_before_the_commit(kg, tmp_path):
    out = tmp_path / "kg"
    kg.export(out, html=False)
    before = read_manifest(out)
    (out / "graph.graphml").unlink()
    (out / "graph.graphml").mkdir()
    with pytest.raises(PaperKGError, match="graph.graphml: is a folder"):
        kg.export(out, html=False)
    assert read_manifest(out) == before and not (out / COMMIT_DIR).exists()
    (out / "graph.graphml").rmdir()
    kg.export(out, html=False)
    assert verify(out) == []


def plant_commit(out: Path, files: dict[str, str], remove) -> Path:
    """A ``.paperkg-commit`` as a killed writer would leave it, but written by someone else."""
    commit = out / COMMIT_DIR
    commit.mkdir(parents=True)
    for name, text in files.items():
        (commit / name).parent.mkdir(parents=True, exist_ok=True)
        (commit / name).write_text(text)
    entries = {name: {"bytes": len(text), "sha256": "0" * 64} for name, text in files.items()}
    (commit / MANIFEST).write_text(json.dumps({"format": MANIFEST_FORMAT, "version": 1, "files": entries}))
    (commit / "remove.json").write_text(json.dumps(remove))
    return commit


def test_a_planted_commit_record_deletes_and_moves_nothing_outside_the_folder(kg, tmp_path, warnings):
    out = tmp_path / "kg"
    files = victims(tmp_path)
    out.mkdir()
    (out / "notes.txt").write_text("the user's own file")
    commit = plant_commit(out, {"graph.json": "planted", "notes.txt": "planted over the user's file"},
                          ["../victim.txt", str(tmp_path / "home" / "thesis.tex"), "notes.txt"])
    # A name that climbs out of the commit folder and then out of the output folder: moved away before.
    manifest = json.loads((commit / MANIFEST).read_text())
    manifest["files"]["../../home/thesis.tex"] = {"bytes": 1, "sha256": "0" * 64}
    # A folder in the record under a name of ours, where the output folder holds that file: not moved.
    manifest["files"]["explorer.html"] = {"bytes": 1, "sha256": "0" * 64}
    (commit / "explorer.html").mkdir()
    (out / "explorer.html").write_text("a page")
    (commit / MANIFEST).write_text(json.dumps(manifest))
    kg.export(out, html=False)
    assert_intact({**files, out / "notes.txt": "the user's own file"})
    assert verify(out) == [] and not (out / COMMIT_DIR).exists()
    assert any(str(commit / "remove.json") in w and "../victim.txt" in w for w in warnings)


def test_a_planted_commit_record_through_paperkg_html(kg, tmp_path):
    out = tmp_path / "kg"
    files = victims(tmp_path)
    graph_file = kg.save(tmp_path / "graph.json")
    out.mkdir()
    plant_commit(out, {}, ["../victim.txt", str(tmp_path / "home" / "thesis.tex")])
    result = run("html", graph_file, "--out", out)
    assert result.returncode == 0, result.stderr
    assert_intact(files)
    assert (out / "explorer.html").is_file() and verify(out) == []


def test_a_commit_folder_that_is_a_link_is_not_followed(kg, tmp_path):
    out, elsewhere = tmp_path / "kg", tmp_path / "elsewhere"
    plant_commit(elsewhere, {"graph.json": "someone's graph"}, ["../victim.txt"])
    files = {**victims(tmp_path), elsewhere / COMMIT_DIR / "graph.json": "someone's graph"}
    out.mkdir()
    (out / COMMIT_DIR).symlink_to(elsewhere / COMMIT_DIR)
    kg.export(out, html=False)
    assert_intact(files)
    assert (elsewhere / COMMIT_DIR / MANIFEST).is_file() and verify(out) == []


def one_line_error(result, *fragments):
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert any(fragment in lines[0] for fragment in fragments), lines[0]


def test_an_empty_output_folder_is_a_one_line_error(tmp_path):
    (tmp_path / "focus-mine.html").write_text("the user's page in the current folder")
    graph_file = tmp_path / "g" / "graph.json"
    paperkg.build([EXAMPLES], use_model=False, progress=False).save(graph_file)
    for args in (("build", EXAMPLES, "--out", "", "--no-model", "--no-progress"), ("html", graph_file, "--out", "")):
        one_line_error(run(*args, cwd=tmp_path), "the output folder is empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["focus-mine.html", "g"]
    assert (tmp_path / "focus-mine.html").read_text() == "the user's page in the current folder"


@pytest.mark.parametrize("out", ["/", "//", "/tmp/.."])
def test_a_root_output_folder_is_a_one_line_error(tmp_path, out):
    # The inputs do not exist: a paperkg that took the root folder fails on them, writing nothing there.
    for args in (("build", tmp_path / "missing.jsonl", "--out", out, "--no-model", "--no-progress"),
                 ("html", tmp_path / "missing.json", "--out", out)):
        one_line_error(run(*args, cwd=tmp_path), "is the root folder")


def test_an_empty_output_folder_through_the_api(kg, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match="empty"):
        kg.export("", html=False)
    with pytest.raises(OutputError, match="empty"):
        kg.to_html("")
    assert list(tmp_path.iterdir()) == []
