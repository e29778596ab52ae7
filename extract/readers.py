"""Readers: seed text lists, JSONL and CSV into :class:`~paperkg.types.Paper` records.

Every record that is read is either kept or reported as skipped with its file, line and reason,
so ``read == written + skipped`` holds for every run. Recoverable problems (a non-UTF-8 byte, a
bad ``year``) become warnings that also name file and line.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from paperkg.errors import InputError
from paperkg.types import Paper, ReadReport, Skipped

log = logging.getLogger("paperkg")

SUFFIXES = (".txt", ".jsonl", ".csv")
#: Abstracts longer than this are not abstracts (a pasted paper, a broken export) and are skipped.
DEFAULT_MAX_CHARS = 20_000

_HEADER_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_HEADER_VENUE = re.compile(r"[A-Za-z][A-Za-z&\-]*[A-Za-z]")
_HEADER_STOPWORDS = {"papers", "paper", "list", "abstracts", "abstract", "accepted", "proceedings", "of", "the"}
_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\f\v]*\n")
_SPACES = re.compile(r"\s+")


@dataclass
class ReadResult:
    """Papers in input order plus everything that was skipped or warned about."""

    papers: list[Paper] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    read: int = 0

    def report(self) -> ReadReport:
        return ReadReport(read=self.read, written=len(self.papers), skipped=tuple(self.skipped))

    def warn(self, source: str, line: int, message: str) -> None:
        text = f"{source}:{line}: {message}"
        self.warnings.append(text)
        log.warning(text)

    def skip(self, source: str, line: int, reason: str) -> None:
        self.skipped.append(Skipped(source=source, line=line, reason=reason))
        log.warning(f"{source}:{line}: skipped: {reason}")


def normalize_abstract(text: str) -> str:
    """The form used to spot duplicates and to hash ids: NFKC, case-folded, one space.

    >>> normalize_abstract("  We  propose\\nX. ") == normalize_abstract("we propose x.")
    True
    """
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def paper_id_for(abstract: str) -> str:
    """A stable id from the normalized abstract (16 hex digits of BLAKE2b).

    >>> paper_id_for("We propose X.") == paper_id_for("we  propose x.")
    True
    """
    return hashlib.blake2b(normalize_abstract(abstract).encode("utf-8"), digest_size=8).hexdigest()


def parse_header(line: str) -> tuple[str | None, int | None]:
    """Venue and year from a seed header such as ``ICML 2024 Papers`` or ``ICML 2024 论文列表``.

    >>> parse_header("ICML 2024 论文列表")
    ('ICML', 2024)
    >>> parse_header("NeurIPS2023 accepted papers")
    ('NeurIPS', 2023)
    >>> parse_header("Some abstracts")
    (None, None)
    """
    year_match = _HEADER_YEAR.search(line)
    year = int(year_match.group(1)) if year_match else None
    venue = None
    for word in _HEADER_VENUE.findall(line):
        if word.lower() not in _HEADER_STOPWORDS:
            venue = word
            break
    if year is None and venue is not None and len(line) > 0:
        # A header needs a year; a line of prose with no year is not a header.
        return (None, None)
    return (venue, year)


def looks_like_header(line: str) -> bool:
    """True when the first paragraph is a short one-line header naming a year."""
    return "\n" not in line.strip() and len(line.strip()) <= 120 and bool(_HEADER_YEAR.search(line))


def iter_input_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Expand files and directories (their ``*.txt``, ``*.jsonl``, ``*.csv``, sorted)."""
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"{path}: no such file or directory")
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in SUFFIXES)
            if not found:
                raise InputError(f"{path}: directory holds no .txt, .jsonl or .csv files")
            yield from found
        elif path.suffix.lower() in SUFFIXES:
            yield path
        else:
            raise InputError(
                f"{path}: unsupported file type {path.suffix or '(none)'!r}; use .txt, .jsonl or .csv"
            )


def _decode_lines(path: Path, result: ReadResult) -> list[str]:
    """Decode line by line so a bad byte costs a warning naming its line, not the whole file."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            result.warn(
                str(path),
                number,
                f"invalid UTF-8 byte 0x{raw[exc.start]:02x} at column {exc.start + 1}; replaced with U+FFFD",
            )
            lines.append(raw.decode("utf-8", errors="replace"))
    return lines


def _clean_field(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _as_tuple(value: object) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else [value]
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return (str(value),)


class _Collector:
    """Applies the per-record rules shared by all formats: checks, ids, duplicates."""

    def __init__(self, result: ReadResult, max_chars: int) -> None:
        self.result = result
        self.max_chars = max_chars
        self.by_hash: dict[str, Paper] = {}
        self.by_id: dict[str, Paper] = {}

    def add(self, record: dict, source: str, line: int, defaults: dict) -> None:
        result = self.result
        result.read += 1
        abstract = record.get("abstract")
        if abstract is None:
            result.skip(source, line, "no 'abstract' field")
            return
        if not isinstance(abstract, str):
            result.skip(source, line, f"'abstract' is {type(abstract).__name__}, not text")
            return
        if not abstract.strip():
            result.skip(source, line, "empty abstract")
            return
        if len(abstract) > self.max_chars:
            result.skip(
                source, line, f"abstract is {len(abstract):,} characters, over the {self.max_chars:,} limit"
            )
            return
        digest = paper_id_for(abstract)
        first = self.by_hash.get(digest)
        if first is not None:
            result.skip(source, line, f"duplicate abstract of paper {first.id} ({first.source}:{first.line})")
            return
        paper_id = _clean_field(record.get("id")) or digest
        if paper_id in self.by_id:
            first = self.by_id[paper_id]
            result.skip(source, line, f"duplicate id {paper_id!r} with a different abstract ({first.source}:{first.line})")
            return
        year = record.get("year", defaults.get("year"))
        if year is not None and not isinstance(year, int):
            try:
                year = int(str(year).strip())
            except ValueError:
                result.warn(source, line, f"year {year!r} is not a number; left empty")
                year = None
        paper = Paper(
            id=paper_id,
            abstract=abstract,
            title=_clean_field(record.get("title")),
            venue=_clean_field(record.get("venue")) or defaults.get("venue"),
            year=year,
            url=_clean_field(record.get("url")),
            authors=_as_tuple(record.get("authors")),
            keywords=_as_tuple(record.get("keywords")),
            source=source,
            line=line,
        )
        self.by_hash[digest] = paper
        self.by_id[paper_id] = paper
        result.papers.append(paper)


def _read_text(path: Path, collector: _Collector) -> None:
    result = collector.result
    source = str(path)
    text = "\n".join(_decode_lines(path, result))
    paragraphs = []
    offset = 0
    for match in _PARAGRAPH_BREAK.finditer(text + "\n\n"):
        chunk = text[offset : match.start()]
        if chunk.strip():
            leading = len(chunk) - len(chunk.lstrip())
            line = text.count("\n", 0, offset + leading) + 1
            paragraphs.append((line, chunk.strip()))
        offset = match.end()
    if not paragraphs:
        result.warn(source, 1, "file is empty: no header and no abstracts")
        return
    defaults: dict = {}
    first_line, first = paragraphs[0]
    if looks_like_header(first):
        venue, year = parse_header(first)
        defaults = {"venue": venue, "year": year}
        paragraphs = paragraphs[1:]
    else:
        result.warn(source, first_line, "no header line naming venue and year; venue and year left empty")
    if not paragraphs:
        result.warn(source, first_line, "file has a header but no abstracts")
    for line, paragraph in paragraphs:
        collector.add({"abstract": paragraph}, source, line, defaults)


def _read_jsonl(path: Path, collector: _Collector) -> None:
    result = collector.result
    source = str(path)
    lines = _decode_lines(path, result)
    seen_any = False
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        seen_any = True
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            result.read += 1
            result.skip(source, number, f"not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(record, dict):
            result.read += 1
            result.skip(source, number, f"a JSON {type(record).__name__}, not an object")
            continue
        collector.add(record, source, number, {})
    if not seen_any:
        result.warn(source, 1, "file is empty: no abstracts")


def _read_csv(path: Path, collector: _Collector) -> None:
    result = collector.result
    source = str(path)
    text = "\n".join(_decode_lines(path, result))
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        result.warn(source, 1, "file is empty: no header row and no abstracts")
        return
    if "abstract" not in reader.fieldnames:
        raise InputError(f"{source}:1: CSV header has no 'abstract' column (columns: {', '.join(reader.fieldnames)})")
    rows = 0
    for row in reader:
        rows += 1
        if None in row:
            result.read += 1
            result.skip(source, reader.line_num, f"row has {len(reader.fieldnames) + len(row[None])} fields, header has {len(reader.fieldnames)}")
            continue
        collector.add(row, source, reader.line_num, {})
    if rows == 0:
        result.warn(source, 1, "file has a header row but no abstracts")


_READERS = {".txt": _read_text, ".jsonl": _read_jsonl, ".csv": _read_csv}


def read_papers(paths: Iterable[str | Path], *, max_chars: int = DEFAULT_MAX_CHARS) -> ReadResult:
    """Read every input into papers, in input order, collapsing duplicate abstracts.

    Raises :class:`~paperkg.errors.InputError` for a missing path, an unsupported file type, or
    when nothing at all could be read.
    """
    files = list(iter_input_files(paths))
    if not files:
        raise InputError("no input files given")
    result = ReadResult()
    collector = _Collector(result, max_chars)
    for path in files:
        _READERS[path.suffix.lower()](path, collector)
    if not result.papers:
        names = ", ".join(str(p) for p in files)
        raise InputError(f"{names}: no abstracts found ({result.read} records read, {len(result.skipped)} skipped)")
    return result
