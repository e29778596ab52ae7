"""A local Neo4j Community 5.26 LTS server without Docker: needs only Java 17+ and Maven.

The server is a tiny Java launcher (``neo4j_local/``, shipped as package data) that runs Neo4j
embedded with the Bolt connector on ``127.0.0.1`` and authentication on. This package has it built
once with Maven (:mod:`~paperkg.queries.server.launcher`, cached), starts it detached in the
background (:mod:`~paperkg.queries.server.control`), keeps its pid and state files
(:mod:`~paperkg.queries.server.process`), waits until Bolt answers (:mod:`~paperkg.queries.server.bolt`),
stops it again, and bulk-imports a graph into it (:mod:`~paperkg.queries.server.bulk_import`). The CLI ``paperkg neo4j start|stop|status`` is a thin wrapper around
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

from paperkg.queries.server.bolt import free_port
from paperkg.queries.server.control import (
    DEFAULT_PORT,
    LocalServer,
    ServerStatus,
    StopResult,
    start_local,
    status_local,
    stop_local,
)
from paperkg.queries.server.launcher import (
    STARTUP_JAVA_OPTS,
    STARTUP_PAGE_CACHE,
    LauncherBuildError,
    ToolMissingError,
    available_memory,
    build_launcher,
    default_cache_dir,
    java_executable,
    memory_defaults,
)
from paperkg.queries.server.process import default_data_dir, running_launchers

__all__ = [
    "DEFAULT_PORT",
    "STARTUP_JAVA_OPTS",
    "STARTUP_PAGE_CACHE",
    "LauncherBuildError",
    "LocalServer",
    "ServerStatus",
    "StopResult",
    "ToolMissingError",
    "available_memory",
    "build_launcher",
    "default_cache_dir",
    "default_data_dir",
    "free_port",
    "java_executable",
    "memory_defaults",
    "running_launchers",
    "start_local",
    "status_local",
    "stop_local",
]
