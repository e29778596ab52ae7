"""Readers of record formats: JSON Lines, a JSON array of records, CSV.

Field names are forgiving but never silent: ``Abstract`` or ``ABSTRACT`` is read as
``abstract`` (case and surrounding spaces do not matter), and a common synonym (``summary`` for
``abstract``, ``paper_id`` for ``id``, ...; :data:`SYNONYMS`) is read in place of a field the
record lacks, with one warning per file saying so. Every record goes to the shared per-record
rules (``collector.add``, :mod:`~paperkg.extract.read.readers`).
"""

from __future__ import annotations

import csv
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator

from paperkg.errors import InputError
from paperkg.extract.read.files import decode_lines

#: The record fields paperkg reads; others are ignored.
FIELDS = ("id", "abstract", "title", "venue", "year", "url", "authors", "keywords")
#: Other names of a field (compared case-insensitively), read when the record lacks the field.
SYNONYMS = {
    "summary": "abstract", "abstract_text": "abstract", "abstracttext": "abstract", "paper_abstract": "abstract",
    "paper_id": "id", "paperid": "id", "paper_title": "title", "author": "authors", "author_names": "authors",
    "keyword": "keywords", "conference": "venue", "journal": "venue", "publication_year": "year", "link": "url",
}


class FieldNames:
    """Maps a record's names to paperkg's fields, warning once per file about each synonym read."""

    def __init__(self, result, source: str) -> None:
        self.result, self.source = result, source
        self._maps: dict[tuple[str, ...], dict[str, str]] = {}
        self._said: set[tuple[str, str]] = set()

    def mapping(self, names: Iterable[str], line: int) -> dict[str, str]:
        """``{name in the record: field}``: exact names first, then any case, then synonyms."""
        names = tuple(names)
        if names not in self._maps:
            found: dict[str, str] = {}
            for field in FIELDS:
                if field in names:
                    found[field] = field
            for rank in ("case", "synonym"):
                for name in names:
                    if not isinstance(name, str) or name in found:
                        continue
                    folded = name.strip().casefold()
                    field = folded if rank == "case" and folded in FIELDS else SYNONYMS.get(folded) if rank == "synonym" else None
                    if field and field not in found.values():
                        found[name] = field
                        if rank == "synonym" and (name, field) not in self._said:
                            self._said.add((name, field))
                            self.result.warn(self.source, line, f"{name!r} read as {field!r} (a synonym; "
                                             f"name it {field!r} to silence this)")
            self._maps[names] = found
        return self._maps[names]

    def record(self, raw: dict, line: int) -> dict:
        return {field: raw[name] for name, field in self.mapping(raw, line).items()}


def read_jsonl(path: Path, collector, lines: list[str] | None = None) -> None:
    result = collector.result
    source = str(path)
    names = FieldNames(result, source)
    seen_any = False
    for number, line in enumerate(decode_lines(path, result) if lines is None else lines, start=1):
        if not line.strip():
            continue
        seen_any = True
        try:
            # strict=False: a raw control character inside a string is cleaned, not a lost record.
            record = json.loads(line, strict=False)
        except json.JSONDecodeError as exc:
            result.read += 1
            result.skip(source, number, f"not valid JSON ({exc.msg} at column {exc.colno})", "not valid JSON")
            continue
        except (ValueError, RecursionError) as exc:  # a 5,000-digit number, nesting too deep
            result.read += 1
            result.skip(source, number, f"not valid JSON ({str(exc).split(';')[0] or type(exc).__name__})", "not valid JSON")
            continue
        if not isinstance(record, dict):
            result.read += 1
            result.skip(source, number, f"a JSON {type(record).__name__}, not an object", "not a JSON object")
            continue
        collector.add(names.record(record, number), source, number, {})
    if not seen_any:
        result.warn(source, 1, "file is empty: no abstracts")


def read_json(path: Path, collector) -> None:
    """A ``.json`` file: an array of records (or one record); a file of JSON Lines is read as such."""
    result = collector.result
    source = str(path)
    lines = decode_lines(path, result)
    text = "\n".join(lines)
    start = len(text) - len(text.lstrip())
    if start == len(text):
        result.warn(source, 1, "file is empty: no abstracts")
        return
    decoder = json.JSONDecoder(strict=False)
    if text[start] != "[":
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value, end = None, start
        if isinstance(value, dict) and not text[end:].strip():
            collector.add(FieldNames(result, source).record(value, 1 + text.count("\n", 0, start)), source,
                          1 + text.count("\n", 0, start), {})
        else:  # several values, or one per line: JSON Lines under a .json name
            result.note(source, "not one JSON array or object; read as JSON Lines (one record per line)")
            read_jsonl(path, collector, lines)
        return
    names = FieldNames(result, source)
    position, line = start + 1, 1 + text.count("\n", 0, start)
    while True:
        skipped = len(text) - len(text[position:].lstrip(" \t\r\n,"))
        line += text.count("\n", position, skipped)
        position = skipped
        if position >= len(text) or text[position] == "]":
            break
        try:
            record, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError) as exc:
            result.read += 1
            result.skip(source, line, f"not valid JSON ({str(exc).split(';')[0]}); the rest of the array is not read",
                        "not valid JSON")
            return
        if isinstance(record, dict):
            collector.add(names.record(record, line), source, line, {})
        else:
            result.read += 1
            result.skip(source, line, f"a JSON {type(record).__name__}, not an object", "not a JSON object")
        line += text.count("\n", position, end)
        position = end


class _LineFeed:
    """Physical lines for ``csv.reader``; ``index`` says how many were consumed, so a record's
    first line is known and parsing can restart right after a malformed record."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.index = 0

    def __iter__(self) -> "_LineFeed":
        return self

    def __next__(self) -> str:
        if self.index >= len(self.lines):
            raise StopIteration
        self.index += 1
        return self.lines[self.index - 1] + "\n"


@contextmanager
def _csv_field_limit(limit: int) -> Iterator[None]:
    # The csv module's limit is process-wide (128 KiB by default); raise it for this read only,
    # so a long field is skipped by the --max-chars rule with its line instead of stopping the run.
    previous = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def _header_problem(source: str, header: list[str]) -> str:
    """Why a CSV header names no abstract column, in one line: invisible characters (a NUL, a
    stray mark) are what is wrong more often than the names, so they are said first and shown."""
    columns = ", ".join(h.strip() if h.strip().isprintable() else repr(h) for h in header)
    if any("\x00" in h for h in header):
        return (f"{source}:1: NUL bytes in the CSV header (columns: {columns}): is this a UTF-16 file without a "
                "byte-order mark? Save it as UTF-8 (or UTF-16 with a mark)")
    others = ", ".join(name for name, field in SYNONYMS.items() if field == "abstract")
    hidden = [h for h in header if not h.strip().isprintable()]
    why = f"; {len(hidden)} column name(s) hold invisible characters" if hidden else ""
    return (f"{source}:1: CSV header has no 'abstract' column, in any case, nor a synonym ({others}) "
            f"(columns: {columns}){why}")


def read_csv(path: Path, collector) -> None:
    result = collector.result
    source = str(path)
    feed = _LineFeed(decode_lines(path, result))
    with _csv_field_limit(min(sys.maxsize, 2**31 - 1)):
        reader = csv.reader(feed, strict=True)
        try:
            header = next(reader, None)
        except csv.Error as exc:
            raise InputError(f"{source}:1: malformed CSV header ({exc})") from exc
        if not header or not any(h.strip() for h in header):
            result.warn(source, 1, "file is empty: no header row and no abstracts")
            return
        mapping = FieldNames(result, source).mapping(header, 1)
        if "abstract" not in mapping.values():
            raise InputError(_header_problem(source, header))
        fields = [mapping.get(name) for name in header]
        rows = 0
        while True:
            first = feed.index + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                rows += 1
                result.read += 1
                result.skip(source, first, f"malformed CSV record ({exc}; an unclosed quote?); reading on at line {first + 1}",
                            "malformed CSV record")
                feed.index = first
                reader = csv.reader(feed, strict=True)
                continue
            if not row:
                continue
            rows += 1
            if len(row) > len(fields):
                result.read += 1
                result.skip(source, first, f"row has {len(row)} fields, header has {len(fields)}", "wrong number of fields")
                continue
            collector.add({field: value for field, value in zip(fields, row) if field}, source, first, {})
    if rows == 0:
        result.warn(source, 1, "file has a header row but no abstracts")
