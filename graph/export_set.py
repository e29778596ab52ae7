"""Write a folder of exports as one set: a killed writer leaves the old set or the new one.

Every file is written atomically (``paperkg.atomic``), but a build writes several files, and a
reader must never pair a new ``graph.json`` with an old ``explorer.html``. So the files of one
set are written together:

1. Under an exclusive lock (``DIR/.paperkg-lock``, flock), every file of the new set is written
   into a staging folder inside ``DIR`` (``.paperkg-staging-*``, same file system), with the
   manifest ``paperkg-manifest.json`` (each file's size and sha256) and ``remove.json`` (the
   files of the previous set that the new one lacks: stale views, old focus pages, a
   ``mentions.jsonl`` of an earlier build).
2. **Commit point**: the staging folder is renamed to ``DIR/.paperkg-commit`` (one atomic
   rename). Before it, the old set is untouched and a killed writer leaves only a hidden staging
   folder, deleted by the next write.
3. Roll forward: each file is moved into ``DIR`` with ``os.replace``, the stale files are
   deleted, the manifest replaces the old one last, and the commit folder is removed.

A writer killed during step 3 (a window of a few renames, microseconds, no data written)
leaves ``.paperkg-commit``, and until it is finished some final names already hold new files
beside old ones. The next write into ``DIR``, or :func:`recover`, finishes the roll forward
first, so the folder always ends as the complete new set; :func:`verify` reports an unfinished
one. ``paperkg-manifest.json`` names the files of the current set: :func:`verify` checks them.
A writer of some files of a set (``paperkg html`` writing the explorer pages into a build's
folder) merges them into it the same way: its pages land all together or not at all.
(Tested by killing builds from outside while they extract and while they stage, and by
simulating the kill at each rename of the roll forward: ``tests/test_export_set.py``.)

The folder is ours only where we say so: a manifest or commit record found in ``DIR`` may have
been planted (a ``kg/`` folder someone else produced), so a name read from one is deleted or
moved only if it is a plain file name paperkg writes (:data:`EXPORT_FILES`); any other name
(``../victim.txt``, an absolute path, a folder) is reported as a warning naming the record and
left alone (``tests/test_output_folder.py``).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import tempfile
import threading
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Callable, Iterator, Mapping

from paperkg.atomic import atomic_write_text
from paperkg.errors import GraphError, NotAFolderError, OutputError, output_error
from paperkg.paths import output_folder

MANIFEST = "paperkg-manifest.json"
MANIFEST_FORMAT = "paperkg-output-set"
COMMIT_DIR = ".paperkg-commit"
STAGING_PREFIX = ".paperkg-staging-"
LOCK_FILE = ".paperkg-lock"
_REMOVE = "remove.json"
#: What paperkg writes into an output folder (``paperkg build``, ``kg.export``, ``paperkg html``),
#: as glob patterns: the only names a manifest or commit record found there can make us delete or
#: replace, and the files of a folder written before manifests that a new set replaces.
EXPORT_FILES = ("graph.json", "graph.graphml", "mentions.jsonl", "resolution.jsonl", "explorer.html", "entities.html",
                "similarity.html", "focus-*.html")
#: What ``paperkg export --format neo4j-admin`` writes (``paperkg.queries.neo4j_admin``, a later
#: stage, so named here): ours too, but a build replaces only :data:`EXPORT_FILES` of a folder
#: written before manifests, never CSVs it does not write.
NEO4J_ADMIN_FILES = ("papers.csv", "entities.csv", "results.csv", "paper_entity.csv", "related_to.csv",
                     "paper_result.csv", "result_entity.csv", "entity_entity.csv", "constraints.cypher", "import.sh")
log = logging.getLogger("paperkg")
#: The staging folder of the write_set running in this context (a nested write_set joins it).
_staging: contextvars.ContextVar[Path | None] = contextvars.ContextVar("paperkg_export_staging", default=None)
#: The folders (real paths) whose lock this context holds exclusively.
_held: contextvars.ContextVar[frozenset] = contextvars.ContextVar("paperkg_export_locks", default=frozenset())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _key(out: Path) -> str:
    return os.path.realpath(out)


@contextlib.contextmanager
def _locked(out: Path) -> Iterator[None]:
    """The folder's exclusive lock, joined when this context holds it already (``holding``): a
    second flock on another open of the file would wait for ourselves."""
    import fcntl

    if _key(out) in _held.get():
        yield
        return
    with open(out / LOCK_FILE, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        token = _held.set(_held.get() | {_key(out)})
        try:
            yield
        finally:
            _held.reset(token)
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def holding(out_dir: str | Path) -> Iterator[None]:
    """Hold ``out_dir``'s lock (when it exists) across reading a file of its set and writing into
    it (``paperkg html DIR/graph.json --out DIR``): no build can replace the set in between, so
    the pages merged into it are drawn from its own graph. Reads (:func:`reading`) and writes
    (:func:`write_set`) of that folder inside join the lock."""
    out = Path(out_dir)
    if not out.is_dir():
        yield
        return
    try:
        with _locked(out):
            _recover(out)
            yield
    except OSError as exc:
        raise output_error(exc, out) from exc


def _plain(name: object) -> bool:
    """A file name directly in the folder: no separator, not ``..``, no NUL."""
    return isinstance(name, str) and name not in ("", ".", "..") and not any(c in name for c in ("/", os.sep, "\0"))


def _ours(name: object) -> bool:
    return _plain(name) and any(fnmatchcase(name, pattern) for pattern in (*EXPORT_FILES, *NEO4J_ADMIN_FILES))


def _honoured(out: Path, names: object, record: Path) -> list[str]:
    """The names of ``record`` (a manifest's ``files`` or a ``remove.json`` found in ``out``) that
    we may delete or replace: plain file names paperkg writes, not folders. The others are
    reported and left alone: the record may be someone else's."""
    if isinstance(names, dict):
        names = list(names)
    if not isinstance(names, list):
        log.warning(f"{record}: ignored: not a list of file names")
        return []
    kept = []
    for name in names:
        if not _ours(name):
            log.warning(f"{record}: ignored the name {name!r}: not a file paperkg writes in {out} (left alone)")
        elif (out / name).is_dir() and not (out / name).is_symlink():
            log.warning(f"{record}: ignored the name {name!r}: {out / name} is a folder (left alone)")
        else:
            kept.append(name)
    return kept


def read_manifest(out_dir: str | Path) -> dict:
    """The manifest of the set in ``out_dir`` (``{}`` when there is none), read as
    :func:`reading` reads: a set left committed but not rolled forward is finished first."""
    try:
        with reading(Path(out_dir) / MANIFEST) as path:
            data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("format") == MANIFEST_FORMAT else {}


def _load(record: Path) -> object:
    try:
        return json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _roll_forward(out: Path, files: list[str] | None = None, stale: list[str] | None = None) -> None:
    """Move the committed files into ``out``, delete the stale ones, then the manifest.

    ``files`` and ``stale`` are given by the writer that just committed (its own, checked names);
    without them (a commit record found in ``out``) the record's names are checked first."""
    commit = out / COMMIT_DIR
    if files is None:
        manifest = _load(commit / MANIFEST)
        files = _honoured(out, manifest.get("files") if isinstance(manifest, dict) else None, commit / MANIFEST)
        stale = _honoured(out, _load(commit / _REMOVE), commit / _REMOVE) if (commit / _REMOVE).exists() else []
    for name in files:
        source = commit / name
        if source.is_file() and not source.is_symlink():  # what we stage; a planted folder or link stays
            os.replace(source, out / name)
    for name in stale or ():
        with contextlib.suppress(FileNotFoundError):
            (out / name).unlink()
    with contextlib.suppress(FileNotFoundError):
        (commit / _REMOVE).unlink()
    os.replace(commit / MANIFEST, out / MANIFEST)
    _fsync_dir(out)
    shutil.rmtree(commit)


def _recover(out: Path) -> None:
    commit = out / COMMIT_DIR
    if commit.is_symlink() or (commit.exists() and not commit.is_dir()):
        # Never written by us (we rename a real folder here): follow it nowhere, drop the name.
        log.warning(f"{commit}: not a commit folder paperkg wrote: removed (what it points to is left alone)")
        commit.unlink()
    elif (commit / MANIFEST).is_file():
        _roll_forward(out)
    elif commit.exists():  # the manifest moved already: only the folder is left
        shutil.rmtree(commit)
    for staging in out.glob(STAGING_PREFIX + "*"):
        shutil.rmtree(staging, ignore_errors=True)


def _open_lock(out: Path):
    """The folder's lock file opened for flock (read-only where we may not write: a read-only
    file system); ``None`` when it is not there and cannot be made (then nobody writes here)."""
    try:
        return open(out / LOCK_FILE, "a+b")
    except OSError:
        try:
            return open(out / LOCK_FILE, "rb")
        except OSError:
            return None


@contextlib.contextmanager
def _reading_folder(out: Path) -> Iterator[Callable[[str], Path]]:
    """Yields ``where(name)``: the path of ``name`` in the set committed in ``out``, while the
    folder's lock is held (shared; exclusive while a killed writer's set is rolled forward)."""
    import fcntl

    def where(name: str) -> Path:
        # A committed file not moved yet (the roll forward could not be finished here) is read
        # from the commit folder: the reader still sees only the new set.
        commit = out / COMMIT_DIR
        staged = commit / name
        if _plain(name) and commit.is_dir() and not commit.is_symlink() and staged.is_file() and not staged.is_symlink():
            return staged
        return out / name

    if _key(out) in _held.get() or not ((out / MANIFEST).exists() or (out / COMMIT_DIR).exists()):
        yield lambda name: out / name  # our own lock, or no set: nothing to finish or wait for
        return
    handle = _open_lock(out)
    if handle is None:
        yield where
        return
    with handle:
        while True:
            pending = (out / COMMIT_DIR).exists()
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX if pending else fcntl.LOCK_SH)
            if pending or not (out / COMMIT_DIR).exists():
                break
            # A writer was killed after its commit point while we waited: start again for the
            # exclusive lock (never convert a shared one: two readers would wait for each other).
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        try:
            if pending:
                try:
                    _recover(out)
                except OSError as exc:
                    log.warning(f"{out / COMMIT_DIR}: cannot finish the committed set ({exc.strerror or exc}); "
                                f"reading its files where they are")
            yield where
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def reading(path: str | Path) -> Iterator[Path]:
    """Read ``path``, a file of an export set, as a file of the set its folder holds: yields the
    path to open (the commit folder's copy while a roll forward cannot be finished).

    Files move into the folder one rename at a time, so a writer killed in the roll forward
    leaves new files beside old ones: this finishes that set first, and holds the folder's lock
    (shared) while the caller reads, so no writer rolls a new set in half-way through. Every
    paperkg reader of a set goes through it (``paperkg.load``, ``paperkg html``, ``paperkg neo4j
    import`` of an export folder, the manifest): none pairs a new graph.json with old pages.
    A file outside any set is just opened."""
    path = Path(path)
    with _reading_folder(path.parent) as where:
        yield where(path.name)


def recover(out_dir: str | Path) -> None:
    """Finish a set whose writer was killed after the commit point; drop uncommitted staging."""
    out = Path(out_dir)
    if out.is_dir():
        with _locked(out):
            _recover(out)


def verify(out_dir: str | Path) -> list[str]:
    """The problems of the set in ``out_dir`` (missing or changed files); ``[]`` when complete.
    A set committed but not rolled forward is finished first (as :func:`reading` does); one
    that cannot be (a read-only folder) is reported."""
    out = Path(out_dir)
    with _reading_folder(out) as where:
        return _problems(out, where)


def _problems(out: Path, where: Callable[[str], Path]) -> list[str]:
    manifest = _load(where(MANIFEST))
    if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
        return [f"{out / MANIFEST}: no manifest"]
    problems = []
    files = manifest.get("files")
    for name, info in (files.items() if isinstance(files, dict) else ()):
        path = where(name) if _plain(name) else None
        if path is None or not isinstance(info, dict):
            problems.append(f"{out / MANIFEST}: {name!r} is not a file of this folder")
        elif not path.is_file():
            problems.append(f"{path}: missing")
        elif path.stat().st_size != info.get("bytes") or _sha256(path) != info.get("sha256"):
            problems.append(f"{path}: not the file of this set")
    if (out / COMMIT_DIR).exists():
        problems.append(f"{out / COMMIT_DIR}: a committed set is not rolled forward yet")
    return problems


class InterruptedAfterCommit(KeyboardInterrupt):
    """A Ctrl-C that came once the new set was committed: ``out`` holds the complete new set."""

    def __init__(self, out: Path):
        super().__init__(str(out))
        self.out = out


@contextlib.contextmanager
def _interrupts_held() -> Iterator[list]:
    """Hold SIGINT back while a committed set rolls forward (a Ctrl-C then never leaves a mix
    for readers); the list says whether one came. Only the main thread can hold signals."""
    came: list = []
    if threading.current_thread() is not threading.main_thread():
        yield came
        return
    previous = signal.signal(signal.SIGINT, lambda *_: came.append(True))
    try:
        yield came
    finally:
        signal.signal(signal.SIGINT, previous)


def write_set(out_dir: str | Path, write: Callable[[Path], Mapping[str, Path]], *,
              replaces: tuple[str, ...] = (), info: Mapping | None = None, merge: bool = False) -> dict[str, Path]:
    """Write one set of files into ``out_dir`` (see the module docstring).

    ``write(folder)`` writes every file of the set directly inside ``folder`` and returns
    ``{key: path}``. Files of the previous set (its manifest) that the new one lacks are deleted
    when they are names paperkg writes (:data:`EXPORT_FILES`; any other is reported and kept),
    and so are files matching the ``replaces`` glob patterns (outputs of writers from before
    manifests). ``info`` goes into the manifest. Returns ``{key: final path}``.

    ``merge=True`` adds the files to the set already there instead (``paperkg html`` into a
    build's folder, ``paperkg export --format neo4j-admin``): they replace files of the same name,
    all of them or none, and only files matching ``replaces`` that the new files lack are deleted. A ``write_set`` into the folder that an enclosing ``write_set`` is staging writes
    there directly: its files commit with the enclosing set.

    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp())
    >>> def pages(n):
    ...     return lambda folder: {f"p{i}": atomic_write_text(folder / f"focus-p{i}.html", "x") for i in range(n)}
    >>> sorted(write_set(out, pages(3))), sorted(write_set(out, pages(1)))
    (['p0', 'p1', 'p2'], ['p0'])
    >>> sorted(p.name for p in out.iterdir()), verify(out)
    (['.paperkg-lock', 'focus-p0.html', 'paperkg-manifest.json'], [])
    >>> sorted(write_set(out, lambda folder: {"q": atomic_write_text(folder / "focus-q.html", "y")}, merge=True))
    ['q']
    >>> sorted(read_manifest(out)["files"]), verify(out)
    (['focus-p0.html', 'focus-q.html'], [])
    """
    out = output_folder(out_dir)
    staging = _staging.get()
    if staging is not None and os.path.abspath(staging) == os.path.abspath(out):
        return dict(write(out))
    if out.exists() and not out.is_dir():
        raise NotAFolderError(f"{out}: is a file, not a folder (the exports go into a folder)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        return _write_set(out, write, replaces, info, merge)
    except OutputError as exc:
        # Named by the file in the folder, not by the staging folder that vanished with the error.
        raise type(exc)(_STAGED.sub("", str(exc))) from exc
    except OSError as exc:
        error = output_error(exc, out)
        if error is exc:
            raise
        raise error from exc


#: A staging folder inside a path (``out/.paperkg-staging-x1/graph.json`` names ``out/graph.json``).
_STAGED = re.compile(re.escape(os.sep) + re.escape(STAGING_PREFIX) + r"[^" + re.escape(os.sep) + r"]+(?=" + re.escape(os.sep) + ")")


def _write_set(out: Path, write: Callable[[Path], Mapping[str, Path]], replaces: tuple[str, ...],
               info: Mapping | None, merge: bool) -> dict[str, Path]:
    with _locked(out):
        _recover(out)
        stage = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out))
        token = _staging.set(stage)
        try:
            written = dict(write(stage))
            files = {}
            for key, path in written.items():
                path = Path(path)
                if path.parent != stage or path.name in (MANIFEST, _REMOVE):
                    raise GraphError(f"{path}: an export set holds only files directly in its folder")
                if (out / path.name).is_dir() and not (out / path.name).is_symlink():
                    raise GraphError(f"{out / path.name}: is a folder, so the export {path.name} cannot be written "
                                     f"there (move it away)")
                files[path.name] = {"bytes": path.stat().st_size, "sha256": _sha256(path)}
            previous = read_manifest(out)
            old = _honoured(out, previous.get("files", {}), out / MANIFEST)
            def matching(name: str) -> bool:
                return any(fnmatchcase(name, pattern) for pattern in replaces)

            replaced = {p.name for p in out.iterdir() if p.is_file() and matching(p.name)}
            if merge:
                stale = sorted(name for name in {*replaced, *filter(matching, old)} if name not in files)
                entries = previous.get("files", {})
                kept = {name: entries[name] for name in old if name not in files and name not in stale
                        and (out / name).is_file()}
                files.update(kept)
                info = {**{k: v for k, v in previous.items() if k not in ("format", "version", "files")}, **(info or {})}
            else:
                stale = sorted(name for name in {*old, *replaced} if name not in files)
            atomic_write_text(stage / _REMOVE, json.dumps(stale) + "\n")
            atomic_write_text(stage / MANIFEST, json.dumps(
                {"format": MANIFEST_FORMAT, "version": 1, "files": dict(sorted(files.items())), **(info or {})},
                indent=2, sort_keys=False) + "\n")
            _fsync_dir(stage)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        finally:
            _staging.reset(token)
        with _interrupts_held() as interrupted:
            os.rename(stage, out / COMMIT_DIR)  # the commit point
            _fsync_dir(out)
            _roll_forward(out, sorted(files), stale)
        if interrupted:
            raise InterruptedAfterCommit(out)
    return {key: out / Path(path).name for key, path in written.items()}
