"""The one exception hierarchy of paperkg.

Every error a user can cause derives from :class:`PaperKGError`; the CLI turns these into a
one-line message and a non-zero exit instead of a traceback.
"""

from __future__ import annotations

import errno
import os


class PaperKGError(Exception):
    """Root of every error paperkg raises on purpose."""


class InputError(PaperKGError):
    """An input file is missing, unreadable or malformed (the message names file and line)."""


class OutputError(PaperKGError):
    """An output path cannot be written (a file where a folder is needed, no permission...)."""


class DiskFullError(OutputError):
    """No space is left (or the quota is used up) where an output or a temporary file goes."""


class ReadOnlyError(OutputError):
    """An output goes where we may not write: a read-only file system, or no permission."""


class NotAFolderError(OutputError):
    """A path that must be a folder, or lead through folders, names a file."""


#: errno -> (error, what it means for the path written); other OSErrors are not the user's doing.
_OUTPUT_ERRNOS = {
    errno.ENOSPC: (DiskFullError, "no space left on the device"),
    errno.EDQUOT: (DiskFullError, "disk quota exceeded"),
    errno.EFBIG: (DiskFullError, "file too large for the file system"),
    errno.EROFS: (ReadOnlyError, "read-only file system"),
    errno.EACCES: (ReadOnlyError, "permission denied"),
    errno.EPERM: (ReadOnlyError, "operation not permitted"),
    errno.ENOTDIR: (NotAFolderError, "a part of the path is a file, not a folder"),
    errno.EEXIST: (NotAFolderError, "exists and is not a folder"),
}


def output_error(exc: OSError, path: str | os.PathLike | None = None, hint: str = "") -> Exception:
    """The one-line error for ``exc``, met writing ``path`` (else the path ``exc`` names): an
    :class:`OutputError` subclass for a full disk, a read-only or forbidden folder, and a file
    where a folder must be; ``exc`` itself for any other OSError (a bug to see, not the user's
    to fix). ``hint`` ends the message.

    >>> output_error(OSError(errno.ENOSPC, "No space left on device"), "out/graph.json")
    DiskFullError('out/graph.json: cannot write: no space left on the device')
    """
    where = path if path is not None else exc.filename
    if exc.errno not in _OUTPUT_ERRNOS or where is None:
        return exc
    error, meaning = _OUTPUT_ERRNOS[exc.errno]
    return error(f"{os.fsdecode(where)}: cannot write: {meaning}{hint}")


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


class LoadLockTimeoutError(Neo4jError):
    """Another ``paperkg load`` into the same database held the load lock past the timeout."""
