"""The one exception hierarchy of paperkg.

Every error a user can cause derives from :class:`PaperKGError`; the CLI turns these into a
one-line message and a non-zero exit instead of a traceback.
"""

from __future__ import annotations


class PaperKGError(Exception):
    """Root of every error paperkg raises on purpose."""


class InputError(PaperKGError):
    """An input file is missing, unreadable or malformed (the message names file and line)."""


class OutputError(PaperKGError):
    """An output path cannot be written (a file where a folder is needed, no permission...)."""


class ExtractionError(PaperKGError):
    """The extraction pipeline could not be built or run (e.g. the shipped model is missing)."""


class GraphError(PaperKGError):
    """A graph operation got an argument that does not fit the graph (unknown paper, entity...)."""


class GraphFileError(PaperKGError):
    """A saved graph file cannot be read back (wrong format or version)."""


class QueryError(PaperKGError):
    """A named query is unknown or got missing/extra parameters."""


class Neo4jError(PaperKGError):
    """Neo4j is unreachable, refused the credentials, or rejected a statement."""


class Neo4jServerError(PaperKGError):
    """The local Neo4j launcher could not be built, started or stopped."""


class EvaluationError(PaperKGError):
    """A gold file for ``paperkg evaluate`` is malformed."""


class StoreError(PaperKGError):
    """The extraction store (``--store``) cannot be opened, read or written."""


class BuildFolderError(PaperKGError):
    """A build folder cannot be added to or taken from (``paperkg add``/``remove``): it records
    no build, a paper id is not in it, or one of its inputs changed or is gone."""
