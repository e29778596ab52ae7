"""Issue 21 (reliability), the output cases: M1, M2, M3, M7 and the output LOWs.

The campaign's reproductions:

- M1: ``strace -f -e inject=rename:signal=KILL:when=N paperkg build ... --out OLD`` left a folder
  of new and old files for readers at 7 of the 19 renames (the roll forward): ``paperkg stats``
  and ``paperkg html`` read whatever was there.
- M2: ``paperkg html DIR/graph.json --out DIR`` racing a build of DIR merged pages drawn from the
  old 500-paper graph into the new 2,634-paper set, and verify said OK.
- M3: ``paperkg export --format neo4j-admin`` wrote file by file: a kill left a new papers.csv
  beside old relationship CSVs and import.sh.
- M7: tracebacks for a full disk, a full TMPDIR, an export folder that is a file, a read-only
  output folder and ``neo4j import --data-dir FILE``.
- LOWs: exports 0644 whatever the umask; raw U+2028/U+2029 in mentions.jsonl; Paper nodes
  holding the input path as typed (an absolute path of the machine); a file name with a newline
  faking a warning line.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import paperkg
import paperkg.errors as errors
from paperkg.graph import export_set
from paperkg.graph.export_set import COMMIT_DIR, MANIFEST, read_manifest, verify

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "abstracts.txt"


def run(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """Two builds that differ in every file: the example's 8 papers, and its first 3."""
    folder = tmp_path_factory.mktemp("inputs")
    paragraphs = EXAMPLES.read_text(encoding="utf-8").split("\n\n")
    (folder / "three.txt").write_text("\n\n".join(paragraphs[:4]) + "\n", encoding="utf-8")
    old = paperkg.build([folder / "three.txt"], use_model=False, progress=False)
    new = paperkg.build([EXAMPLES], use_model=False, progress=False)
    assert old.counts()["papers"] == 3 and new.counts()["papers"] == 8
    return old, new


def papers(path: Path) -> int:
    return paperkg.load(path).counts()["papers"]


def visible(out: Path) -> set[str]:
    return {p.name for p in out.iterdir() if not p.name.startswith(".")}


class Killed(BaseException):
    """Stands for SIGKILL inside the roll forward (nothing after it runs)."""


def kill_at_rename(monkeypatch, after: int) -> None:
    """The seam: the roll forward's rename number ``after`` (from 0) never happens."""
    real, calls = os.replace, []

    def replace(src, dst):
        if COMMIT_DIR in Path(src).parts:
            calls.append(dst)
            if len(calls) > after:
                raise Killed()
        real(src, dst)

    monkeypatch.setattr(export_set.os, "replace", replace)


# 7 files (graph.json, graph.graphml, mentions.jsonl, resolution.jsonl, three pages), then the manifest.
@pytest.mark.parametrize("after", range(8))
def test_m1_a_reader_never_sees_a_mix_after_a_kill_in_the_roll_forward(graphs, tmp_path, monkeypatch, after):
    """Before: paperkg.load read the folder as the kill left it (the old graph.json beside new
    pages, or a new one beside old pages) and verify() reported the unfinished set. Now a reader
    finishes the committed set first: it reads the new graph and the folder is the new set."""
    old, new = graphs
    out, reference = tmp_path / "out", tmp_path / "reference"
    old.export(out)
    new.export(reference)
    kill_at_rename(monkeypatch, after)
    with pytest.raises(Killed):
        new.export(out)
    monkeypatch.undo()
    assert (out / COMMIT_DIR).is_dir(), "killed after the commit point"
    assert papers(out / "graph.json") == 8
    assert verify(out) == []
    assert read_manifest(out)["files"] == read_manifest(reference)["files"]
    assert visible(out) == visible(reference)


def test_m1_a_reader_of_a_read_only_folder_reads_the_committed_files_where_they_are(graphs, tmp_path, monkeypatch):
    """Where the roll forward cannot be finished (a read-only folder), the reader takes the
    committed files from the commit folder: still the new set, with a warning."""
    old, new = graphs
    out = tmp_path / "out"
    old.export(out)
    kill_at_rename(monkeypatch, 2)
    with pytest.raises(Killed):
        new.export(out)
    monkeypatch.undo()

    def refuse(_out):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(export_set, "_recover", refuse)
    assert papers(out / "graph.json") == 8
    assert (out / COMMIT_DIR).is_dir()
    assert verify(out) == [f"{out / COMMIT_DIR}: a committed set is not rolled forward yet"]


def _renames(trace: Path) -> list[tuple[str, str]]:
    """(syscall, source path) of each rename in an strace log."""
    found = []
    for line in trace.read_text().splitlines():
        for call in ("renameat2(", "renameat(", "rename("):
            if call in line:
                found.append((call[:-1], line.split(call, 1)[1]))
                break
    return found


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (apt-get install strace)")
def test_m1_a_real_kill_9_at_each_rename_of_the_roll_forward(graphs, tmp_path):
    """The campaign's command: SIGKILL from strace at each rename of the roll forward of a real
    ``paperkg build``; then ``paperkg stats`` reads the new graph and the folder is the new set."""
    old, _ = graphs
    cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", "build", str(EXAMPLES), "--no-model",
           "--no-progress", "--out"]
    probe = tmp_path / "probe"
    old.export(probe)
    trace = tmp_path / "trace.txt"
    traced = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=rename,renameat,renameat2",
                             *cmd, probe], capture_output=True, text=True)
    if traced.returncode != 0 and "ptrace" in traced.stderr:
        pytest.skip(f"strace cannot trace here: {traced.stderr.strip()[:200]}")
    assert traced.returncode == 0, traced.stderr
    renames = _renames(trace)
    syscall = renames[-1][0]
    calls = [source for name, source in renames if name == syscall]
    roll_forward = [n for n, source in enumerate(calls, 1) if f"{COMMIT_DIR}/" in source]
    assert len(roll_forward) == 8, renames
    for when in roll_forward:
        out = tmp_path / f"out{when}"
        old.export(out)
        killed = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={syscall}", "-e",
                                 f"inject={syscall}:signal=KILL:when={when}", *cmd, out], capture_output=True, text=True)
        assert killed.returncode != 0, f"the build was not killed at rename {when}"
        assert (out / COMMIT_DIR).is_dir()
        stats = run("stats", out / "graph.json", "--json")
        assert stats.returncode == 0, stats.stderr
        assert json.loads(stats.stdout)["counts"]["papers"] == 8, f"killed at rename {when}"
        assert verify(out) == [] and visible(out) == visible(probe), f"killed at rename {when}"
