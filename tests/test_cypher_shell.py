"""``paperkg cypher`` against a real Neo4j: scripts on stdin, and the interactive prompt on a pty;
plus ``paperkg neo4j stop`` naming the server of another data dir."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from paperkg.queries.loader import load_graph
from paperkg.queries.runner import Neo4jSettings

CLI = [sys.executable, "-c", "from paperkg.cli import main; main()"]


@pytest.fixture()
def loaded(seeds_kg, clean_neo4j, neo4j_settings, tmp_path):
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(seeds_kg.graph, settings, progress=False)
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user, "NEO4J_PASSWORD": settings.password,
           "NEO4J_DATABASE": settings.database, "PAPERKG_HOME": str(tmp_path / "home")}
    return seeds_kg, env


def first_papers(kg, n):
    return sorted(a["paper_id"] for _, a in kg.graph.nodes(data=True) if a["kind"] == "Paper")[:n]


def test_script_on_stdin_runs_statements_with_parameters(loaded):
    kg, env = loaded
    script = ("// a comment; with a semicolon\n"
              ":param k=2\n"
              ":param title='x; y'\n"
              "MATCH (p:Paper) RETURN p.id AS id ORDER BY id\n  LIMIT $k;\n"
              "RETURN $title AS t;\n"
              ":params\n")
    result = subprocess.run(CLI + ["cypher"], input=script, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id"]
    for pid in first_papers(kg, 2):
        assert any(line.strip() == pid for line in lines)
    assert "x; y" in result.stdout and '"k": 2' in result.stdout
    assert "(2 rows)" in result.stdout
    assert result.stderr == "", "no driver log lines on stderr (and no notes for read-only statements)"


def test_script_stops_at_the_first_error_with_one_line(loaded):
    _, env = loaded
    result = subprocess.run(CLI + ["cypher"], input="RETURN 1 AS one;\nMATCH (n RETURN n;\nRETURN 2 AS two;\n",
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "SyntaxError" in errors[0]
    assert "two" not in result.stdout


def read_until(fd: int, needle: str, timeout: float = 60.0) -> str:
    seen = ""
    deadline = time.monotonic() + timeout
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk.decode(errors="replace")
    return seen


def test_interactive_prompt_on_a_terminal(loaded, tmp_path):
    kg, env = loaded
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell on a terminal
        os.execvpe(CLI[0], CLI + ["cypher"], env)
    try:
        assert "cypher> " in read_until(fd, "cypher> ")
        os.write(fd, b":param k=3\n")
        assert "cypher> " in read_until(fd, "cypher> ")
        os.write(fd, b"MATCH (p:Paper) RETURN p.id AS id\n")
        assert "...> " in read_until(fd, "...> "), "a statement without ';' continues on the next line"
        os.write(fd, b"ORDER BY id LIMIT $k;\n")
        out = read_until(fd, "(3 rows)")
        for paper in first_papers(kg, 3):
            assert paper in out
        os.write(fd, b":help\n")
        assert ":param NAME=VALUE" in read_until(fd, ":exit")
        os.write(fd, b":exit\n")
        read_until(fd, "never")
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    history = (tmp_path / "home" / "cypher_history").read_text()
    assert "LIMIT $k;" in history


def test_stop_without_data_dir_names_the_running_server(neo4j_settings, tmp_path, monkeypatch):
    if neo4j_settings.local is None:
        pytest.skip("the tests use an external Neo4j (NEO4J_URI), not a local launcher")
    from paperkg.queries.server import status_local, stop_local

    monkeypatch.setenv("PAPERKG_HOME", str(tmp_path / "elsewhere"))
    message = stop_local().message
    assert "no local Neo4j is running for data dir" in message
    assert str(neo4j_settings.local.data_dir) in message and "--data-dir" in message
    assert str(neo4j_settings.local.data_dir) in status_local().describe()
    assert status_local(data_dir=neo4j_settings.local.data_dir).running, "the server must still run"
