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


#: Byte-order marks, longest first (a UTF-32 LE mark begins with the UTF-16 LE one).
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xef\xbb\xbf", "utf-8"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_TEXT_BREAK = re.compile(r"\r\n|\r|\n")


def _bom_less_utf16(data: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` when the first line is plainly UTF-16 without a mark (every
    other byte NUL, as ASCII text saved as UTF-16 is), else None: such a file decoded as UTF-8 is
    a NUL between every letter, and its CSV header matches no column."""
    head = data[:2048]
    head = head[: len(head) - len(head) % 2]
    if len(head) < 4 or b"\x00" not in head:
        return None
    even, odd = head[0::2], head[1::2]
    if odd.count(0) == len(odd) and even.count(0) == 0:
        return "utf-16-le"
    if even.count(0) == len(even) and odd.count(0) == 0:
        return "utf-16-be"
    return None


def decode_lines(path: Path, result) -> list[str]:
    """Decode line by line so a bad byte costs a warning naming its line (``result.warn``),
    not the whole file.

    ``\\r\\n``, ``\\r`` and ``\\n`` all end a line, so a file saved with old Mac line endings is
    still one record per line. A byte-order mark says the encoding (UTF-8, UTF-16 or UTF-32, LE
    or BE: Excel's "Unicode text" is UTF-16 LE with a mark); UTF-16 without a mark is recognized by
    its NUL bytes and read with a warning.
    """
    data = read_bytes(path)
    bom, encoding = next(((bom, name) for bom, name in _BOMS if data.startswith(bom)), (b"", None))
    data = data[len(bom):]
    if encoding is None:
        encoding = _bom_less_utf16(data)
        if encoding is not None:
            result.warn(str(path), 1, f"no byte-order mark, but NUL bytes at every other position: read as "
                        f"{encoding.upper()} (save it as UTF-8 to silence this)")
    if encoding != "utf-8" and encoding is not None:
        return _decode_wide(path, data, encoding, result)
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


def _decode_wide(path: Path, data: bytes, encoding: str, result) -> list[str]:
    """Lines of a UTF-16 or UTF-32 file; bytes that do not decode (an odd length, a lone
    surrogate) become U+FFFD with one warning naming the first such line."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = 1 + len(_TEXT_BREAK.findall(data[: exc.start].decode(encoding, errors="replace")))
        result.warn(str(path), line, f"bytes that are not {encoding.upper()} at byte {exc.start + 1} of the text; "
                    "replaced with U+FFFD", Counter({UTF8: 1}))
        text = data.decode(encoding, errors="replace")
    return _TEXT_BREAK.split(text)
