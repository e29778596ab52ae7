"""Pytest plugin: a real Neo4j over Bolt for the tests that need one.

Loaded by the main conftest with ``pytest_plugins = ["neo4j_fixtures"]``.

* ``neo4j_settings`` (session): where to connect. If ``NEO4J_URI`` is set, that server is used
  with ``NEO4J_USER`` (default ``neo4j``), ``NEO4J_PASSWORD`` and ``NEO4J_DATABASE`` (default
  ``neo4j``). Otherwise a local Neo4j 5.26 is started with
  :func:`paperkg.queries.server.start_local` on a free port with a temporary data dir and a test
  password, and stopped at the end of the session.
* ``neo4j_driver`` (session): a connected ``neo4j.Driver`` for those settings.
* ``clean_neo4j`` (function): empties the database (all nodes, constraints and indexes except
  the built-in token lookup indexes) before the test and yields the driver.

Tests using these fixtures get the ``neo4j`` marker automatically (``-m "not neo4j"`` skips
them). Without Java/Maven they are skipped locally, but in CI (``CI=true``) every failure to get
a server is an error, never a skip.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

#: Password of the throw-away server the fixture starts (>= 8 characters, as Neo4j 5 wants).
TEST_PASSWORD = "paperkg-test-password"
NEO4J_FIXTURES = ("neo4j_settings", "neo4j_driver", "clean_neo4j")


@dataclass(frozen=True)
class Neo4jSettings:
    """Connection settings for the test Neo4j; ``local`` is set when the fixture started it."""

    uri: str
    user: str
    password: str
    database: str
    local: object | None = None  # paperkg.queries.server.LocalServer


def in_ci() -> bool:
    """True when running under CI (``CI=true``): missing Neo4j must fail, not skip."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def _unavailable(reason: str) -> None:
    if in_ci():
        pytest.fail(f"Neo4j is required in CI but unavailable: {reason}", pytrace=False)
    pytest.skip(f"Neo4j unavailable: {reason}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test that uses a Neo4j fixture with ``neo4j``."""
    for item in items:
        if any(name in getattr(item, "fixturenames", ()) for name in NEO4J_FIXTURES):
            item.add_marker(pytest.mark.neo4j)


@pytest.fixture(scope="session")
def neo4j_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jSettings]:
    """Settings of the Neo4j to test against: ``NEO4J_URI``'s server, else a local one."""
    uri = os.environ.get("NEO4J_URI", "").strip()
    if uri:
        password = os.environ.get("NEO4J_PASSWORD")
        if not password:
            pytest.fail(f"NEO4J_URI={uri} is set but NEO4J_PASSWORD is not", pytrace=False)
        yield Neo4jSettings(
            uri=uri,
            user=os.environ.get("NEO4J_USER") or "neo4j",
            password=password,
            database=os.environ.get("NEO4J_DATABASE") or "neo4j",
        )
        return

    from paperkg.queries.server import ToolMissingError, free_port, start_local, stop_local

    data_dir: Path = tmp_path_factory.mktemp("neo4j") / "data"
    try:
        server = start_local(port=free_port(), data_dir=data_dir, password=TEST_PASSWORD,
                             timeout=180)
    except ToolMissingError as exc:
        _unavailable(str(exc))
        return
    try:
        yield Neo4jSettings(uri=server.uri, user=server.user, password=TEST_PASSWORD,
                            database="neo4j", local=server)
    finally:
        stop_local(data_dir=data_dir)


@pytest.fixture(scope="session")
def neo4j_driver(neo4j_settings: Neo4jSettings) -> Iterator[object]:
    """A ``neo4j.Driver`` connected (and authenticated) to the test server."""
    from neo4j import GraphDatabase

    driver = GraphDatabase.driver(neo4j_settings.uri,
                                  auth=(neo4j_settings.user, neo4j_settings.password))
    try:
        driver.verify_connectivity()
    except Exception as exc:  # noqa: BLE001 - reported as fail (CI) or skip
        driver.close()
        _unavailable(f"cannot connect to {neo4j_settings.uri} as {neo4j_settings.user}: {exc}")
        return
    try:
        yield driver
    finally:
        driver.close()


def wipe_database(driver: object, database: str) -> None:
    """Delete all nodes and relationships, and drop all constraints and non-lookup indexes."""
    with driver.session(database=database) as session:  # type: ignore[attr-defined]
        session.run("CALL { MATCH (n) DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()
        for record in list(session.run("SHOW CONSTRAINTS YIELD name")):
            session.run(f"DROP CONSTRAINT `{_escape(record['name'])}` IF EXISTS").consume()
        for record in list(session.run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP'")):
            session.run(f"DROP INDEX `{_escape(record['name'])}` IF EXISTS").consume()


def _escape(name: str) -> str:
    return name.replace("`", "``")


@pytest.fixture()
def clean_neo4j(neo4j_driver: object, neo4j_settings: Neo4jSettings) -> Iterator[object]:
    """An empty database for this test (wiped before it runs); yields the driver."""
    wipe_database(neo4j_driver, neo4j_settings.database)
    yield neo4j_driver
