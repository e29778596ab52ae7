"""A build writes its outputs as one set (issue 11, M1): a killed build leaves the previous
complete set or the new one, never a mix, and stale views are removed.

The campaign's reproduction: a build killed while writing left truncated ``graph.json``,
``graph.graphml``, ``mentions.jsonl`` and ``explorer.html`` under their final names, and
``--no-html`` left the previous run's pages next to a new graph.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperkg.graph.export_set import COMMIT_DIR, MANIFEST, STAGING_PREFIX, read_manifest, recover, verify

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "abstracts.txt"


def build(inputs, out: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "from paperkg.cli import main; main()", "build", *map(str, inputs), "--out", str(out),
           "--no-model", "--no-progress", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


def visible(out: Path) -> set[str]:
    return {p.name for p in out.iterdir() if not p.name.startswith(".")}


def papers_in(out: Path) -> int:
    data = json.loads((out / "graph.json").read_text(encoding="utf-8"))
    return sum(1 for n in data["nodes"] if n["kind"] == "Paper")


def assert_one_complete_set(out: Path) -> None:
    assert verify(out) == [], verify(out)
    assert visible(out) == set(read_manifest(out)["files"]) | {MANIFEST}


def test_no_html_and_focus_pages_of_an_earlier_build_are_removed(tmp_path):
    out = tmp_path / "out"
    (out).mkdir()
    (out / "focus-old-paper.html").write_text("<html>an old focus page</html>")
    (out / "notes.txt").write_text("the user's own file")
    assert build([EXAMPLES], out).wait(timeout=300) == 0
    assert {"explorer.html", "entities.html", "similarity.html"} <= visible(out)
    assert "focus-old-paper.html" not in visible(out) and (out / "notes.txt").exists()
    assert build([EXAMPLES], out, "--no-html").wait(timeout=300) == 0
    assert not any(name.endswith(".html") for name in visible(out))
    assert (out / "notes.txt").read_text() == "the user's own file"
    (out / "notes.txt").unlink()
    assert_one_complete_set(out)


def wait_for(out: Path, prefix: str, proc: subprocess.Popen, timeout: float = 300) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if any(name.startswith(prefix) for name in os.listdir(out)):
            return True
        time.sleep(0.0005)
    return False


@pytest.mark.parametrize("point", ["extracting", "staging", "staging+50ms"])
def test_a_killed_build_leaves_the_old_set_or_the_new_one(shared_data, tmp_path, point):
    out = tmp_path / "out"
    assert build([EXAMPLES], out).wait(timeout=300) == 0
    old = read_manifest(out)
    old_papers = papers_in(out)
    proc = build([shared_data / "seeds"], out)
    try:
        if point == "extracting":
            time.sleep(1.0)
        else:
            found = wait_for(out, STAGING_PREFIX, proc)
            assert found or proc.returncode == 0, "no staging folder appeared: the outputs are not written as a set"
            if point == "staging+50ms":
                time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    if (out / COMMIT_DIR).exists():  # killed during the roll forward: the next writer finishes it
        recover(out)
        assert papers_in(out) == 57
    assert_one_complete_set(out)
    if read_manifest(out) == old:
        assert papers_in(out) == old_papers
    else:
        assert papers_in(out) == 57
    assert build([EXAMPLES], out).wait(timeout=300) == 0, "a later build must succeed after any kill"
    assert_one_complete_set(out)
    assert not [n for n in os.listdir(out) if n.startswith((STAGING_PREFIX, COMMIT_DIR))]


class Killed(BaseException):
    """Stands for SIGKILL inside the roll forward (nothing after it runs)."""


@pytest.mark.parametrize("after", range(4))  # 3 files and the manifest
def test_a_writer_killed_after_the_commit_point_is_rolled_forward(tmp_path, monkeypatch, after):
    """The window after the commit point is a few renames: too short to hit with a signal from
    outside, so the kill is simulated at each rename in turn; the next writer (or recover())
    finishes the new set, and a stale file of the old set is removed."""
    import paperkg.graph.export_set as export_set
    from paperkg.atomic import atomic_write_text

    out = tmp_path / "out"

    def files(text, names):
        return lambda folder: {n: atomic_write_text(folder / n, f"{text} {n}") for n in names}

    # Names paperkg writes: only those may a commit record found in the folder move or delete.
    export_set.write_set(out, files("old", ["graph.json", "mentions.jsonl", "focus-stale.html"]))
    real_replace, calls = os.replace, []

    def replace(src, dst):  # os.replace is global: count only the roll forward's renames
        if COMMIT_DIR in Path(src).parts:
            calls.append(dst)
            if len(calls) > after:
                raise Killed()
        real_replace(src, dst)

    monkeypatch.setattr(export_set.os, "replace", replace)
    with pytest.raises(Killed):
        export_set.write_set(out, files("new", ["graph.json", "mentions.jsonl", "focus-c.html"]))
    monkeypatch.setattr(export_set.os, "replace", real_replace)
    assert (out / COMMIT_DIR).exists(), "killed after the commit point"
    recover(out)
    assert_one_complete_set(out)
    assert sorted(visible(out)) == ["focus-c.html", "graph.json", "mentions.jsonl", MANIFEST]
    assert all((out / n).read_text() == f"new {n}" for n in ("graph.json", "mentions.jsonl", "focus-c.html"))


def test_a_ctrl_c_during_the_roll_forward_waits_and_says_the_set_is_complete(tmp_path, monkeypatch):
    """SIGINT once the set is committed: the roll forward finishes (no mix for readers), then
    InterruptedAfterCommit says so; the CLI prints that the new set is complete."""
    from paperkg.atomic import atomic_write_text
    from paperkg.graph import export_set

    def files(text, names):
        return lambda folder: {n: atomic_write_text(folder / n, f"{text} {n}") for n in names}

    out = tmp_path / "out"
    export_set.write_set(out, files("old", ["graph.json", "mentions.jsonl"]))
    real = export_set._roll_forward

    def roll_forward(*args):
        os.kill(os.getpid(), signal.SIGINT)
        real(*args)

    monkeypatch.setattr(export_set, "_roll_forward", roll_forward)
    with pytest.raises(export_set.InterruptedAfterCommit) as caught:
        export_set.write_set(out, files("new", ["graph.json", "mentions.jsonl"]))
    assert caught.value.out == out and export_set.verify(out) == []
    assert (out / "graph.json").read_text() == "new graph.json"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_cli_says_an_interrupted_build_left_a_complete_set(monkeypatch, capsys, tmp_path):
    import click

    from paperkg import cli
    from paperkg.graph import export_set

    def interrupted(**_):
        try:
            raise export_set.InterruptedAfterCommit(tmp_path)
        except KeyboardInterrupt as exc:
            raise click.exceptions.Abort() from exc

    monkeypatch.setattr(cli.cli, "main", interrupted)
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    assert exit_.value.code == 130
    assert capsys.readouterr().err.strip() == f"interrupted after the new set was complete in {tmp_path}"
