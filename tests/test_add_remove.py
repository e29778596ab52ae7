"""Adding papers to a build and taking them out (issue 22, Build 3): ``paperkg add`` and
``paperkg remove`` give a fresh build of the same inputs byte for byte, extract only the new
papers, refuse a build whose inputs changed, and a killed add leaves the previous set.

Real ICML 2024 abstracts (``../shared/data/corpus/icml2024.jsonl``): 30 in the first file, 12
in the second.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_export_set import wait_for

import paperkg
from paperkg.errors import BuildFolderError, InputError
from paperkg.extract.run.store import STORE_NAME
from paperkg.graph.export_set import COMMIT_DIR, MANIFEST, STAGING_PREFIX, read_manifest, recover, verify

#: The files a build writes that must be equal byte for byte (the manifest records paths, so differs).
COMPARED = ("graph.json", "mentions.jsonl", "graph.graphml", "resolution.jsonl")
OLD, NEW = 30, 12


def cli(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def records(shared_data: Path) -> list[str]:
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as handle:
        return [next(handle) for _ in range(OLD + NEW + 5)]


@pytest.fixture()
def inputs(shared_data, tmp_path) -> tuple[Path, Path, Path]:
    """Three JSONL files of real abstracts: the build's, the one to add, and a spare."""
    lines = records(shared_data)
    files = tmp_path / "old.jsonl", tmp_path / "new.jsonl", tmp_path / "more.jsonl"
    for path, part in zip(files, (lines[:OLD], lines[OLD:OLD + NEW], lines[OLD + NEW:])):
        path.write_text("".join(part), encoding="utf-8")
    return files


def build_into(paths, out: Path, use_model: bool = False) -> paperkg.KnowledgeGraph:
    """A build as `paperkg build --no-html` makes it: the folder's store, every export."""
    kg = paperkg.build(paths, use_model=use_model, progress=False, store=out / STORE_NAME)
    kg.export(out, html=False)
    return kg


def assert_same_files(left: Path, right: Path) -> None:
    for name in COMPARED:
        assert (left / name).read_bytes() == (right / name).read_bytes(), f"{name} differs from a fresh build"


def ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_add_is_a_fresh_build_of_both_files_and_extracts_only_the_new_papers(inputs, tmp_path, use_model):
    old, new, _ = inputs
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build_into([old], out, use_model)
    kg = paperkg.add([new], out, progress=False)
    assert (kg.build_stats.extraction.extracted, kg.build_stats.extraction.reused) == (NEW, OLD)
    with sqlite3.connect(out / STORE_NAME) as db:
        assert db.execute("SELECT count(*) FROM docs").fetchone() == (OLD + NEW,)
    build_into([old, new], fresh, use_model)
    assert_same_files(out, fresh)
    assert verify(out) == []
    assert kg.graph.number_of_nodes() == paperkg.load(fresh / "graph.json").graph.number_of_nodes()
    record = read_manifest(out)["build"]
    assert [Path(f["path"]).name for f in record["inputs"]] == ["old.jsonl", "new.jsonl"]
    assert record["papers"] == OLD + NEW and record["store"] == STORE_NAME, "the store is named inside the folder"
    with pytest.raises(BuildFolderError, match="already an input"):
        paperkg.add([new], out, progress=False)


def entity_only_in(graph, paper_id: str) -> str:
    """An entity node of ``paper_id`` that no other paper has."""
    paper = f"paper:{paper_id}"
    only = [n for n in graph.successors(paper)
            if graph.nodes[n]["kind"] == "Entity"
            and [p for p in graph.predecessors(n) if graph.nodes[p]["kind"] == "Paper"] == [paper]]
    assert only, f"{paper_id} has no entity of its own"
    return only[0]


def blank(path: Path, gone: set[str]) -> None:
    """Empty the lines of ``gone`` in place: the file without those records, lines unmoved."""
    lines = path.read_text(encoding="utf-8").split("\n")
    path.write_text("\n".join("" if line.strip() and json.loads(line)["id"] in gone else line for line in lines),
                    encoding="utf-8")


def test_remove_is_a_fresh_build_without_the_papers(inputs, tmp_path, use_model):
    old, new, more = inputs
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    kg = build_into([old, new], out, use_model)
    gone = {ids(old)[3], ids(new)[5]}
    own = entity_only_in(kg.graph, ids(old)[3])
    kg = paperkg.remove(sorted(gone), out, progress=False)
    assert kg.build_stats.extraction.extracted == 0
    assert not gone & {p["paper_id"] for p in kg.papers()} and own not in kg.graph
    assert len(kg.papers()) == OLD + NEW - 2
    assert paperkg.remove([ids(old)[3]], out, progress=False).papers() == kg.papers(), "removing twice changes nothing"
    # The removed records stay out when papers are added later.
    kg = paperkg.add([more], out, progress=False)
    assert not gone & {p["paper_id"] for p in kg.papers()} and len(kg.papers()) == OLD + NEW + 3
    with pytest.raises(InputError, match="'no-such-paper': in none of the inputs"):
        paperkg.remove(["no-such-paper"], out, progress=False)
    for path in (old, new):
        blank(path, gone)
    build_into([old, new, more], fresh, use_model)
    assert_same_files(out, fresh)


def test_a_changed_or_vanished_input_is_a_one_line_error(inputs, tmp_path):
    old, new, more = inputs
    out = tmp_path / "out"
    build_into([old, new], out)
    before, text = (out / "graph.json").read_bytes(), old.read_text(encoding="utf-8")
    old.write_text(text.replace("the", "a", 1), encoding="utf-8")
    result = cli("add", more, "--to", out, "--no-progress")
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {old}: changed since the build in {out}"), result.stderr
    with pytest.raises(BuildFolderError, match=f"^{old}: changed since the build in {out}"):
        paperkg.remove([ids(new)[0]], out, progress=False)
    old.write_text(text, encoding="utf-8")
    new.unlink()
    with pytest.raises(BuildFolderError, match=f"^{new}: an input of the build in {out} is gone"):
        paperkg.add([more], out, progress=False)
    assert (out / "graph.json").read_bytes() == before, "a refused add writes nothing"
    with pytest.raises(BuildFolderError, match="no paperkg build here"):
        paperkg.add([more], tmp_path / "nowhere", progress=False)


def test_building_other_papers_into_a_folder_says_what_it_replaces(inputs, tmp_path):
    old, new, _ = inputs
    out = tmp_path / "out"
    build_into([old], out)
    again = cli("build", old, "--out", out, "--no-model", "--no-progress", "--no-html")
    assert "replacing" not in again.stderr, "the same inputs again replace nothing worth a word"
    other = cli("build", new, "--out", out, "--no-model", "--no-progress", "--no-html")
    assert other.returncode == 0
    assert f"replacing the build of {OLD} papers from {old} with {NEW} papers from {new}\n" in other.stderr


@pytest.mark.parametrize("point", ["extracting", "staging"])
def test_a_killed_add_leaves_the_previous_set(inputs, tmp_path, point):
    """SIGKILL from outside, as tests/test_export_set.py does to builds: while the add starts
    and extracts, and once it stages the new set."""
    old, new, _ = inputs
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    build_into([old], out)
    previous = (out / "graph.json").read_bytes(), read_manifest(out)
    cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", "add", str(new), "--to", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        if point == "extracting":  # past the imports (~2 s on the test machine), in the reading and NLP
            time.sleep(2.2)
        else:
            assert wait_for(out, STAGING_PREFIX, proc) or proc.returncode == 0, "no staging folder: the add is not written as a set"
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    if (out / COMMIT_DIR).exists():  # killed in the roll forward: the next writer finishes it
        recover(out)
    assert verify(out) == [], verify(out)
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == set(read_manifest(out)["files"]) | {MANIFEST}
    if read_manifest(out) == previous[1]:
        assert (out / "graph.json").read_bytes() == previous[0]
    build_into([old, new], fresh)
    if read_manifest(out) == previous[1]:  # else the kill came too late: the add was complete
        stats = paperkg.add([new], out, progress=False).build_stats.extraction
        assert stats.reused >= OLD and stats.extracted + stats.reused == OLD + NEW  # the store may hold the new ones
    assert_same_files(out, fresh)


def test_an_add_interrupted_while_it_writes_leaves_the_previous_set(inputs, tmp_path, monkeypatch):
    """The deterministic form of a kill in the write: Ctrl-C inside the GraphML writer."""
    from paperkg import api

    old, new, _ = inputs
    out = tmp_path / "out"
    build_into([old], out)
    previous = {name: (out / name).read_bytes() for name in (*COMPARED, MANIFEST)}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "write_graphml", interrupted)
    with pytest.raises(KeyboardInterrupt):
        paperkg.add([new], out, progress=False)
    monkeypatch.undo()
    assert {name: (out / name).read_bytes() for name in previous} == previous and verify(out) == []
    assert not [name for name in os.listdir(out) if name.startswith((STAGING_PREFIX, COMMIT_DIR))]
    assert paperkg.add([new], out, progress=False).build_stats.extraction.extracted == 0, "the store kept the work"


def test_the_commands_have_help(tmp_path):
    for command, option in (("add", "--to"), ("remove", "--from")):
        result = cli(command, "--help")
        assert result.returncode == 0 and option in result.stdout and "byte for byte" in result.stdout
