"""The local Neo4j launcher (paperkg.queries.server): build, start, status, stop, restart.

Each server start costs 6-15 s on two cores, so the lifecycle is covered by two tests that
start twice each; the error paths run without Java.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError
from neo4j_fixtures import Neo4jSettings, in_ci, wipe_database

from paperkg.errors import Neo4jServerError, PaperKGError
from paperkg.queries import server as srv
from paperkg.queries.server.process import pid_path

PW1 = "first-password-1"
PW2 = "second-password-2"


@pytest.fixture(scope="module")
def launcher_jar() -> Path:
    """The built launcher jar (built once, cached); skips without java/mvn except in CI."""
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        reason = f"{' and '.join(missing)} not on PATH"
        if in_ci():
            pytest.fail(f"the local Neo4j needs java and mvn: {reason}", pytrace=False)
        pytest.skip(reason)
    return srv.build_launcher()


def _count(uri: str, password: str, query: str) -> int:
    with GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
        return int(driver.execute_query(query).records[0][0])


def test_bad_arguments_fail_early_naming_the_value(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "data"
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    with pytest.raises(Neo4jServerError, match="NEO4J_PASSWORD"):
        srv.start_local(port=srv.free_port(), data_dir=data)
    with pytest.raises(PaperKGError, match="5 characters"):
        srv.start_local(port=srv.free_port(), data_dir=data, password="short")
    with pytest.raises(Neo4jServerError, match="70000"):
        srv.start_local(port=70000, data_dir=data, password=PW1)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(Neo4jServerError, match=f"port {port} .*already in use"):
            srv.start_local(port=port, data_dir=data, password=PW1)
    assert not pid_path(data).exists()


def test_jvm_memory_follows_the_available_memory_and_is_overridable(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from paperkg.queries.server import launcher

    for name in ("PAPERKG_NEO4J_JAVA_OPTS", "PAPERKG_NEO4J_HEAP", "PAPERKG_NEO4J_PAGE_CACHE"):
        monkeypatch.delenv(name, raising=False)
    assert launcher.memory_defaults(None) == (srv.STARTUP_JAVA_OPTS, srv.STARTUP_PAGE_CACHE)
    small, large = launcher.memory_defaults(6 * 2**30), launcher.memory_defaults(48 * 2**30)
    assert "-XX:+UseParallelGC" in small[0] and "-XX:TieredStopAtLevel=1" not in small[0]
    assert (small[0][1], small[1]) == ("-Xmx1024m", "768m") and (large[0][1], large[1]) == ("-Xmx4096m", "2048m")
    opts = launcher._java_opts(None, large[0], "2g")
    assert "-Xmx2g" in opts and not any(o.startswith("-Xms") for o in opts)
    monkeypatch.setenv("PAPERKG_NEO4J_PAGE_CACHE", "300m")
    assert launcher._page_cache(None, "2048m") == "300m" and launcher._page_cache("1g", "2048m") == "1g"
    monkeypatch.setenv("PAPERKG_NEO4J_JAVA_OPTS", "-Xmx700m -XX:+UseSerialGC")
    assert launcher._java_opts(None, large[0], "2g") == ["-Xmx700m", "-XX:+UseSerialGC"]
    with pytest.raises(Neo4jServerError, match="'lots'"):
        srv.start_local(port=srv.free_port(), data_dir=tmp_path / "data", password=PW1, page_cache="lots")


def test_stop_and_status_without_a_server_and_with_a_stale_pid_file(tmp_path: Path) -> None:
    data = tmp_path / "data"
    status = srv.status_local(data_dir=data)
    assert not status.running and not status.stale and status.pid is None
    result = srv.stop_local(data_dir=data)
    assert not result.stopped and "no local Neo4j is running" in result.message

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    pid_file = pid_path(data)
    pid_file.write_text(f"{gone.pid}\n")
    status = srv.status_local(data_dir=data)
    assert not status.running and status.stale and status.pid == gone.pid
    assert str(gone.pid) in status.describe()
    result = srv.stop_local(data_dir=data)
    assert not result.stopped and result.stale and str(gone.pid) in result.message
    assert not pid_file.exists()


@pytest.mark.neo4j
def test_launcher_is_cached_and_checks_the_password(launcher_jar: Path, tmp_path: Path) -> None:
    messages: list[str] = []
    assert srv.build_launcher(progress=messages.append) == launcher_jar
    assert messages == []  # no Maven run the second time
    env = {k: v for k, v in os.environ.items() if k != "NEO4J_PASSWORD"}
    for password, expected in ((None, "NEO4J_PASSWORD is not set"), ("short", "at least 8")):
        if password is not None:
            env["NEO4J_PASSWORD"] = password
        proc = subprocess.run(["java", "-jar", str(launcher_jar), "--data-dir", str(tmp_path / "d")],
                              env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2
        assert expected in proc.stderr


@pytest.mark.neo4j
def test_start_status_stop_restart_keeps_data_and_applies_new_password(
        launcher_jar: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    port = srv.free_port()
    server = srv.start_local(port=port, data_dir=data, password=PW1, timeout=180)
    try:
        assert server.started and server.uri == f"bolt://127.0.0.1:{port}"
        assert server.pid_file.read_text().strip() == str(server.pid)
        assert server.log_path == data / "neo4j-local.log"
        status = srv.status_local(data_dir=data)
        assert status.running and status.listening and status.pid == server.pid
        assert status.uri == server.uri
        with GraphDatabase.driver(server.uri, auth=("neo4j", PW1)) as driver:
            assert driver.execute_query("RETURN 1 AS x").records[0]["x"] == 1
            driver.execute_query("CREATE (:Probe {name: 'kept'})")
        again = srv.start_local(port=port, data_dir=data, password=PW1)
        assert not again.started and again.pid == server.pid
        with pytest.raises(Neo4jServerError, match=f"on port {port}, not {port + 1}"):
            srv.start_local(port=port + 1, data_dir=data, password=PW1)
    finally:
        result = srv.stop_local(data_dir=data)
    assert result.stopped and not result.killed and result.pid == server.pid
    assert not server.pid_file.exists()
    assert not srv.status_local(data_dir=data).running
    assert "no local Neo4j is running" in srv.stop_local(data_dir=data).message

    # Same data dir, new password: the data is still there and the new password replaced the old.
    server = srv.start_local(port=port, data_dir=data, password=PW2, timeout=180)
    try:
        assert _count(server.uri, PW2, "MATCH (p:Probe {name: 'kept'}) RETURN count(p)") == 1
        with GraphDatabase.driver(server.uri, auth=("neo4j", PW1)) as driver:
            with pytest.raises(AuthError):
                driver.verify_connectivity()
    finally:
        assert srv.stop_local(data_dir=data).stopped


@pytest.mark.neo4j
def test_sigterm_shuts_down_cleanly_and_the_data_dir_starts_again(
        launcher_jar: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    server = srv.start_local(port=srv.free_port(), data_dir=data, password=PW1, timeout=180)
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", PW1)) as driver:
            driver.execute_query("UNWIND range(1, 100) AS i CREATE (:Probe {i: i})")
        os.kill(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while srv.status_local(data_dir=data).running and time.monotonic() < deadline:
            time.sleep(0.2)
        status = srv.status_local(data_dir=data)
        assert not status.running and status.stale  # the pid file outlived the process
        assert "NEO4J-LOCAL STOPPED" in server.log_path.read_text()  # the shutdown hook ran

        server = srv.start_local(port=srv.free_port(), data_dir=data, password=PW1, timeout=180)
        assert server.started
        assert _count(server.uri, PW1, "MATCH (p:Probe) RETURN count(p)") == 100
    finally:
        srv.stop_local(data_dir=data)


def test_fixture_database_is_wiped(clean_neo4j: object, neo4j_settings: Neo4jSettings) -> None:
    db = neo4j_settings.database
    clean_neo4j.execute_query("CREATE CONSTRAINT probe_id IF NOT EXISTS "  # type: ignore[attr-defined]
                              "FOR (p:Probe) REQUIRE p.id IS UNIQUE", database_=db)
    clean_neo4j.execute_query("CREATE (:Probe {id: 1})-[:R]->(:Probe {id: 2})",  # type: ignore[attr-defined]
                              database_=db)
    wipe_database(clean_neo4j, db)
    records = clean_neo4j.execute_query(  # type: ignore[attr-defined]
        "MATCH (n) RETURN count(n) AS n", database_=db).records
    assert records[0]["n"] == 0
    constraints = clean_neo4j.execute_query("SHOW CONSTRAINTS", database_=db).records  # type: ignore[attr-defined]
    assert constraints == []
