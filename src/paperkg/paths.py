"""Output paths checked before any work: a wrong ``--out`` costs a one-line error at once, not a
traceback after minutes of extraction.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from paperkg.errors import OutputError


def _writable_ancestor(path: Path) -> Path:
    """The nearest existing folder at or above ``path``, checked by creating a temp file in it
    (``os.access`` says yes to root on a read-only file system)."""
    ancestor = path
    while not ancestor.exists() and not ancestor.is_symlink():
        if ancestor.parent == ancestor:
            break
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{path}: cannot be created: {ancestor} is not a folder")
    try:
        with tempfile.TemporaryFile(dir=ancestor):
            pass
    except OSError as exc:
        raise OutputError(f"{path}: cannot write in {ancestor}: {exc.strerror or exc}") from exc
    return ancestor


def output_folder(path: str | os.PathLike) -> Path:
    """``path`` as a Path, unless it is empty or the root folder: an output folder holds a set
    whose stale files are deleted, and ``--out ''`` (the current folder by accident) or
    ``--out "$UNSET/"`` (``/``) is a slip, not a choice. Raises OutputError.

    >>> output_folder("")
    Traceback (most recent call last):
    ...
    paperkg.errors.OutputError: the output folder is empty ('' names no folder; use . for the current one)
    >>> output_folder("/tmp/..")
    Traceback (most recent call last):
    ...
    paperkg.errors.OutputError: /tmp/..: is the root folder; name a folder for the exports
    """
    if not os.fspath(path).strip():
        raise OutputError(f"the output folder is empty ({os.fspath(path)!r} names no folder; use . for the current one)")
    resolved = os.path.realpath(path)
    if os.path.dirname(resolved) == resolved:
        raise OutputError(f"{path}: is the root folder; name a folder for the exports")
    return Path(path)


def check_output_dir(path: str | os.PathLike) -> Path:
    """``path`` can be (or become) a folder we can write in; raises OutputError naming why not.

    >>> import tempfile, pathlib
    >>> base = pathlib.Path(tempfile.mkdtemp())
    >>> check_output_dir(base / "new" / "out") == base / "new" / "out"
    True
    >>> (base / "file").write_text("x") and check_output_dir(base / "file")
    Traceback (most recent call last):
    ...
    paperkg.errors.OutputError: ...file: is a file, not a folder (--out names the folder for every export)
    """
    path = output_folder(path)
    if path.exists() and not path.is_dir():
        raise OutputError(f"{path}: is a file, not a folder (--out names the folder for every export)")
    _writable_ancestor(path)
    return path


def check_output_file(path: str | os.PathLike) -> Path:
    """``path`` can be written as a file; raises OutputError naming why not.

    >>> import tempfile, pathlib
    >>> check_output_file(tempfile.mkdtemp())
    Traceback (most recent call last):
    ...
    paperkg.errors.OutputError: ...: is a folder, not a file
    """
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"{path}: is a folder, not a file")
    if path.exists() and not path.is_file():
        raise OutputError(f"{path}: exists and is not a regular file")
    _writable_ancestor(path.parent)
    return path
