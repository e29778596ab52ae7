"""The export's writers in forked processes (paperkg.forked): the same bytes as written in turn,
and an error in a child is the serial path's one-line error, with the previous set left whole."""

from __future__ import annotations

import json
import os
from itertools import islice
from pathlib import Path

import pytest

import paperkg
from paperkg import api, cli
from paperkg.errors import DiskFullError
from paperkg.forked import ExportWorkerError, can_fork, run_writers
from paperkg.graph.export_set import verify
from paperkg.spill import Spill

pytestmark = pytest.mark.skipif(not can_fork(), reason="the writers run in turn where fork is not available")

PAPERS = 300


@pytest.fixture(scope="module")
def kg(shared_data: Path, tmp_path_factory: pytest.TempPathFactory):
    """A --no-model build of the first 300 real ICML 2024 abstracts."""
    path = tmp_path_factory.mktemp("corpus") / "icml2024-head.jsonl"
    with open(shared_data / "corpus" / "icml2024.jsonl", encoding="utf-8") as source:
        path.write_text("".join(islice(source, PAPERS)), encoding="utf-8")
    return paperkg.build([path], use_model=False, progress=False)


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and p.name != ".paperkg-lock"}


def test_forked_writers_write_the_bytes_written_in_turn(kg, tmp_path):
    serial = kg.export(tmp_path / "serial", n_process=1)
    parallel = kg.export(tmp_path / "parallel", n_process=3)
    assert [(k, p.name) for k, p in serial.items()] == [(k, p.name) for k, p in parallel.items()]
    want = files(tmp_path / "serial")
    assert {"graph.json", "graph.graphml", "mentions.jsonl", "resolution.jsonl", "explorer.html"} <= set(want)
    assert files(tmp_path / "parallel") == want
    assert verify(tmp_path / "parallel") == []


def test_forked_writers_leave_no_process_and_release_the_spill(kg, tmp_path):
    # The mentions writer reads the spilled records in a child, through the file the parent reads.
    kg.export(tmp_path / "a", n_process=2)
    assert list(kg.extractions)[:3] == list(kg.extractions[:3])
    kg.export(tmp_path / "b", n_process=2)
    assert files(tmp_path / "a") == files(tmp_path / "b")
    import multiprocessing

    assert multiprocessing.active_children() == []


def _fail_in_child(parent: int):
    def write_graphml(graph, path):
        assert os.getpid() != parent, "the writer ran in the parent"
        raise DiskFullError(f"{path}: cannot write: no space left on the device")
    return write_graphml


def test_an_error_in_a_child_is_the_serial_error_and_the_old_set_stays(kg, tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    kg.export(out, n_process=1)
    before = files(out)
    monkeypatch.setattr(api, "write_graphml", _fail_in_child(os.getpid()))
    with pytest.raises(DiskFullError) as raised:
        kg.export(out, n_process=2)
    assert str(raised.value) == f"{out / 'graph.graphml'}: cannot write: no space left on the device"
    assert files(out) == before and verify(out) == []
    assert not [p for p in out.iterdir() if p.name.startswith(".paperkg-staging-")]

    # In the CLI: one line, no traceback.
    monkeypatch.setattr(paperkg, "build", lambda *a, **k: kg)
    monkeypatch.setattr("sys.argv", ["paperkg", "build", "unused.jsonl", "--out", str(out), "--n-process", "2", "--no-progress"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"error: {out / 'graph.graphml'}: cannot write: no space left on the device"
    assert not any("Traceback" in line for line in err)
    assert files(out) == before


def test_a_child_that_dies_fails_the_export_and_the_others_are_stopped(tmp_path):
    stopped = tmp_path / "stopped"

    def slow():
        import time
        time.sleep(30)
        stopped.write_text("finished")  # never: the parent ends it first

    with pytest.raises(ExportWorkerError, match="the process writing dies died"):
        run_writers([("slow", slow), ("dies", lambda: os._exit(3))], 2)
    assert not stopped.exists()
    import multiprocessing

    assert multiprocessing.active_children() == []


def test_a_spill_read_in_a_child_still_reads_in_the_parent():
    # The child shares the open file (and its offset) of the parent's spill; the parent's read
    # buffer, left part-way into the next batch, must not read from where the child stopped.
    spill = Spill(batch=2)
    spill.extend(f"{i:04d}" * 800 for i in range(10))
    assert spill[0] == "0000" * 800
    assert run_writers([("read", lambda: len(list(spill)))], 2) == {"read": 10}
    assert list(spill) == [f"{i:04d}" * 800 for i in range(10)]


def test_results_come_back_in_the_order_given(tmp_path):
    assert list(run_writers([("b", lambda: 2), ("a", lambda: json.dumps([1]))], 2).items()) == [("b", 2), ("a", "[1]")]
