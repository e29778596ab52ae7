"""Issue 21, HIGH 4: a failed ``paperkg neo4j import`` leaves the previous database as it was.

The campaign's reproduction: an import into a data dir holding a database, of a CSV folder the
tool rejects ("Error in input data"), had already removed the old store
(``--overwrite-destination=true``), and ``paperkg neo4j start`` then failed
(MissingTransactionLogsCheck). Now the tool imports into a scratch folder and its store is
swapped in only on success.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import paperkg
from paperkg.queries.server import bulk_import

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "abstracts.txt"


def paperkg_cli(*args):
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, timeout=900)


def paper_count(home: Path) -> int:
    from neo4j_fixtures import TEST_PASSWORD

    from paperkg.queries.runner import Neo4jSettings, connect
    from paperkg.queries.server import free_port, start_local, stop_local

    server = start_local(port=free_port(), data_dir=home, password=TEST_PASSWORD, timeout=180,
                         heap="512m", page_cache="128m")
    try:
        driver = connect(Neo4jSettings(uri=server.uri, user=server.user, password=TEST_PASSWORD))
        try:
            with driver.session() as session:
                return session.run("MATCH (p:Paper) RETURN count(p) AS n").single()["n"]
        finally:
            driver.close()
    finally:
        stop_local(data_dir=home)


def broken_folders(kg, tmp_path: Path) -> dict[str, Path]:
    """CSV folders the import tool rejects: a relationship to a paper that is not there, a header
    with a type Neo4j does not know."""
    from paperkg.queries.neo4j_admin import write_neo4j_admin

    folders = {}
    for kind in ("missing node", "bad header"):
        folder = tmp_path / kind.replace(" ", "-")
        write_neo4j_admin(kg.graph, folder)
        if kind == "missing node":
            with open(folder / "paper_entity.csv", "a", encoding="utf-8", newline="") as handle:
                handle.write('"no-such-paper","tiderl","PROPOSES",1,"x",0\n')
        else:
            lines = (folder / "papers.csv").read_text(encoding="utf-8").split("\n", 1)
            (folder / "papers.csv").write_text(lines[0].replace("year:long", "year:nosuchtype") + "\n" + lines[1],
                                               encoding="utf-8")
        folders[kind] = folder
    return folders


def test_a_failed_import_leaves_the_previous_database(tmp_path):
    from test_neo4j_admin import require_launcher

    require_launcher()
    kg = paperkg.build([EXAMPLES], use_model=False, progress=False)
    papers = sum(1 for _, a in kg.graph.nodes(data=True) if a["kind"] == "Paper")
    graph_file = kg.save(tmp_path / "graph.json")
    home = tmp_path / "home"
    good = paperkg_cli("neo4j", "import", graph_file, "--data-dir", home)
    assert good.returncode == 0 and "IMPORT DONE" in good.stdout, good.stderr[-2000:]
    assert paper_count(home) == papers  # the server ran on it: a data dir holding a database

    failed = {kind: paperkg_cli("neo4j", "import", folder, "--data-dir", home)
              for kind, folder in broken_folders(kg, tmp_path).items()}
    assert all(result.returncode != 0 for result in failed.values())
    assert paper_count(home) == papers, "the previous database must start and hold its papers"
    for kind, result in failed.items():
        lines = result.stderr.strip().splitlines()
        assert result.returncode == 1 and len(lines) == 1, f"{kind}: {result.stderr[-3000:]}"
        assert lines[0].startswith("error: the import tool failed") and "previous database is unchanged" in lines[0]
        assert ("referring to missing node no-such-paper" if kind == "missing node" else
                "unknown property type 'nosuchtype'") in lines[0], lines[0]
    assert (home / "logs" / "paperkg-import.log").is_file()
    assert not list(home.glob(bulk_import.SCRATCH_PREFIX + "*"))

    again = paperkg_cli("neo4j", "import", graph_file, "--data-dir", home)  # and a good import still replaces it
    assert again.returncode == 0, again.stderr[-2000:]
    assert paper_count(home) == papers


def fake_store(home: Path, text: str) -> None:
    for folder in bulk_import.STORE_FOLDERS:
        (home / "data" / folder / "neo4j").mkdir(parents=True)
        (home / "data" / folder / "neo4j" / "store").write_text(text)


def store_text(home: Path) -> list[str]:
    return [(home / "data" / folder / "neo4j" / "store").read_text() for folder in bulk_import.STORE_FOLDERS]


@pytest.mark.parametrize("renames", range(4))
def test_an_import_killed_within_the_swap_is_undone_by_the_next(tmp_path, monkeypatch, renames):
    """The swap is four renames; killed after any of them (simulated), the next import's recovery
    puts the previous store back whole, and a swap that finished keeps the new one."""
    import os

    home = tmp_path / "home"
    fake_store(home, "old")
    scratch = home / (bulk_import.SCRATCH_PREFIX + "x")
    fake_store(scratch, "new")
    real_rename, calls = os.rename, []

    class Killed(BaseException):
        pass

    def rename(src, dst):
        calls.append(dst)
        if len(calls) > renames:
            raise Killed()
        real_rename(src, dst)

    monkeypatch.setattr(bulk_import.os, "rename", rename)
    with pytest.raises(Killed):
        bulk_import._swap_in(scratch, home, "neo4j")
    monkeypatch.setattr(bulk_import.os, "rename", real_rename)
    bulk_import._recover(home, "neo4j")
    assert store_text(home) == ["old", "old"] and not scratch.exists()

    scratch.mkdir()
    fake_store(scratch, "new")
    bulk_import._swap_in(scratch, home, "neo4j")
    bulk_import._recover(home, "neo4j")
    assert store_text(home) == ["new", "new"] and not scratch.exists()


def test_a_database_name_is_not_a_path(tmp_path):
    with pytest.raises(paperkg.PaperKGError, match="invalid database name"):
        bulk_import.import_graph(tmp_path, data_dir=tmp_path / "home", database="../../x")
