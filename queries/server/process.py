"""The local launcher's processes and state files: pid and state files beside the data dir,
liveness checks (zombies and recycled pids too), signals, and which launchers run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from paperkg.atomic import atomic_write_text
from paperkg.errors import Neo4jServerError, NotAFolderError
from paperkg.queries.server.launcher import JAR_NAME, _paperkg_home, _proc_cmdline

# Popen objects of servers this process started: kept so they are reaped (no zombies, no
# "subprocess still running" ResourceWarning) and so stop_local can wait() on them.
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def default_data_dir() -> Path:
    """The default data dir: ``$PAPERKG_HOME/neo4j/data`` or ``~/.local/share/paperkg/neo4j``."""
    home = _paperkg_home()
    if home is not None:
        return home / "neo4j" / "data"
    return Path.home() / ".local" / "share" / "paperkg" / "neo4j"


def resolve_data_dir(data_dir: Path | str | None) -> Path:
    path = Path(data_dir).expanduser() if data_dir is not None else default_data_dir()
    return path.absolute()


def make_data_dir(data_dir: Path) -> Path:
    """Create ``data_dir`` (and its parents) for the server, 0700: the store, its logs and the
    import's output hold the graph and the auth database, which are the user's own. A folder
    already there keeps its mode."""
    if data_dir.exists() and not data_dir.is_dir():
        raise NotAFolderError(f"{data_dir}: is a file, not a folder (the Neo4j data dir)")
    try:
        data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise Neo4jServerError(f"cannot create the Neo4j data dir {data_dir}: {exc.strerror or exc}") from exc
    return data_dir


def write_private(path: Path, text: str) -> Path:
    """A pid, state or log file of the server: atomic, and readable by its owner only."""
    return atomic_write_text(path, text, private=True)


def open_log(path: Path):
    """The server's log, opened to append in binary, created 0600 (it quotes the command line)."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")


def pid_path(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.pid"


def state_path(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.server.json"


def lock_path(data_dir: Path) -> Path:
    return data_dir.parent / f"{data_dir.name}.lock"


def pid_alive(pid: int) -> bool:
    """True if ``pid`` is a live (non-zombie) process; reaps it if it is our exited child."""
    child = CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            CHILDREN.pop(pid, None)
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


def is_launcher(pid: int) -> bool:
    """True if ``pid`` is alive and (where /proc tells) runs our launcher jar."""
    if not pid_alive(pid):
        return False
    cmdline = _proc_cmdline(pid)
    return cmdline is None or JAR_NAME in cmdline


def read_pid(pid_file: Path) -> int | None:
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


def read_state(data_dir: Path) -> dict[str, Any]:
    try:
        data = json.loads(state_path(data_dir).read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def remove_state(data_dir: Path) -> None:
    for path in (pid_path(data_dir), state_path(data_dir)):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def signal_pid(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


def wait_gone(pid: int, timeout: float) -> bool:
    """Wait until ``pid`` has exited (reaping it if it is our child); True if it did."""
    child = CHILDREN.get(pid)
    if child is not None:
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        CHILDREN.pop(pid, None)
        return True
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return not pid_alive(pid)


def terminate(pid: int, timeout: float) -> bool:
    """SIGTERM, wait ``timeout``, then SIGKILL; returns True if SIGKILL was needed."""
    signal_pid(pid, signal.SIGTERM)
    if wait_gone(pid, timeout):
        return False
    signal_pid(pid, signal.SIGKILL)
    if not wait_gone(pid, 15.0):
        raise Neo4jServerError(f"the Neo4j launcher (pid {pid}) survived SIGKILL")
    return True
