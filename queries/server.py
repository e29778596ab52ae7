"""A local Neo4j Community 5.26 LTS server without Docker: needs only Java 17+ and Maven.

The server is a tiny Java launcher (``neo4j_local/``, shipped as package data) that runs Neo4j
embedded with the Bolt connector on ``127.0.0.1`` and authentication on. This module has it built
once with Maven (:mod:`paperkg.queries.launcher`, cached), starts it detached in the background,
waits until Bolt answers, and stops it again. The CLI ``paperkg neo4j start|stop|status`` is a thin wrapper around
:func:`start_local`, :func:`stop_local` and :func:`status_local`.

Where things go
---------------
* launcher build (copy of the Maven project + ``target/``) in ``CACHE_DIR/build-<hash>``, where
  ``CACHE_DIR`` is ``$PAPERKG_HOME/neo4j-local`` if ``PAPERKG_HOME`` is set, else
  ``~/.cache/paperkg/neo4j-local``; rebuilt only when ``pom.xml`` or the Java source changed
  (``<hash>`` is their sha256). Needs network access to Maven Central the first time.
* data dir (the Neo4j home; persists across restarts):
  ``$PAPERKG_HOME/neo4j/data`` if ``PAPERKG_HOME`` is set, else ``~/.local/share/paperkg/neo4j``.
  Stores live in ``DATA_DIR/data``, Neo4j's own logs in ``DATA_DIR/logs`` and the launcher's
  stdout/stderr in ``DATA_DIR/neo4j-local.log``.
* state files, in the data dir's parent: ``<name>.pid`` (the launcher's pid, plain text) and
  ``<name>.server.json`` (pid, port, uri, data dir, log path), where ``<name>`` is the data dir's
  name - e.g. ``~/.local/share/paperkg/neo4j.pid``. One data dir runs at most one server.

Environment
-----------
* ``NEO4J_PASSWORD`` - password of user ``neo4j`` when none is passed (at least 8 characters).
  The launcher applies it on *every* start: the first start replaces Neo4j's initial password,
  a later start with a different value replaces the stored one, so the environment (or the
  ``password`` argument) is the single source of truth.
* ``PAPERKG_HOME`` - moves the default cache and data dirs (see above).
* ``PAPERKG_NEO4J_JAVA_OPTS`` - JVM options replacing the defaults of :func:`memory_defaults`
  (shell syntax); ``PAPERKG_NEO4J_HEAP`` - the heap (``-Xmx``, e.g. ``2g``) in those defaults;
  ``PAPERKG_NEO4J_PAGE_CACHE`` - the page cache size replacing its default (e.g. ``512m``).
* ``JAVA_HOME`` - if set, ``$JAVA_HOME/bin/java`` is used instead of ``java`` on ``PATH``.

POSIX only (process groups and signals).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperkg.atomic import atomic_write_text
from paperkg.errors import Neo4jServerError
from paperkg.queries.launcher import (
    JAR_NAME,
    STARTUP_JAVA_OPTS,
    STARTUP_PAGE_CACHE,
    LauncherBuildError,
    Progress,
    ToolMissingError,
    _check_java,
    _file_lock,
    _java_executable,
    _java_opts,
    _page_cache,
    _paperkg_home,
    _proc_cmdline,
    _tail_text,
    available_memory,
    build_launcher,
    default_cache_dir,
    java_executable,
    memory_defaults,
)

__all__ = [
    "DEFAULT_PORT",
    "STARTUP_JAVA_OPTS",
    "STARTUP_PAGE_CACHE",
    "available_memory",
    "memory_defaults",
    "LauncherBuildError",
    "LocalServer",
    "ServerStatus",
    "StopResult",
    "ToolMissingError",
    "build_launcher",
    "default_cache_dir",
    "default_data_dir",
    "free_port",
    "java_executable",
    "running_launchers",
    "start_local",
    "status_local",
    "stop_local",
]

DEFAULT_PORT = 7687
HOST = "127.0.0.1"
USER = "neo4j"
MIN_PASSWORD_LENGTH = 8
LOG_NAME = "neo4j-local.log"
READY_MARK = "NEO4J-LOCAL READY"
ERROR_MARK = "NEO4J-LOCAL ERROR"

# Popen objects of servers this process started: kept so they are reaped (no zombies, no
# "subprocess still running" ResourceWarning) and so stop_local can wait() on them.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class LocalServer:
    """A running local server, as returned by :func:`start_local`.

    ``started`` is False when :func:`start_local` found this server already running and reused it.
    """

    uri: str
    pid: int
    port: int
    data_dir: Path
    log_path: Path
    pid_file: Path
    user: str = USER
    started: bool = True


@dataclass(frozen=True)
class ServerStatus:
    """What :func:`status_local` found for one data dir.

    ``running`` means the pid from the pid file is a live launcher process; ``listening`` that
    its Bolt port accepts TCP connections; ``stale`` that a pid file was left by a process that
    is gone (it is not removed by :func:`status_local`).
    """

    running: bool
    pid: int | None
    uri: str | None
    port: int | None
    data_dir: Path
    pid_file: Path
    log_path: Path
    listening: bool = False
    stale: bool = False

    def describe(self) -> str:
        """One line for humans (used by ``paperkg neo4j status``)."""
        if self.running:
            state = "listening" if self.listening else "not answering yet"
            return f"Neo4j is running (pid {self.pid}) at {self.uri}, {state}; data dir {self.data_dir}"
        if self.stale:
            return (f"Neo4j is not running (stale pid file {self.pid_file} names pid {self.pid}, "
                    f"which is gone); data dir {self.data_dir}")
        others = [d for _, d in running_launchers() if d != self.data_dir]
        elsewhere = f"; local Neo4j runs for data dir {', '.join(map(str, others))} (use --data-dir)" if others else ""
        return f"Neo4j is not running for data dir {self.data_dir}{elsewhere}"


@dataclass(frozen=True)
class StopResult:
    """What :func:`stop_local` did; ``message`` is one line for humans."""

    stopped: bool
    pid: int | None
    message: str
    killed: bool = False
    stale: bool = False


# --------------------------------------------------------------------------- paths


def default_data_dir() -> Path:
    """The default data dir: ``$PAPERKG_HOME/neo4j/data`` or ``~/.local/share/paperkg/neo4j``."""
    home = _paperkg_home()
    if home is not None:
        return home / "neo4j" / "data"
    return Path.home() / ".local" / "share" / "paperkg" / "neo4j"


def _resolve_data_dir(data_dir: Path | str | None) -> Path:
    path = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    return path.absolute()


def _pid_file(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.pid"


def _state_file(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.server.json"


def _lock_file(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.lock"


def _uri(port: int) -> str:
    return f"bolt://{HOST}:{port}"


# --------------------------------------------------------------------------- processes


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` is a live (non-zombie) process; reaps it if it is our exited child."""
    child = _CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            _CHILDREN.pop(pid, None)
            return False
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        state = stat.rsplit(")", 1)[1].split()[0]
        if state in ("Z", "X"):
            return False
    except (OSError, IndexError):
        pass
    return True


def running_launchers() -> list[tuple[int, Path]]:
    """(pid, data dir) of every running local launcher this user can see (Linux /proc)."""
    found = []
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(arg.endswith(JAR_NAME.encode()) for arg in args) and b"--data-dir" in args:
            where = args[args.index(b"--data-dir") + 1] if args.index(b"--data-dir") + 1 < len(args) else b""
            found.append((int(entry.name), Path(where.decode(errors="replace"))))
    return sorted(found)


def _is_launcher(pid: int) -> bool:
    """True if ``pid`` is alive and (where /proc tells) runs our launcher jar."""
    if not _pid_alive(pid):
        return False
    cmdline = _proc_cmdline(pid)
    return cmdline is None or JAR_NAME in cmdline


def _read_pid(pid_file: Path) -> int | None:
    try:
        text = pid_file.read_text().strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Neo4jServerError(f"cannot read the pid file {pid_file}: {exc}") from exc
    try:
        pid = int(text.split()[0])
    except (ValueError, IndexError):
        return -1  # unreadable content: treat as stale
    return pid if pid > 0 else -1


def _read_state(data_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(_state_file(data_dir).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _remove_state(data_dir: Path) -> None:
    for path in (_pid_file(data_dir), _state_file(data_dir)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _port_listening(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def _port_free(port: int) -> bool:
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


def _log_tail(log_path: Path, offset: int = 0, lines: int = 30) -> str:
    try:
        with open(log_path, "rb") as fh:
            fh.seek(offset)
            text = fh.read().decode(errors="replace")
    except OSError:
        return f"(no log at {log_path})"
    tail = _tail_text(text, lines)
    return tail if tail else "(the log is empty)"


def _verify(uri: str, password: str, timeout: float = 10.0) -> None:
    """Connect with the driver and authenticate; raises the driver's exceptions."""
    from neo4j import GraphDatabase

    driver = GraphDatabase.driver(uri, auth=(USER, password), connection_timeout=timeout,
                                  max_connection_lifetime=60)
    try:
        driver.verify_connectivity()
    finally:
        driver.close()


def _resolve_password(password: str | None) -> str:
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


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait until ``pid`` has exited (reaping it if it is our child); True if it did."""
    child = _CHILDREN.get(pid)
    if child is not None:
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        _CHILDREN.pop(pid, None)
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            return True
        time.sleep(0.1)
    return not _pid_alive(pid)


def _terminate(pid: int, timeout: float) -> bool:
    """SIGTERM, wait ``timeout``, then SIGKILL; returns True if SIGKILL was needed."""
    _signal(pid, signal.SIGTERM)
    if _wait_gone(pid, timeout):
        return False
    _signal(pid, signal.SIGKILL)
    if not _wait_gone(pid, 15.0):
        raise Neo4jServerError(f"the Neo4j launcher (pid {pid}) survived SIGKILL")
    return True


# --------------------------------------------------------------------------- public API


def status_local(*, data_dir: Path | str | None = None) -> ServerStatus:
    """Report whether a local server runs for ``data_dir`` (default :func:`default_data_dir`).

    Reads the pid file, checks that the process is alive and is the launcher, and whether its
    Bolt port accepts TCP connections. Never authenticates and never changes any file.
    """
    data = _resolve_data_dir(data_dir)
    pid_file = _pid_file(data)
    log_path = data / LOG_NAME
    pid = _read_pid(pid_file)
    state = _read_state(data)
    port = state.get("port") if isinstance(state.get("port"), int) else None
    if pid is None:
        return ServerStatus(False, None, None, None, data, pid_file, log_path)
    if pid < 0 or not _is_launcher(pid):
        return ServerStatus(False, pid if pid > 0 else None, None, port, data, pid_file, log_path,
                            stale=True)
    uri = _uri(port) if port else None
    listening = bool(port) and _port_listening(port)
    return ServerStatus(True, pid, uri, port, data, pid_file, log_path, listening=listening)


def stop_local(*, data_dir: Path | str | None = None, timeout: float = 60.0) -> StopResult:
    """Stop the local server of ``data_dir`` (default :func:`default_data_dir`).

    Sends SIGTERM to the pid from the pid file (the launcher shuts Neo4j down cleanly), waits up
    to ``timeout`` seconds, then sends SIGKILL. Removes the pid and state files. When no server
    is running, or the pid file is stale (its process is gone), nothing is signalled and the
    result says so (``stopped=False``); a stale pid file is removed.
    """
    data = _resolve_data_dir(data_dir)
    pid_file = _pid_file(data)
    if not pid_file.exists():
        others = [d for _, d in running_launchers() if d != data]
        elsewhere = (f"; local Neo4j runs for data dir {', '.join(map(str, others))}: stop it with "
                     f"'paperkg neo4j stop --data-dir DIR'") if others else ""
        return StopResult(False, None, f"no local Neo4j is running for data dir {data} "
                                       f"(no pid file {pid_file}){elsewhere}")
    with _file_lock(_lock_file(data)):
        pid = _read_pid(pid_file)
        if pid is None:
            return StopResult(False, None, f"no local Neo4j is running for data dir {data} "
                                           f"(no pid file {pid_file})")
        if pid < 0 or not _is_launcher(pid):
            _remove_state(data)
            shown = pid if pid > 0 else "unreadable"
            return StopResult(False, pid if pid > 0 else None,
                              f"no local Neo4j is running for data dir {data}: removed the stale pid "
                              f"file {pid_file} (pid {shown} is gone)", stale=True)
        killed = _terminate(pid, timeout)
        _remove_state(data)
    how = f"killed with SIGKILL after {timeout:.0f} s" if killed else "stopped cleanly"
    return StopResult(True, pid, f"local Neo4j (pid {pid}, data dir {data}) {how}", killed=killed)


def start_local(
    *,
    port: int = DEFAULT_PORT,
    data_dir: Path | str | None = None,
    password: str | None = None,
    timeout: float = 120.0,
    cache_dir: Path | None = None,
    java_opts: Sequence[str] | None = None,
    page_cache: str | None = None,
    heap: str | None = None,
    progress: Progress | None = None,
) -> LocalServer:
    """Start the local Neo4j in the background and wait until it answers on Bolt.

    Builds the launcher if needed (:func:`build_launcher`), then runs ``java -jar`` detached from
    the caller (a new session: it survives the calling process) with stdout/stderr appended to
    ``DATA_DIR/neo4j-local.log``, writes the pid file, and polls until the launcher reports
    ready and the driver authenticates, at most ``timeout`` seconds (the build is not counted).

    If a server is already running for ``data_dir`` on the same ``port`` and accepts the
    password, it is returned (``started=False``) instead of starting a second one.

    ``password`` defaults to ``NEO4J_PASSWORD``; it becomes the password of user ``neo4j`` (also
    replacing a different stored one). Listens on 127.0.0.1 only.

    JVM options and page cache default to :func:`memory_defaults` of the memory available now;
    ``heap`` (or ``PAPERKG_NEO4J_HEAP``, e.g. ``"2g"``) replaces their ``-Xmx``, ``page_cache``
    (or ``PAPERKG_NEO4J_PAGE_CACHE``) the page cache, ``java_opts`` (or
    ``PAPERKG_NEO4J_JAVA_OPTS``) every JVM option.

    Raises :class:`Neo4jServerError` (or a subclass) naming the port, path or pid at fault; a
    start that fails or times out quotes the tail of the log, and its process is stopped.
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise Neo4jServerError(f"invalid port {port!r}: expected an integer in 1..65535")
    pw = _resolve_password(password)
    data = _resolve_data_dir(data_dir)
    default_opts, default_cache = memory_defaults(available_memory())
    page_cache = _page_cache(page_cache, default_cache)
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise Neo4jServerError(f"cannot create the Neo4j data dir {data}: {exc}") from exc
    if not os.access(data, os.W_OK):
        raise Neo4jServerError(f"the Neo4j data dir {data} is not writable")
    uri = _uri(port)
    pid_file = _pid_file(data)
    log_path = data / LOG_NAME

    with _file_lock(_lock_file(data)):
        existing = _existing_server(data, port, pw, timeout)
        if existing is not None:
            return existing
        if not _port_free(port):
            raise Neo4jServerError(
                f"port {port} on {HOST} is already in use (another Neo4j, e.g. docker compose?); "
                f"choose another port or stop that server")
        jar = build_launcher(cache_dir, progress=progress)
        java = _java_executable()
        _check_java(java)
        cmd = [java, *_java_opts(java_opts, default_opts, heap), "-jar", str(jar), "--port", str(port),
               "--data-dir", str(data), "--page-cache", page_cache]
        env = dict(os.environ)
        env["NEO4J_PASSWORD"] = pw
        with open(log_path, "ab") as log:
            offset = log.tell()
            log.write(f"\n=== paperkg: starting local Neo4j at {time.strftime('%Y-%m-%d %H:%M:%S')}: "
                      f"{' '.join(shlex.quote(c) for c in cmd)}\n".encode())
            log.flush()
            try:
                proc = subprocess.Popen(cmd, cwd=data, env=env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                raise Neo4jServerError(f"cannot run {java!r}: {exc}") from exc
        _CHILDREN[proc.pid] = proc
        atomic_write_text(pid_file, f"{proc.pid}\n")
        atomic_write_text(_state_file(data), json.dumps({
            "pid": proc.pid, "port": port, "uri": uri, "user": USER, "data_dir": str(data),
            "log_path": str(log_path), "started_at": time.time(), "jar": str(jar),
        }, indent=2) + "\n")
        try:
            _wait_ready(proc, uri, pw, log_path, offset, timeout, port)
        except BaseException:
            with contextlib.suppress(Exception):
                _terminate(proc.pid, 20.0)
            _remove_state(data)
            raise
    return LocalServer(uri=uri, pid=proc.pid, port=port, data_dir=data, log_path=log_path,
                       pid_file=pid_file, started=True)


def _existing_server(data: Path, port: int, pw: str, timeout: float) -> LocalServer | None:
    """The server already running for ``data`` (checked against port and password), if any."""
    pid_file = _pid_file(data)
    pid = _read_pid(pid_file)
    if pid is None:
        return None
    if pid < 0 or not _is_launcher(pid):
        _remove_state(data)  # stale
        return None
    state = _read_state(data)
    running_port = state.get("port")
    if running_port != port:
        raise Neo4jServerError(
            f"a local Neo4j (pid {pid}) already runs for data dir {data} on port {running_port}, "
            f"not {port}; stop it first (paperkg neo4j stop) or use port {running_port}")
    uri = _uri(port)
    log_path = data / LOG_NAME
    from neo4j.exceptions import AuthError

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if not _pid_alive(pid):
            _remove_state(data)
            return None
        if _port_listening(port):
            try:
                _verify(uri, pw)
            except AuthError as exc:
                raise Neo4jServerError(
                    f"a local Neo4j (pid {pid}, port {port}, data dir {data}) is running but refused "
                    f"the password for user 'neo4j'; to change it, stop the server and start it "
                    f"again with the new password ({exc})") from exc
            except Exception as exc:  # noqa: BLE001 - still starting; retried below
                last = exc
            else:
                return LocalServer(uri=uri, pid=pid, port=port, data_dir=data, log_path=log_path,
                                   pid_file=pid_file, started=False)
        time.sleep(0.5)
    raise Neo4jServerError(
        f"a local Neo4j (pid {pid}, port {port}, data dir {data}) is running but did not answer on "
        f"{uri} within {timeout:.0f} s ({last}); see {log_path}")


def _wait_ready(proc: subprocess.Popen[bytes], uri: str, pw: str, log_path: Path, offset: int,
                timeout: float, port: int) -> None:
    from neo4j.exceptions import AuthError

    deadline = time.monotonic() + timeout
    ready = False
    last: Exception | None = None
    while True:
        code = proc.poll()
        if code is not None:
            _CHILDREN.pop(proc.pid, None)
            raise Neo4jServerError(
                f"the local Neo4j (pid {proc.pid}, port {port}) exited with code {code} before it "
                f"was ready; last lines of {log_path}:\n{_log_tail(log_path, offset)}")
        if not ready:
            # Wait for the launcher's own "ready" line: before it, the password may not be set
            # yet, and failed logins count towards Neo4j's lock-out.
            ready = READY_MARK in _log_tail(log_path, offset, lines=10_000)
        if ready:
            try:
                _verify(uri, pw, timeout=5.0)
                return
            except AuthError as exc:
                raise Neo4jServerError(
                    f"the local Neo4j on port {port} (pid {proc.pid}) refused the password it was "
                    f"started with: {exc}") from exc
            except Exception as exc:  # noqa: BLE001 - not answering yet
                last = exc
        if time.monotonic() >= deadline:
            what = f"did not answer on {uri}" if ready else "did not report ready"
            raise Neo4jServerError(
                f"the local Neo4j (pid {proc.pid}, port {port}) {what} within {timeout:.0f} s"
                f"{f' ({last})' if last else ''}; it was stopped. Last lines of {log_path}:\n"
                f"{_log_tail(log_path, offset)}")
        time.sleep(0.25)


def _main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - manual use
    """``python -m paperkg.queries.server start|stop|status|build [--port N] [--data-dir D]``."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m paperkg.queries.server")
    parser.add_argument("action", choices=["start", "stop", "status", "build"])
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)
    try:
        if args.action == "build":
            print(build_launcher(progress=print))
        elif args.action == "start":
            srv = start_local(port=args.port, data_dir=args.data_dir, timeout=args.timeout,
                              progress=print)
            verb = "started" if srv.started else "already running"
            print(f"Neo4j {verb}: {srv.uri} (pid {srv.pid}, data dir {srv.data_dir}, log {srv.log_path})")
        elif args.action == "stop":
            print(stop_local(data_dir=args.data_dir).message)
        else:
            st = status_local(data_dir=args.data_dir)
            print(st.describe())
            return 0 if st.running else 3
    except Neo4jServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main())
