"""Input files: which format a path holds (by its name, ``.gz`` included) and its lines.

Kept apart from the per-record rules (:mod:`~paperkg.extract.read.readers`) so every format's
reader decodes bytes the same way: one warning naming the line per bad byte, any line ending.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections import Counter
from pathlib import Path

from paperkg.errors import InputError

#: The formats read, by the name's last suffix (a ``.gz`` after it is decompressed first).
SUFFIXES = (".txt", ".jsonl", ".json", ".csv")
SUFFIX_TEXT = ", ".join(SUFFIXES) + " (each also .gz)"
UTF8 = "invalid UTF-8"  # the warning kind of a line with a byte that is not UTF-8
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")


def input_format(path: Path) -> str | None:
    """The format suffix of ``path`` (``.jsonl`` for ``papers.jsonl.gz``), None when unsupported.

    >>> input_format(Path("a.JSONL.gz")), input_format(Path("b.csv")), input_format(Path("c.gz"))
    ('.jsonl', '.csv', None)
    """
    suffix = Path(path.name.lower().removesuffix(".gz")).suffix
    return suffix if suffix in SUFFIXES else None


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when its name ends in ``.gz``; an InputError names a
    file that cannot be read or is not gzip."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if path.name.lower().endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{path}: not a readable gzip file ({exc})") from exc
    return data


def decode_lines(path: Path, result) -> list[str]:
    """Decode line by line so a bad byte costs a warning naming its line (``result.warn``),
    not the whole file.

    ``\\r\\n``, ``\\r`` and ``\\n`` all end a line, so a file saved with old Mac line endings is
    still one record per line.
    """
    data = read_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines: list[str] = []
    raw_lines = _LINE_BREAK.split(data) if b"\r" in data else data.split(b"\n")
    for number, raw in enumerate(raw_lines, start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            result.warn(
                str(path),
                number,
                f"invalid UTF-8 byte 0x{raw[exc.start]:02x} at column {exc.start + 1}; replaced with U+FFFD",
                Counter({UTF8: 1}),
            )
            lines.append(raw.decode("utf-8", errors="replace"))
    return lines
