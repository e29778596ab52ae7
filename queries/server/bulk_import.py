"""Bulk import into the local Neo4j with the launcher's own import tool (``paperkg neo4j import``).

The launcher's Maven build (``paperkg.queries.server``) already holds Neo4j 5.26's command line
(``neo4j-command-line``, ``neo4j-import-tool``): ``java -cp '<launcher>/lib/*'
org.neo4j.cli.AdminTool database import full ...`` is ``neo4j-admin database import full``
without a Neo4j distribution. :func:`import_graph` writes the CSVs of
:mod:`paperkg.queries.neo4j_admin` (or takes a folder of them) and runs that command with
``NEO4J_HOME`` set to a scratch folder inside the launcher's data dir, and swaps the store it
made in for the database's only when the tool succeeded, so the next ``paperkg neo4j start``
serves the imported database; a failed import (``Error in input data``) leaves the previous
one as it was (the tool's ``--overwrite-destination`` would have deleted it first). The import
replaces the database and needs the server stopped.

A database's store is two folders (``data/databases/DB``, ``data/transactions/DB``), so the
swap is four renames, under the data dir's lock (``paperkg neo4j start`` waits for it): the
previous folders move into the scratch folder, the new ones into place, then a marker says
done. An import killed within those renames leaves the scratch folder; the next import puts
the previous database back first (``tests/test_neo4j_import_swap.py``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paperkg.atomic import atomic_write_text
from paperkg.errors import Neo4jServerError
from paperkg.graph.export_set import reading
from paperkg.queries.neo4j_admin import FILES, import_options, pick_array_delimiter, script_array_delimiter
from paperkg.queries.server.control import status_local
from paperkg.queries.server.launcher import _file_lock, build_launcher, java_executable
from paperkg.queries.server.process import default_data_dir, lock_path, make_data_dir, write_private

#: JVM options of the import tool (it sizes its own off-heap caches); PAPERKG_NEO4J_IMPORT_JAVA_OPTS overrides.
IMPORT_JAVA_OPTS = ("-Xmx1g", "-XX:+UseParallelGC")
#: The scratch folders of imports in a data dir: the tool's NEO4J_HOME, then the previous store.
SCRATCH_PREFIX = ".paperkg-import-"
#: The two folders of a database's store, under ``DATA_DIR/data``.
STORE_FOLDERS = ("databases", "transactions")
_SWAPPED = "swapped"
#: Neo4j's rule for database names (3-63 characters): the name is also a folder name here.
_DATABASE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9.-]{2,62}")


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_graph` did: the data dir and database imported into, the tool's summary."""

    data_dir: Path
    database: str
    summary: str

    def describe(self) -> str:
        return (f"imported into database {self.database!r} of {self.data_dir}: {self.summary}; start it with "
                f"'paperkg neo4j start --data-dir {shlex.quote(str(self.data_dir))}', then create the "
                f"constraints with 'paperkg load GRAPH.json' (finds everything in place) or, for a folder "
                f"written by 'paperkg export', 'paperkg cypher < FOLDER/constraints.cypher'")


def admin_tool_command(csv_dir: Path, jar: Path, java: str, *, database: str = "neo4j", array_delimiter: str = ";",
                   report_file: Path | None = None) -> list[str]:
    """The java command line that imports the CSVs in ``csv_dir`` (the launcher's AdminTool)."""
    env_opts = os.environ.get("PAPERKG_NEO4J_IMPORT_JAVA_OPTS")
    opts = shlex.split(env_opts) if env_opts and env_opts.strip() else list(IMPORT_JAVA_OPTS)
    cmd = [java, *opts, "-cp", f"{jar.parent / 'lib'}/*", "org.neo4j.cli.AdminTool", "database", "import", "full",
           database, *import_options(csv_dir, array_delimiter=array_delimiter)]
    if report_file is not None:
        cmd.append(f"--report-file={report_file}")
    return cmd


def _refuse_running(data: Path) -> None:
    status = status_local(data_dir=data)
    if status.running:
        raise Neo4jServerError(f"a local Neo4j (pid {status.pid}) is running on data dir {data}: the import replaces "
                               f"its database, so stop it first (paperkg neo4j stop --data-dir {data})")


def _live(data: Path, folder: str, database: str) -> Path:
    return data / "data" / folder / database


def _new(scratch: Path, folder: str, database: str) -> Path:
    return scratch / "data" / folder / database


def _previous(scratch: Path, folder: str) -> Path:
    return scratch / "previous" / folder


def _restore(scratch: Path, data: Path, database: str) -> None:
    """Undo a swap that did not finish: the previous store back in place, the new one back into
    ``scratch`` (thrown away with it)."""
    for folder in STORE_FOLDERS:
        previous, live, new = _previous(scratch, folder), _live(data, folder, database), _new(scratch, folder, database)
        if live.exists() and not new.exists() and previous.exists():  # the new one was moved in
            new.parent.mkdir(parents=True, exist_ok=True)
            os.rename(live, new)
        if previous.exists():
            live.parent.mkdir(parents=True, exist_ok=True)
            os.rename(previous, live)


def _swap_in(scratch: Path, data: Path, database: str) -> None:
    """Move the store the tool made in ``scratch`` into ``data``, the previous one out of the way."""
    try:
        for folder in STORE_FOLDERS:
            if _live(data, folder, database).exists():
                _previous(scratch, folder).parent.mkdir(parents=True, exist_ok=True)
                os.rename(_live(data, folder, database), _previous(scratch, folder))
        for folder in STORE_FOLDERS:
            if _new(scratch, folder, database).exists():
                _live(data, folder, database).parent.mkdir(parents=True, exist_ok=True)
                os.rename(_new(scratch, folder, database), _live(data, folder, database))
        atomic_write_text(scratch / _SWAPPED, "the new store is in place\n")
    except OSError as exc:
        _restore(scratch, data, database)
        raise Neo4jServerError(f"cannot move the imported database into {data} ({exc}); "
                               f"the previous database is unchanged") from exc


def _recover(data: Path, database: str) -> None:
    """Finish what a killed import left in ``data``: a swap without its marker is undone."""
    for scratch in data.glob(SCRATCH_PREFIX + "*"):
        if scratch.is_dir() and not scratch.is_symlink():
            if not (scratch / _SWAPPED).exists():
                _restore(scratch, data, database)
            shutil.rmtree(scratch)


def _failure(output: str) -> str:
    """The tool's reason in one line: its innermost Neo4j ``Caused by`` (with --verbose; a JDK one
    below it says less: ``IllegalArgumentException: 'nosuchtype'``), else its error line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    causes = [m.group(2) for line in lines if (m := re.match(r"Caused by: ([\w.$]+): (.+)", line))
              and m.group(1).startswith("org.neo4j.")]
    errors = [line for line in lines if re.search(r"error|exception|invalid|failed", line, re.IGNORECASE)]
    reason = causes[-1] if causes else errors[0] if errors else lines[-1] if lines else "no output"
    return reason if len(reason) <= 300 else reason[:300] + "..."


def import_graph(source: str | Path, *, data_dir: str | Path | None = None, database: str = "neo4j",
                 array_delimiter: str | None = None, cache_dir: Path | None = None, progress=None) -> ImportReport:
    """Import ``source`` (a ``graph.json``, or a folder written by ``paperkg export --format
    neo4j-admin``) into the local Neo4j's data dir (default :func:`~paperkg.queries.server.process.default_data_dir`).

    ``array_delimiter`` defaults to the one no array element holds for a graph.json
    (:func:`~paperkg.queries.neo4j_admin.pick_array_delimiter`) and, for a folder, to the one its
    ``import.sh`` names. The database is replaced only when the import succeeds (see the module
    docstring).

    Raises :class:`Neo4jServerError` when a server runs on that data dir (stop it first), when
    ``source`` is neither, or when the import tool fails (one line: the tool's reason, and the
    log file with its whole output; the previous database is left as it was).
    """
    if not _DATABASE_NAME.fullmatch(database):
        raise Neo4jServerError(f"invalid database name {database!r}: 3-63 ASCII letters, digits, '.' and '-', "
                               f"starting with a letter")
    data = Path(data_dir).expanduser().absolute() if data_dir is not None else default_data_dir()
    make_data_dir(data)  # a file given as the data dir fails here, before the launcher is built
    _refuse_running(data)
    source = Path(source)
    jar = build_launcher(cache_dir, progress=progress)
    java = java_executable()
    (data / "conf").mkdir(exist_ok=True)
    store_name = database.lower()  # Neo4j's folder for the database (names are case-insensitive)
    # A folder of CSVs is read as its export set (finished if a killed export left it committed;
    # no export rolls a new set in while the tool reads).
    with _file_lock(lock_path(data)), tempfile.TemporaryDirectory(prefix="paperkg-import-") as tmp, \
            reading(source / "import.sh") if source.is_dir() else contextlib.nullcontext():
        _refuse_running(data)  # started while the launcher was built?
        _recover(data, store_name)
        if source.is_dir():
            missing = [name for name in FILES.values() if not (source / name).is_file()]
            if missing:
                raise Neo4jServerError(f"{source}: no {', '.join(missing)} (write them with 'paperkg export GRAPH.json "
                                       f"--format neo4j-admin {source}')")
            csv_dir = source.absolute()
            array_delimiter = array_delimiter or script_array_delimiter(source)
        elif source.is_file():
            from paperkg.graph.export import read_node_link
            from paperkg.queries.neo4j_admin import write_neo4j_admin

            csv_dir = Path(tmp) / "csv"
            graph = read_node_link(source)
            array_delimiter = array_delimiter or pick_array_delimiter(graph)
            write_neo4j_admin(graph, csv_dir, array_delimiter=array_delimiter, database=database)
            del graph
        else:
            raise Neo4jServerError(f"{source}: no such graph file or export folder")
        # The tool's home is a scratch folder on the data dir's file system (the swap is renames).
        scratch = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=data))
        try:
            cmd = admin_tool_command(csv_dir, jar, java, database=database, array_delimiter=array_delimiter,
                                     report_file=Path(tmp) / "import.report") + ["--verbose"]
            env = {**os.environ, "NEO4J_HOME": str(scratch), "NEO4J_CONF": str(data / "conf")}
            try:
                result = subprocess.run(cmd, env=env, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            except OSError as exc:
                raise Neo4jServerError(f"cannot run {java!r}: {exc}") from exc
            if result.returncode != 0 or "IMPORT DONE" not in result.stdout:
                log = data / "logs" / "paperkg-import.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                write_private(log, result.stdout + result.stderr)
                raise Neo4jServerError(f"the import tool failed (exit {result.returncode}) for data dir {data}: "
                                       f"{_failure(result.stdout + result.stderr)}; the previous database is "
                                       f"unchanged (the tool's output: {log})")
            _swap_in(scratch, data, store_name)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    summary = next((line.strip() for line in result.stdout.splitlines() if "IMPORT DONE" in line), "IMPORT DONE")
    return ImportReport(data, database, summary)
