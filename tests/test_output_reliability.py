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
import threading
from pathlib import Path

import pytest

import paperkg
from paperkg.graph import export_set
from paperkg.graph.export_set import COMMIT_DIR, MANIFEST, read_manifest, verify
from paperkg.queries import neo4j_admin

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


def _traced_renames(cmd: list, trace: Path) -> list[tuple[str, str]]:
    """Run ``cmd`` under strace (skip where it cannot trace) and return its renames."""
    traced = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=rename,renameat,renameat2", *cmd],
                            capture_output=True, text=True)
    if traced.returncode != 0 and "ptrace" in traced.stderr:
        pytest.skip(f"strace cannot trace here: {traced.stderr.strip()[:200]}")
    assert traced.returncode == 0, traced.stderr
    return _renames(trace)


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
    renames = _traced_renames([*cmd, probe], trace)
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


def lock_free(out: Path) -> bool:
    """Whether a writer could take ``out``'s lock now (flock conflicts across opens, also in one process)."""
    import fcntl

    with open(out / export_set.LOCK_FILE, "a+b") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return True


def page_papers(page: Path) -> int:
    data = page.read_text(encoding="utf-8").split('id="paperkg-data">', 1)[1].split("</script>", 1)[0]
    return json.loads(data)["meta"]["stats"]["papers"]


def test_m2_html_into_the_graphs_folder_is_drawn_from_the_graph_it_lands_beside(graphs, tmp_path, monkeypatch):
    """The race made deterministic: once html has read DIR/graph.json, a build of DIR starts and
    writes its set as soon as it can take the folder's lock. Before, the lock was free, so the
    8-paper set landed first and html merged 3-paper pages into it (verify said OK); now html
    holds the lock from reading to writing, the build waits, and every page matches graph.json."""
    from paperkg.cli import cli

    old, new = graphs
    out = tmp_path / "out"
    old.export(out)
    build = threading.Thread(target=new.export, args=(out,))  # a fresh thread: none of html's locks
    load = paperkg.load

    def racing(path):
        kg = load(path)
        free = lock_free(out)
        build.start()
        if free:
            build.join()  # nothing makes the build wait: its set is in before the pages
        return kg

    monkeypatch.setattr(paperkg, "load", racing)
    cli.main(["html", str(out / "graph.json"), "--out", str(out)], standalone_mode=False)
    build.join()
    monkeypatch.undo()
    assert verify(out) == []
    assert papers(out / "graph.json") == 8
    for page in ("explorer.html", "entities.html", "similarity.html"):
        assert page_papers(out / page) == 8, page


NEO4J_ADMIN = (*neo4j_admin.FILES.values(), "constraints.cypher", "import.sh")


def test_m3_the_neo4j_admin_names_are_the_files_it_writes(graphs, tmp_path):
    """The export set's list of them (the only CSVs it may replace) is what the export writes."""
    written = neo4j_admin.write_neo4j_admin(graphs[0].graph, tmp_path / "csv")
    assert sorted(p.name for p in written.values()) == sorted(NEO4J_ADMIN) == sorted(export_set.NEO4J_ADMIN_FILES)
    assert visible(tmp_path / "csv") == {*NEO4J_ADMIN, MANIFEST} and verify(tmp_path / "csv") == []


def test_m3_neo4j_admin_into_a_build_folder_keeps_the_build_and_replaces_only_its_csvs(graphs, tmp_path):
    old, new = graphs
    out = tmp_path / "out"
    new.export(out)
    (out / "notes.csv").write_text("mine\n")
    old.to_neo4j_admin(out)
    new.to_neo4j_admin(out)
    assert verify(out) == [] and papers(out / "graph.json") == 8
    assert set(read_manifest(out)["files"]) == visible(out) - {MANIFEST, "notes.csv"}
    assert (out / "notes.csv").read_text() == "mine\n"
    assert (out / "papers.csv").read_text(encoding="utf-8").count('"Paper"') == 8


def _contents(out: Path) -> dict[str, bytes]:
    found = {}
    for name in NEO4J_ADMIN:
        with export_set.reading(out / name) as path:
            found[name] = path.read_bytes()
    return found


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (apt-get install strace)")
def test_m3_a_real_kill_9_at_each_rename_of_a_neo4j_admin_export(graphs, tmp_path):
    """SIGKILL from strace at every rename of ``paperkg export --format neo4j-admin`` into a
    folder holding an older export: the folder read afterwards is the old set or the new one.
    Before, each CSV was renamed into place on its own: a kill left new papers.csv beside old
    relationship CSVs."""
    old, new = graphs
    old_json, new_json = old.save(tmp_path / "old.json"), new.save(tmp_path / "new.json")
    cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", "export", new_json, "--format", "neo4j-admin"]

    exported = run("export", old_json, "--format", "neo4j-admin", tmp_path / "before")
    assert exported.returncode == 0, exported.stderr
    before = _contents(tmp_path / "before")

    def old_set(out: Path) -> Path:
        return Path(shutil.copytree(tmp_path / "before", out))

    assert run(*cmd[3:], tmp_path / "after").returncode == 0
    after = _contents(tmp_path / "after")
    assert before["papers.csv"] != after["papers.csv"] and before["related_to.csv"] != after["related_to.csv"]
    trace = tmp_path / "trace.txt"
    probe = old_set(tmp_path / "probe")
    renames = _traced_renames([*cmd, probe], trace)
    syscall = renames[-1][0]
    count = sum(1 for name, _ in renames if name == syscall)
    assert count >= len(NEO4J_ADMIN)
    outcomes, mixed, unverified = [], [], []
    for when in range(1, count + 1):
        out = old_set(tmp_path / f"out{when}")
        killed = subprocess.run(["strace", "-f", "-qq", "-o", os.devnull, "-e", f"trace={syscall}", "-e",
                                 f"inject={syscall}:signal=KILL:when={when}", *cmd, out], capture_output=True, text=True)
        assert killed.returncode != 0, f"the export was not killed at rename {when}"
        found = _contents(out)
        if found not in (before, after):
            mixed.append((when, sorted(n for n in found if found[n] == after[n] != before[n])))
        if verify(out):
            unverified.append((when, verify(out)))
        outcomes.append("new" if found == after else "old")
    assert mixed == [], f"(rename, the new files beside old ones) of {count} renames"
    assert unverified == []
    assert "old" in outcomes and "new" in outcomes, outcomes


def test_low_exports_follow_the_umask(tmp_path):
    """Under umask 077 every export is 0600 (import.sh 0700); it was chmod 0755 whatever the umask."""
    def private():
        os.umask(0o077)

    out = tmp_path / "out"
    for args in (("build", EXAMPLES, "--no-model", "--no-progress", "--out", out),
                 ("export", out / "graph.json", "--format", "neo4j-admin", out)):
        result = subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                                capture_output=True, text=True, preexec_fn=private)
        assert result.returncode == 0, result.stderr
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.iterdir() if p.is_file()}
    assert modes.pop("import.sh") == 0o700
    assert set(modes.values()) == {0o600}, modes


def test_low_the_neo4j_data_dir_and_its_state_files_are_private(tmp_path, monkeypatch):
    """start_local up to the point Neo4j would answer (the JVM stood in for by a sleeping
    process): the data dir it makes is 0700, the pid, state and log files 0600, under umask 022."""
    from paperkg.queries.server import control
    from paperkg.queries.server.process import pid_path, state_path, terminate

    monkeypatch.setenv("NEO4J_PASSWORD", "a-test-password")
    monkeypatch.setattr(control, "build_launcher", lambda *a, **k: tmp_path / "launcher.jar")
    monkeypatch.setattr(control, "_java_executable", lambda: "java")
    monkeypatch.setattr(control, "_check_java", lambda java: None)
    monkeypatch.setattr(control, "_wait_ready", lambda *a, **k: None)
    monkeypatch.setattr(control, "port_free", lambda port: True)
    popen = subprocess.Popen
    monkeypatch.setattr(control.subprocess, "Popen",
                        lambda cmd, **kw: popen([sys.executable, "-c", "import time; time.sleep(60)"], **kw))
    umask = os.umask(0o022)
    try:
        server = control.start_local(port=7999, data_dir=tmp_path / "home" / "data")
    finally:
        os.umask(umask)
    try:
        data = tmp_path / "home" / "data"
        assert data.stat().st_mode & 0o777 == 0o700
        for path in (pid_path(data), state_path(data), server.log_path):
            assert path.stat().st_mode & 0o777 == 0o600, path
    finally:
        terminate(server.pid, 10.0)
