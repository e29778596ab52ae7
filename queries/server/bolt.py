"""Talking to the local server over Bolt: its URI, whether a port listens or is free, the
driver's authenticated check, the password rule, and the log tail quoted in errors."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from paperkg.errors import Neo4jServerError
from paperkg.queries.server.launcher import _tail_text

HOST = "127.0.0.1"
USER = "neo4j"
MIN_PASSWORD_LENGTH = 8


def uri_for(port: int) -> str:
    return f"bolt://{HOST}:{port}"


def port_listening(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now (for tests and ad-hoc servers)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def log_tail(log_path: Path, offset: int = 0, lines: int = 30) -> str:
    try:
        with open(log_path, "rb") as fh:
            fh.seek(offset)
            text = fh.read().decode(errors="replace")
    except OSError:
        return f"(no log at {log_path})"
    tail = _tail_text(text, lines)
    return tail if tail else "(the log is empty)"


def verify(uri: str, password: str, timeout: float = 10.0) -> None:
    """Connect with the driver and authenticate; raises the driver's exceptions."""
    from neo4j import GraphDatabase

    driver = GraphDatabase.driver(uri, auth=(USER, password), connection_timeout=timeout,
                                  max_connection_lifetime=60)
    try:
        driver.verify_connectivity()
    finally:
        driver.close()


def resolve_password(password: str | None) -> str:
    pw = password if password is not None else os.environ.get("NEO4J_PASSWORD")
    if not pw:
        raise Neo4jServerError(
            "no password for the local Neo4j: pass password=... or set NEO4J_PASSWORD "
            f"(at least {MIN_PASSWORD_LENGTH} characters)")
    if len(pw) < MIN_PASSWORD_LENGTH:
        raise Neo4jServerError(
            f"the Neo4j password is {len(pw)} characters long; Neo4j 5 needs at least "
            f"{MIN_PASSWORD_LENGTH}")
    return pw
