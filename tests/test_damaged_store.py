"""Issue 21 M6: damaged rows of the extraction store (hand edits, a half-written disk) are
reported naming the store and their papers extracted again; a store SQLite cannot read is one
line naming the file, never a traceback."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys

import pytest
from conftest import EXAMPLES

import paperkg
from paperkg.errors import StoreError
from paperkg.extract.run.store import STORE_NAME

CLI = [sys.executable, "-c", "from paperkg.cli import main; main()"]


def cli_build(out):
    return subprocess.run(CLI + ["build", str(EXAMPLES / "abstracts.txt"), "--out", str(out), "--no-model",
                                 "--no-progress", "--no-html"], capture_output=True, text=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A real build into a folder: its graph.json and its store."""
    out = tmp_path_factory.mktemp("built")
    run = cli_build(out)
    assert run.returncode == 0, run.stderr
    return out


def damaged_copy(built, tmp_path, sql):
    out = tmp_path / "out"
    shutil.copytree(built, out)
    db = sqlite3.connect(out / STORE_NAME)
    db.execute(sql)
    db.commit()
    db.close()
    return out


def test_a_row_that_is_not_json_is_extracted_again_through_the_cli(built, tmp_path):
    out = damaged_copy(built, tmp_path, "UPDATE docs SET mentions = 'not json' WHERE rowid = 1")
    run = cli_build(out)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert f"{out / STORE_NAME}: damaged row of paper " in run.stderr
    assert "(mentions is not JSON); extracting it again" in run.stderr
    assert "extraction: 1 papers extracted, 7 reused from the store" in run.stderr
    assert (out / "graph.json").read_bytes() == (built / "graph.json").read_bytes()
    assert cli_build(out).stderr.count("damaged row") == 0  # the row was replaced


@pytest.mark.parametrize("sql", [
    "UPDATE docs SET mentions = 'not json'",
    "UPDATE docs SET mentions = '[[1]]'",
    "UPDATE docs SET mentions = '{\"a\": 1}'",
    "UPDATE docs SET mentions = '[[0, 5, 7, \"used\", \"model\", 0, 9, false]]'",
    "UPDATE docs SET mentions = '[[0, 4, \"Foo\", \"bar\", \"model\", 0, 9, false]]'",
    "UPDATE docs SET mentions = '[[5, 2, \"Method\", \"used\", \"model\", 0, 9, false]]'",
    "UPDATE docs SET mentions = x'ff00'",
    "UPDATE docs SET mentions = 12",
    "UPDATE docs SET abbreviations = '[[1, 2]]'",
    "UPDATE docs SET notes = 'nope'",
    "UPDATE docs SET notes = '[1]'",
])
def test_every_damaged_row_is_reported_and_extracted_again(built, tmp_path, sql, caplog):
    out = damaged_copy(built, tmp_path, sql)
    kg = paperkg.build([EXAMPLES / "abstracts.txt"], use_model=False, progress=False, store=out / STORE_NAME)
    assert kg.build_stats.extraction.extracted == 8 and kg.build_stats.extraction.reused == 0
    warnings = [r.getMessage() for r in caplog.records if "damaged row" in r.getMessage()]
    # Five named, the rest in one line: a wholly damaged store does not bury the output.
    assert len(warnings) == 6 and all(w.startswith(str(out / STORE_NAME)) for w in warnings)
    assert warnings[-1].endswith("8 damaged rows in all (the first 5 are listed above); their papers are extracted again")
    assert kg.stats()["counts"] == paperkg.load(built / "graph.json").stats()["counts"]


@pytest.mark.parametrize("sql", ["ALTER TABLE docs DROP COLUMN notes", "ALTER TABLE docs RENAME COLUMN mentions TO m"])
def test_a_store_sqlite_cannot_read_is_one_line_naming_it(built, tmp_path, sql):
    out = damaged_copy(built, tmp_path, sql)
    with pytest.raises(StoreError, match=f"^{out / STORE_NAME}: cannot read the extraction store"):
        paperkg.build([EXAMPLES / "abstracts.txt"], use_model=False, progress=False, store=out / STORE_NAME)
    run = cli_build(out)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith(f"error: {out / STORE_NAME}: cannot read the extraction store")
