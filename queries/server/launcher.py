"""The local Neo4j's launcher: the Java and Maven it needs, its Maven build, and its JVM settings.

:mod:`paperkg.queries.server` starts and stops the launcher's processes; this module finds
``java`` (Java 17+, ``JAVA_HOME`` first) and ``mvn``, builds the launcher once
(:func:`build_launcher`, cached by the hash of its Maven project) and picks the JVM's heap and
page cache from the available memory (:func:`memory_defaults`).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.resources
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from paperkg.atomic import atomic_write_text
from paperkg.errors import Neo4jServerError

Progress = Callable[[str], None]

#: The start-up profile: C1-only JIT and the serial GC halve the start time (about 6 s instead
#: of 12 s) but load 1.6-1.8x slower (16.9k vs 29.9k rels/s on the 8k graph). The default on a
#: machine with less than :data:`THROUGHPUT_MIN_AVAILABLE` bytes available (or when that is unknown).
STARTUP_JAVA_OPTS: tuple[str, ...] = (
    "-Xms256m",
    "-Xmx1g",
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:-OmitStackTraceInFastThrow",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
)
STARTUP_PAGE_CACHE = "64m"
#: The throughput profile's fixed flags (full JIT, the parallel GC); its heap and page cache
#: come from the available memory (:func:`memory_defaults`).
THROUGHPUT_FLAGS: tuple[str, ...] = (
    "-XX:+UseParallelGC",
    "-XX:-OmitStackTraceInFastThrow",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
)
THROUGHPUT_MIN_AVAILABLE = 3 * 2**30
#: Throughput heap: a sixth of the available memory, within these bounds; page cache an eighth.
HEAP_SHARE, HEAP_MIN, HEAP_MAX = 1 / 6, 2**30, 4 * 2**30
PAGE_CACHE_SHARE, PAGE_CACHE_MIN, PAGE_CACHE_MAX = 1 / 8, 256 * 2**20, 2 * 2**30


JAR_NAME = "neo4j-local.jar"


_STAMP = ".build-stamp"
_MIN_JAVA = 17
_BUILD_TIMEOUT = 1800.0


class LauncherBuildError(Neo4jServerError):
    """Maven could not build the launcher (the message quotes Maven's output)."""


class ToolMissingError(Neo4jServerError):
    """``java`` or ``mvn`` is not installed (or too old)."""


def _paperkg_home() -> Path | None:
    home = os.environ.get("PAPERKG_HOME")
    return Path(home).expanduser() if home else None


def default_cache_dir() -> Path:
    """Where the launcher is built: ``$PAPERKG_HOME/neo4j-local`` or ``~/.cache/paperkg/neo4j-local``."""
    home = _paperkg_home()
    if home is not None:
        return home / "neo4j-local"
    return Path.home() / ".cache" / "paperkg" / "neo4j-local"


# --------------------------------------------------------------------------- tools


def _java_executable() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if not found:
        where = f" (and JAVA_HOME={java_home} has no bin/java)" if java_home else ""
        raise ToolMissingError(
            f"'java' was not found on PATH{where}: the local Neo4j needs Java {_MIN_JAVA} or newer "
            "(e.g. apt-get install openjdk-17-jdk-headless), or use docker compose / an existing "
            "server via NEO4J_URI")
    return found


@lru_cache(maxsize=None)
def _check_java(java: str) -> int:
    """Return the Java major version of ``java``; raise if it is older than 17."""
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ToolMissingError(f"cannot run {java!r} -version: {exc}") from exc
    text = out.stderr + out.stdout
    m = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not m:
        raise ToolMissingError(f"cannot tell the version of {java!r} from: {text.strip()[:200]!r}")
    major = int(m.group(1))
    if major == 1 and m.group(2):  # "1.8.0_..."
        major = int(m.group(2))
    if major < _MIN_JAVA:
        raise ToolMissingError(
            f"{java!r} is Java {major}; Neo4j 5.26 needs Java {_MIN_JAVA} or newer (set JAVA_HOME)")
    return major


def java_executable() -> str:
    """The ``java`` the launcher runs with (``JAVA_HOME`` first), checked to be Java 17 or newer."""
    java = _java_executable()
    _check_java(java)
    return java


def _mvn_executable() -> str:
    found = shutil.which("mvn")
    if not found:
        raise ToolMissingError(
            "'mvn' (Apache Maven) was not found on PATH: it is needed once to build the local Neo4j "
            "launcher (e.g. apt-get install maven)")
    return found


# --------------------------------------------------------------------------- build


def _project_files() -> list[tuple[str, bytes]]:
    """(relative path, content) of the shipped Maven project: pom.xml and src/**, sorted."""
    root = importlib.resources.files("paperkg.queries") / "neo4j_local"
    files: list[tuple[str, bytes]] = []

    def walk(node: Any, rel: str) -> None:
        for child in node.iterdir():
            child_rel = f"{rel}/{child.name}" if rel else child.name
            if child.is_dir():
                walk(child, child_rel)
            elif child.is_file():
                files.append((child_rel, child.read_bytes()))

    pom = root / "pom.xml"
    if not pom.is_file():
        raise LauncherBuildError(
            f"the launcher's Maven project is missing from the installed package: no {pom} "
            "(is paperkg installed with its package data?)")
    files.append(("pom.xml", pom.read_bytes()))
    src = root / "src"
    if src.is_dir():
        walk(src, "src")
    return sorted(files)


def _project_hash(files: list[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for rel, data in files:
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock (flock) on ``path``; a no-op where fcntl does not exist."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _jar_ready(build_dir: Path) -> bool:
    return (build_dir / "target" / JAR_NAME).is_file() and (build_dir / "target" / "lib").is_dir()


def _dirs_in_use(candidates: list[Path]) -> set[Path]:
    """Those of ``candidates`` that a running process names on its command line (Linux /proc)."""
    in_use: set[Path] = set()
    proc = Path("/proc")
    if not proc.is_dir():
        return set(candidates)  # cannot tell: keep them all
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        cmdline = _proc_cmdline(int(entry.name))
        if not cmdline:
            continue
        for cand in candidates:
            if str(cand) + os.sep in cmdline:
                in_use.add(cand)
    return in_use


def _prune_old_builds(cache_dir: Path, keep: Path) -> None:
    """Delete older launcher builds, except those a running server still loads classes from."""
    old = [d for d in cache_dir.glob("build-*") if d.is_dir() and d != keep]
    if not old:
        return
    busy = _dirs_in_use(old)
    for build_dir in old:
        if build_dir not in busy:
            shutil.rmtree(build_dir, ignore_errors=True)


def build_launcher(cache_dir: Path | None = None, progress: Progress | None = None) -> Path:
    """Build the Java launcher with Maven (once) and return the path of its jar.

    Copies the Maven project shipped in ``paperkg.queries/neo4j_local`` into
    ``cache_dir/build-<hash>`` (``cache_dir`` defaults to :func:`default_cache_dir`; ``<hash>`` is
    a sha256 of ``pom.xml`` and the Java source) and runs ``mvn -q -B package -DskipTests``
    there. The result is cached: Maven runs again only when the pom or the source changed (a new
    hash) or the build is incomplete. Older builds are deleted unless a running server uses them.
    The first build downloads Neo4j from Maven Central (about 125 MB into ``~/.m2``). Concurrent
    callers are serialised with a file lock.

    ``progress`` gets one-line messages (e.g. ``print`` or ``click.echo``) when a build runs.

    Raises :class:`ToolMissingError` if ``mvn`` or ``java`` is missing and
    :class:`LauncherBuildError` if the build fails.
    """
    cache_dir = (Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()).absolute()
    files = _project_files()
    digest = _project_hash(files)
    build_dir = cache_dir / f"build-{digest[:16]}"
    jar = build_dir / "target" / JAR_NAME
    stamp = build_dir / _STAMP

    def up_to_date() -> bool:
        try:
            return stamp.read_text().strip() == digest and _jar_ready(build_dir)
        except OSError:
            return False

    if up_to_date():
        return jar
    java = _java_executable()
    _check_java(java)
    mvn = _mvn_executable()
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise LauncherBuildError(f"cannot create the launcher cache dir {cache_dir}: {exc}") from exc
    with _file_lock(cache_dir / ".build.lock"):
        if up_to_date():  # another process built it while we waited
            return jar
        if progress:
            progress(f"Building the local Neo4j launcher in {build_dir} with Maven "
                     "(first time only; downloads Neo4j from Maven Central) ...")
        if build_dir.exists():  # an incomplete earlier attempt
            shutil.rmtree(build_dir)
        for rel, data in files:
            dest = build_dir / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
        cmd = [mvn, "-q", "-B", "package", "-DskipTests"]
        t0 = time.monotonic()
        try:
            proc = subprocess.run(cmd, cwd=build_dir, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=_BUILD_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise LauncherBuildError(
                f"'mvn package' in {build_dir} did not finish within {_BUILD_TIMEOUT:.0f} s") from exc
        except OSError as exc:
            raise ToolMissingError(f"cannot run {mvn!r}: {exc}") from exc
        if proc.returncode != 0 or not _jar_ready(build_dir):
            output = _tail_text(proc.stdout + proc.stderr, 40)
            raise LauncherBuildError(
                f"building the Neo4j launcher failed in {build_dir} ('{' '.join(cmd)}' exited with "
                f"{proc.returncode}); Maven said:\n{output}")
        atomic_write_text(stamp, digest + "\n")
        _prune_old_builds(cache_dir, keep=build_dir)
        if progress:
            progress(f"Built {jar} in {time.monotonic() - t0:.0f} s")
    return jar


def _proc_cmdline(pid: int) -> str | None:
    """The command line of ``pid`` (Linux /proc), or None where it cannot be read."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return raw.replace(b"\0", b" ").decode(errors="replace")


def _tail_text(text: str, lines: int) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def available_memory() -> int | None:
    """Bytes of memory available to new processes (``MemAvailable`` of /proc/meminfo), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _mebibytes(size: float, low: int, high: int) -> str:
    """``size`` bytes clamped to ``[low, high]``, rounded down to 64 MiB, as a JVM size ("1536m")."""
    return f"{int(min(max(size, low), high)) // 2**26 * 64}m"


def memory_defaults(available: int | None) -> tuple[tuple[str, ...], str]:
    """The JVM options and page cache ``paperkg neo4j start`` uses with ``available`` bytes free.

    Below :data:`THROUGHPUT_MIN_AVAILABLE` (or unknown): the start-up profile. Otherwise the
    throughput profile with a heap of a sixth of ``available`` (1-4 GiB; ``-Xms`` up to 1 GiB)
    and a page cache of an eighth (256 MiB-2 GiB).

    >>> memory_defaults(2 * 2**30) == (STARTUP_JAVA_OPTS, STARTUP_PAGE_CACHE)
    True
    >>> opts, cache = memory_defaults(12 * 2**30)
    >>> opts[:2], cache
    (('-Xms1024m', '-Xmx2048m'), '1536m')
    >>> memory_defaults(64 * 2**30)[0][1], memory_defaults(64 * 2**30)[1]
    ('-Xmx4096m', '2048m')
    """
    if available is None or available < THROUGHPUT_MIN_AVAILABLE:
        return STARTUP_JAVA_OPTS, STARTUP_PAGE_CACHE
    heap = _mebibytes(available * HEAP_SHARE, HEAP_MIN, HEAP_MAX)
    initial = _mebibytes(available * HEAP_SHARE, HEAP_MIN, HEAP_MIN)
    page_cache = _mebibytes(available * PAGE_CACHE_SHARE, PAGE_CACHE_MIN, PAGE_CACHE_MAX)
    return (f"-Xms{initial}", f"-Xmx{heap}", *THROUGHPUT_FLAGS), page_cache


def _size(value: str, what: str) -> str:
    if not re.fullmatch(r"[1-9][0-9]*[kKmMgG]", value):
        raise Neo4jServerError(f"invalid {what} size {value!r}: expected e.g. 512m or 2g")
    return value


def _java_opts(java_opts: Sequence[str] | None, defaults: Sequence[str], heap: str | None) -> list[str]:
    """The explicit options, else PAPERKG_NEO4J_JAVA_OPTS, else ``defaults``; there ``heap``
    replaces -Xmx and drops -Xms (which could exceed it)."""
    if java_opts is not None:
        return list(java_opts)
    env = os.environ.get("PAPERKG_NEO4J_JAVA_OPTS")
    if env is not None and env.strip():
        return shlex.split(env)
    heap = heap or os.environ.get("PAPERKG_NEO4J_HEAP", "").strip() or None
    if heap is None:
        return list(defaults)
    heap = _size(heap, "heap")
    return [f"-Xmx{heap}" if o.startswith("-Xmx") else o for o in defaults if not o.startswith("-Xms")]


def _page_cache(page_cache: str | None, default: str) -> str:
    if page_cache is None:
        page_cache = os.environ.get("PAPERKG_NEO4J_PAGE_CACHE", "").strip() or default
    return _size(page_cache, "page cache")
