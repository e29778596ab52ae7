"""``paperkg cypher`` against a real Neo4j: scripts on stdin, and the interactive prompt on a pty
(Ctrl-C cancelling a running statement on the server, history without secrets, statements
ending at ``;`` outside strings and comments); plus ``paperkg neo4j stop`` naming the server
of another data dir."""

from __future__ import annotations

import os
import pty
import select
import signal
import stat
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest

from paperkg.queries.loader import load_graph
from paperkg.queries.runner import Neo4jSettings
from paperkg.queries.shell import parse_param, secret, split_statements

CLI = [sys.executable, "-c", "from paperkg.cli import main; main()"]


@pytest.fixture()
def loaded(seeds_kg, clean_neo4j, neo4j_settings, tmp_path):
    settings = Neo4jSettings.coerce(neo4j_settings)
    load_graph(seeds_kg.graph, settings, progress=False)
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user, "NEO4J_PASSWORD": settings.password,
           "NEO4J_DATABASE": settings.database, "PAPERKG_HOME": str(tmp_path / "home")}
    return seeds_kg, env


@pytest.fixture()
def shell_env(clean_neo4j, neo4j_settings, tmp_path):
    """The environment of a ``paperkg cypher`` on the test server (an empty database)."""
    return {**os.environ, "NEO4J_URI": neo4j_settings.uri, "NEO4J_USER": neo4j_settings.user,
            "NEO4J_PASSWORD": neo4j_settings.password, "NEO4J_DATABASE": neo4j_settings.database,
            "PAPERKG_HOME": str(tmp_path / "home")}


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


def spawn_on_pty(env):
    pid, fd = pty.fork()
    if pid == 0:  # the child: the shell on a terminal
        os.execvpe(CLI[0], CLI + ["cypher"], env)
    return pid, fd


def exit_status(pid: int, timeout: float = 30.0) -> int | None:
    """The exit code once the process ends, None if it still runs after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def interrupt_at_prompt(pid: int, fd: int) -> None:
    """SIGINT once the prompt waits: CPython's readline loses a signal that comes while it is
    still drawing the prompt (until the next key), a window no typing hand hits."""
    read_until(fd, "cypher> ", timeout=1)
    time.sleep(0.5)
    os.kill(pid, signal.SIGINT)


@contextmanager
def shell_on_pty(env):
    """``(pid, fd, status)`` of the shell on a terminal, at its first prompt; a test appends the
    exit code to ``status`` once the shell has left. If it did not, the shell is killed."""
    pid, fd = spawn_on_pty(env)
    status: list = []
    try:
        assert "cypher> " in read_until(fd, "cypher> ")
        yield pid, fd, status
    finally:
        if not status:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)


def left(pid: int, fd: int, status: list, code: int) -> None:
    """Wait for the shell to leave (its terminal drained) and check its exit code."""
    read_until(fd, "never", timeout=5)
    status.append(exit_status(pid))
    assert status == [code]


def running(driver, needle: str) -> list[str]:
    """Ids of the server's transactions whose query holds ``needle`` (a parameter here, so this
    statement does not find itself)."""
    with driver.session() as session:
        return [r["transactionId"] for r in session.run(
            "SHOW TRANSACTIONS YIELD transactionId, currentQuery WHERE currentQuery CONTAINS $needle "
            "RETURN transactionId", needle=needle)]


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


#: A statement that runs for minutes; the alias finds it in SHOW TRANSACTIONS.
LONG = "UNWIND range(1, 10000000000) AS x WITH x WHERE x = -1 RETURN count(*) AS {alias};\n"


def test_ctrl_c_cancels_the_running_statement_on_the_server(shell_env, neo4j_driver):
    with shell_on_pty(shell_env) as (pid, fd, status):
        os.write(fd, LONG.format(alias="cancel_me_tty").encode())
        assert wait_for(lambda: running(neo4j_driver, "cancel_me_tty"), 30), "the statement never started"
        os.kill(pid, signal.SIGINT)
        out = read_until(fd, "cypher> ", timeout=15)
        assert "query cancelled" in out and out.rstrip().endswith("cypher>"), out
        assert wait_for(lambda: not running(neo4j_driver, "cancel_me_tty"), 5), "the server still runs it"
        os.write(fd, b"RETURN 41 + 1 AS answer;\n")
        assert "(1 row)" in read_until(fd, "(1 row)"), "the shell works on after a cancel"
        interrupt_at_prompt(pid, fd)  # Ctrl-C at the prompt leaves
        left(pid, fd, status, 130)


def test_a_second_ctrl_c_leaves_with_130_and_the_statement_stops(shell_env, neo4j_driver):
    with shell_on_pty(shell_env) as (pid, fd, status):
        os.write(fd, LONG.format(alias="cancel_me_twice").encode())
        assert wait_for(lambda: running(neo4j_driver, "cancel_me_twice"), 30), "the statement never started"
        for _ in range(100):  # Ctrl-C until it leaves: the second lands during the cancel or at the prompt
            os.kill(pid, signal.SIGINT)
            code = exit_status(pid, timeout=0.05)
            if code is not None:
                status.append(code)
                break
        assert status == [130]
        assert wait_for(lambda: not running(neo4j_driver, "cancel_me_twice"), 10), "the server still runs it"


def test_ctrl_c_drops_a_statement_being_typed(shell_env):
    with shell_on_pty(shell_env) as (pid, fd, status):
        os.write(fd, b"RETURN 'dropped' AS x\n")
        read_until(fd, "...> ", timeout=5)
        time.sleep(0.5)
        os.kill(pid, signal.SIGINT)
        assert "cypher> " in read_until(fd, "cypher> ", timeout=5), "back at a fresh prompt"
        os.write(fd, b"RETURN 7 AS seven;\n")
        out = read_until(fd, "(1 row)")
        assert "(1 row)" in out and "error" not in out, "the dropped line is not part of the statement"
        os.write(fd, b":exit\n")
        left(pid, fd, status, 0)


def test_sigint_cancels_a_script_statement_and_ends_the_run(shell_env, neo4j_driver):
    script = LONG.format(alias="cancel_me_script") + "RETURN 'not reached' AS after;\n"
    process = subprocess.Popen(CLI + ["cypher"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=shell_env, text=True)
    try:
        process.stdin.write(script)
        process.stdin.close()
        assert wait_for(lambda: running(neo4j_driver, "cancel_me_script"), 30), "the statement never started"
        process.send_signal(signal.SIGINT)
        assert wait_for(lambda: not running(neo4j_driver, "cancel_me_script"), 5), "the server still runs it"
        assert process.wait(timeout=15) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    out, err = process.stdout.read(), process.stderr.read()
    assert err.strip().splitlines() == ["query cancelled"] and "not reached" not in out


def test_interactive_statements_end_at_a_semicolon_outside_strings_and_comments(shell_env):
    with shell_on_pty(shell_env) as (pid, fd, status):
        os.write(fd, b"RETURN 2 /* ; */ AS two; // done\n")
        out = read_until(fd, "cypher> ")
        assert "(1 row)" in out and "error" not in out, "a ';' in a block comment ends nothing; after ';' a comment"
        os.write(fd, b"RETURN 'a;\n")
        assert "...> " in read_until(fd, "...> "), "a ';' inside an open string ends nothing"
        os.write(fd, b"b' AS s; RETURN 3\n")
        out = read_until(fd, "...> ")
        assert "(1 row)" in out and "error" not in out and "...> " in out, "a statement after ';' continues"
        os.write(fd, b"AS three;\n")
        out = read_until(fd, "cypher> ")
        assert "(1 row)" in out and "three" in out and "error" not in out
        os.write(fd, b"MATCH (n) // no end here;\n")
        assert "...> " in read_until(fd, "...> "), "a ';' in a line comment ends nothing"
        os.write(fd, b"RETURN count(n) AS nodes;\n")
        assert "(1 row)" in read_until(fd, "(1 row)")
        os.write(fd, b":exit\n")
        left(pid, fd, status, 0)


def test_history_keeps_no_passwords_or_parameters_and_is_private(shell_env, tmp_path):
    history = tmp_path / "home" / "cypher_history"
    history.parent.mkdir(parents=True)
    history.write_text("RETURN 'old' AS kept_before;\n:param api_key=\"old-secret\"\n")
    history.chmod(0o644)
    with shell_on_pty(shell_env) as (pid, fd, status):
        for line in (b":param token=\"tok-secret\"\n", b"ALTER USER nobody SET\n", b"  password 'pw-secret';\n",
                     b"RETURN 1 AS kept_after;\n", b":params\n", b":exit\n"):
            os.write(fd, line)
            read_until(fd, "> ")
        left(pid, fd, status, 0)
    text = history.read_text()
    assert "kept_before" in text and "kept_after" in text and ":params" in text
    for leak in ("old-secret", "tok-secret", "pw-secret", "ALTER USER", ":param "):
        assert leak not in text, (leak, text)
    assert stat.S_IMODE(history.stat().st_mode) == 0o600


def test_split_statements_skips_semicolons_in_block_comments_and_names():
    lines = ["RETURN 1 /* a; b", "c; */ AS `x;", "y`; /* only; a comment */;", ":params", "RETURN '/*' AS s; // x;"]
    assert list(split_statements(lines)) == ["RETURN 1 /* a; b\nc; */ AS `x;\ny`", ":params", "RETURN '/*' AS s"]


def test_split_statements_keeps_semicolons_in_quotes_across_lines():
    lines = ['RETURN "a;', 'b" AS x, \'c\\\';d\' AS y;', "RETURN 1 AS z // ;", ";"]
    assert list(split_statements(lines)) == ['RETURN "a;\nb" AS x, \'c\\\';d\' AS y', "RETURN 1 AS z // ;"]


def test_secret_marks_passwords_and_parameter_values():
    for item in ("ALTER USER bob SET PASSWORD 'x'", "CREATE USER bob SET password $pw CHANGE NOT REQUIRED",
                 "ALTER CURRENT USER SET PASSWORD FROM 'a' TO 'b'", ":param token=abc", ": param  k = 3"):
        assert secret(item), item
    for item in ("RETURN 1", ":params", ":param k", ":help", "MATCH (p:Paper) RETURN p.title"):
        assert not secret(item), item


def test_parse_param_strips_name_and_value():
    assert parse_param("  entity  =  MuJoCo  ") == ("entity", "MuJoCo")
    assert parse_param('k = 3 ') == ("k", 3)
    assert parse_param('t= " spaced " ') == ("t", " spaced "), "inside JSON quotes the spaces are the value's"


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
