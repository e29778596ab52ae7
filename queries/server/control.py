"""Start, stop and report the local Neo4j (see :mod:`paperkg.queries.server` for where its
files go and what it reads from the environment)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from paperkg.errors import Neo4jServerError
from paperkg.queries.server.bolt import (
    HOST,
    USER,
    log_tail,
    port_free,
    port_listening,
    resolve_password,
    uri_for,
    verify,
)
from paperkg.queries.server.launcher import (
    Progress,
    _check_java,
    _file_lock,
    _java_executable,
    _java_opts,
    _page_cache,
    available_memory,
    build_launcher,
    memory_defaults,
)
from paperkg.queries.server.process import (
    CHILDREN,
    is_launcher,
    lock_path,
    make_data_dir,
    open_log,
    pid_alive,
    pid_path,
    read_pid,
    read_state,
    remove_state,
    resolve_data_dir,
    running_launchers,
    state_path,
    terminate,
    write_private,
)

DEFAULT_PORT = 7687
LOG_NAME = "neo4j-local.log"
READY_MARK = "NEO4J-LOCAL READY"
ERROR_MARK = "NEO4J-LOCAL ERROR"


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


# --------------------------------------------------------------------------- public API


def status_local(*, data_dir: Path | str | None = None) -> ServerStatus:
    """Report whether a local server runs for ``data_dir`` (default :func:`default_data_dir`).

    Reads the pid file, checks that the process is alive and is the launcher, and whether its
    Bolt port accepts TCP connections. Never authenticates and never changes any file.
    """
    data = resolve_data_dir(data_dir)
    pid_file = pid_path(data)
    log_path = data / LOG_NAME
    pid = read_pid(pid_file)
    state = read_state(data)
    port = state.get("port") if isinstance(state.get("port"), int) else None
    if pid is None:
        return ServerStatus(False, None, None, None, data, pid_file, log_path)
    if pid < 0 or not is_launcher(pid):
        return ServerStatus(False, pid if pid > 0 else None, None, port, data, pid_file, log_path,
                            stale=True)
    uri = uri_for(port) if port else None
    listening = bool(port) and port_listening(port)
    return ServerStatus(True, pid, uri, port, data, pid_file, log_path, listening=listening)


def stop_local(*, data_dir: Path | str | None = None, timeout: float = 60.0) -> StopResult:
    """Stop the local server of ``data_dir`` (default :func:`default_data_dir`).

    Sends SIGTERM to the pid from the pid file (the launcher shuts Neo4j down cleanly), waits up
    to ``timeout`` seconds, then sends SIGKILL. Removes the pid and state files. When no server
    is running, or the pid file is stale (its process is gone), nothing is signalled and the
    result says so (``stopped=False``); a stale pid file is removed.
    """
    data = resolve_data_dir(data_dir)
    pid_file = pid_path(data)
    if not pid_file.exists():
        others = [d for _, d in running_launchers() if d != data]
        elsewhere = (f"; local Neo4j runs for data dir {', '.join(map(str, others))}: stop it with "
                     f"'paperkg neo4j stop --data-dir DIR'") if others else ""
        return StopResult(False, None, f"no local Neo4j is running for data dir {data} "
                                       f"(no pid file {pid_file}){elsewhere}")
    with _file_lock(lock_path(data)):
        pid = read_pid(pid_file)
        if pid is None:
            return StopResult(False, None, f"no local Neo4j is running for data dir {data} "
                                           f"(no pid file {pid_file})")
        if pid < 0 or not is_launcher(pid):
            remove_state(data)
            shown = pid if pid > 0 else "unreadable"
            return StopResult(False, pid if pid > 0 else None,
                              f"no local Neo4j is running for data dir {data}: removed the stale pid "
                              f"file {pid_file} (pid {shown} is gone)", stale=True)
        killed = terminate(pid, timeout)
        remove_state(data)
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
    pw = resolve_password(password)
    data = resolve_data_dir(data_dir)
    default_opts, default_cache = memory_defaults(available_memory())
    page_cache = _page_cache(page_cache, default_cache)
    make_data_dir(data)
    if not os.access(data, os.W_OK):
        raise Neo4jServerError(f"the Neo4j data dir {data} is not writable")
    uri = uri_for(port)
    pid_file = pid_path(data)
    log_path = data / LOG_NAME

    with _file_lock(lock_path(data)):
        existing = _existing_server(data, port, pw, timeout)
        if existing is not None:
            return existing
        if not port_free(port):
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
        with open_log(log_path) as log:
            offset = log.tell()
            log.write(f"\n=== paperkg: starting local Neo4j at {time.strftime('%Y-%m-%d %H:%M:%S')}: "
                      f"{' '.join(shlex.quote(c) for c in cmd)}\n".encode())
            log.flush()
            try:
                proc = subprocess.Popen(cmd, cwd=data, env=env, stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            except OSError as exc:
                raise Neo4jServerError(f"cannot run {java!r}: {exc}") from exc
        CHILDREN[proc.pid] = proc
        write_private(pid_file, f"{proc.pid}\n")
        write_private(state_path(data), json.dumps({
            "pid": proc.pid, "port": port, "uri": uri, "user": USER, "data_dir": str(data),
            "log_path": str(log_path), "started_at": time.time(), "jar": str(jar),
        }, indent=2) + "\n")
        try:
            _wait_ready(proc, uri, pw, log_path, offset, timeout, port)
        except BaseException:
            with contextlib.suppress(Exception):
                terminate(proc.pid, 20.0)
            remove_state(data)
            raise
    return LocalServer(uri=uri, pid=proc.pid, port=port, data_dir=data, log_path=log_path,
                       pid_file=pid_file, started=True)


def _existing_server(data: Path, port: int, pw: str, timeout: float) -> LocalServer | None:
    """The server already running for ``data`` (checked against port and password), if any."""
    pid_file = pid_path(data)
    pid = read_pid(pid_file)
    if pid is None:
        return None
    if pid < 0 or not is_launcher(pid):
        remove_state(data)  # stale
        return None
    state = read_state(data)
    running_port = state.get("port")
    if running_port != port:
        raise Neo4jServerError(
            f"a local Neo4j (pid {pid}) already runs for data dir {data} on port {running_port}, "
            f"not {port}; stop it first (paperkg neo4j stop) or use port {running_port}")
    uri = uri_for(port)
    log_path = data / LOG_NAME
    from neo4j.exceptions import AuthError

    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            remove_state(data)
            return None
        if port_listening(port):
            try:
                verify(uri, pw)
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
            CHILDREN.pop(proc.pid, None)
            raise Neo4jServerError(
                f"the local Neo4j (pid {proc.pid}, port {port}) exited with code {code} before it "
                f"was ready; last lines of {log_path}:\n{log_tail(log_path, offset)}")
        if not ready:
            # Wait for the launcher's own "ready" line: before it, the password may not be set
            # yet, and failed logins count towards Neo4j's lock-out.
            ready = READY_MARK in log_tail(log_path, offset, lines=10_000)
        if ready:
            try:
                verify(uri, pw, timeout=5.0)
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
                f"{log_tail(log_path, offset)}")
        time.sleep(0.25)


