"""Atomic file writes: write a temp file in the same folder, fsync, then ``os.replace``.

A reader (or a killed writer) sees either the old complete file or the new complete one,
never a truncated file under the final name. Every export writes through these helpers.

Text that cannot be encoded (a lone surrogate such as ``"\\udc80"``, which JSON escapes can
carry in) is written as U+FFFD with ``errors=REPLACE``: one character for one, so offsets into
the text stay valid, and the file stays valid UTF-8.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator

from paperkg.errors import output_error

#: The encoding error handler (UTF-8 only) that writes U+FFFD for each character UTF-8 cannot
#: encode. It returns bytes: CPython's UTF-8 encoder accepts only ASCII str replacements.
REPLACE = "paperkg-replace"
_FFFD = "\ufffd".encode("utf-8")


def _replace_unencodable(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return _FFFD * (error.end - error.start), error.end


codecs.register_error(REPLACE, _replace_unencodable)


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike, mode: str = "w", *, encoding: str | None = "utf-8",
                newline: str | None = None, errors: str | None = None, private: bool = False) -> Iterator[IO]:
    """Open a temp file beside ``path`` for writing; on success it replaces ``path``. The file
    gets the mode ``open()`` would give it (:func:`file_mode`), or 0600 when ``private``.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_open(target) as handle:
    ...     _ = handle.write("done")
    >>> target.read_text()
    'done'
    >>> with atomic_open(target, errors=REPLACE) as handle:
    ...     _ = handle.write("lone \\udc80 surrogate")
    >>> target.read_text()
    'lone \\ufffd surrogate'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open writes only ('w' or 'wb'), not {mode!r}")
    target = Path(path)
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        _raise_output_error(exc, target)
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline, errors=errors)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if not private:
            os.chmod(tmp_name, file_mode())  # mkstemp makes 0600; an export is for others to read
        os.replace(tmp_name, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        if isinstance(exc, OSError) and exc.filename in (None, tmp_name, os.fspath(target)):
            # A write the disk refused (full, read-only): one line naming the file, not a traceback.
            _raise_output_error(exc, target)
        raise


def _raise_output_error(exc: OSError, target: Path) -> None:
    error = output_error(exc, target)
    if error is exc:
        raise exc
    raise error from exc


def file_mode(executable: bool = False) -> int:
    """The mode ``open()`` would give a new file under the current umask (0644 under 022,
    0664 under 002); ``executable``: as a script (0755). Read from /proc, as setting the umask
    to learn it would change it for every thread meanwhile."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            umask = next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        umask = os.umask(0o022)
        os.umask(umask)
    return (0o777 if executable else 0o666) & ~umask


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8", newline: str | None = None,
                      errors: str | None = None, private: bool = False) -> Path:
    """Write ``text`` to ``path`` atomically; returns the path."""
    with atomic_open(path, "w", encoding=encoding, newline=newline, errors=errors, private=private) as handle:
        handle.write(text)
    return Path(path)


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically; returns the path."""
    with atomic_open(path, "wb", encoding=None) as handle:
        handle.write(data)
    return Path(path)


def json_line(record: object, *, sort_keys: bool = False) -> str:
    """``record`` as one JSON line, non-ASCII kept, except U+2028 and U+2029: line-based readers
    (Python's ``str.splitlines``, JavaScript before ES2019) take them for line breaks.

    >>> json_line({"a": "x\\u2028y"})
    '{"a": "x\\\\u2028y"}\\n'
    """
    text = json.dumps(record, ensure_ascii=False, sort_keys=sort_keys)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"
