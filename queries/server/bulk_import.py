"""Bulk import into the local Neo4j with the launcher's own import tool (``paperkg neo4j import``).

The launcher's Maven build (``paperkg.queries.server``) already holds Neo4j 5.26's command line
(``neo4j-command-line``, ``neo4j-import-tool``): ``java -cp '<launcher>/lib/*'
org.neo4j.cli.AdminTool database import full ...`` is ``neo4j-admin database import full``
without a Neo4j distribution. :func:`import_graph` writes the CSVs of
:mod:`paperkg.queries.neo4j_admin` (or takes a folder of them) and runs that command with
``NEO4J_HOME`` set to the launcher's data dir, so the next ``paperkg neo4j start`` serves the
imported database. The import replaces the database and needs the server stopped.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from paperkg.errors import Neo4jServerError
from paperkg.queries.neo4j_admin import FILES, import_options, pick_array_delimiter, script_array_delimiter
from paperkg.queries.server.control import status_local
from paperkg.queries.server.launcher import build_launcher, java_executable
from paperkg.queries.server.process import default_data_dir

#: JVM options of the import tool (it sizes its own off-heap caches); PAPERKG_NEO4J_IMPORT_JAVA_OPTS overrides.
IMPORT_JAVA_OPTS = ("-Xmx1g", "-XX:+UseParallelGC")


@dataclass(frozen=True)
class ImportReport:
    """What :func:`import_graph` did: the data dir and database imported into, the tool's summary."""

    data_dir: Path
    database: str
    summary: str

    def describe(self) -> str:
        return (f"imported into database {self.database!r} of {self.data_dir}: {self.summary}; start it with "
                f"'paperkg neo4j start --data-dir {shlex.quote(str(self.data_dir))}', then create the "
                f"constraints with 'paperkg load GRAPH.json' (finds everything in place) or "
                f"'paperkg cypher < constraints.cypher'")


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


def import_graph(source: str | Path, *, data_dir: str | Path | None = None, database: str = "neo4j",
                 array_delimiter: str | None = None, cache_dir: Path | None = None, progress=None) -> ImportReport:
    """Import ``source`` (a ``graph.json``, or a folder written by ``paperkg export --format
    neo4j-admin``) into the local Neo4j's data dir (default :func:`~paperkg.queries.server.process.default_data_dir`).

    ``array_delimiter`` defaults to the one no array element holds for a graph.json
    (:func:`~paperkg.queries.neo4j_admin.pick_array_delimiter`) and, for a folder, to the one its
    ``import.sh`` names.

    Raises :class:`Neo4jServerError` when a server runs on that data dir (stop it first), when
    ``source`` is neither, or when the import tool fails (quoting its output).
    """
    data = Path(data_dir).expanduser().absolute() if data_dir is not None else default_data_dir()
    status = status_local(data_dir=data)
    if status.running:
        raise Neo4jServerError(f"a local Neo4j (pid {status.pid}) is running on data dir {data}: the import replaces "
                               f"its database, so stop it first (paperkg neo4j stop --data-dir {data})")
    source = Path(source)
    jar = build_launcher(cache_dir, progress=progress)
    java = java_executable()
    (data / "conf").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="paperkg-import-") as tmp:
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
        cmd = admin_tool_command(csv_dir, jar, java, database=database, array_delimiter=array_delimiter,
                             report_file=Path(tmp) / "import.report")
        env = {**os.environ, "NEO4J_HOME": str(data), "NEO4J_CONF": str(data / "conf")}
        try:
            result = subprocess.run(cmd, env=env, cwd=tmp, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        except OSError as exc:
            raise Neo4jServerError(f"cannot run {java!r}: {exc}") from exc
    if result.returncode != 0 or "IMPORT DONE" not in result.stdout:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise Neo4jServerError(f"the import tool failed (exit {result.returncode}) for data dir {data}:\n{tail}")
    summary = next((line.strip() for line in result.stdout.splitlines() if "IMPORT DONE" in line), "IMPORT DONE")
    return ImportReport(data, database, summary)
