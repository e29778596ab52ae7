"""Readers: seed text lists, JSONL, JSON arrays and CSV (each also gzipped) into :class:`~paperkg.types.Paper` records.

Every record that is read is either kept or reported as skipped with its file, line and reason,
so ``read == written + skipped`` holds for every run. Recoverable problems (a non-UTF-8 byte, a
control or zero-width character removed by :mod:`~paperkg.extract.read.sanitize`) become warnings
that also name file and line; past :data:`SHOWN_PER_KIND` of a kind in one file they (and
skipped records, by kind of reason) are counted in one summary line instead of printed. Every format is read in one linear pass.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import stat
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator

from paperkg.errors import InputError
from paperkg.extract.read.files import SUFFIX_TEXT, UTF8, decode_lines, input_format
from paperkg.extract.read.sanitize import clean_text, describe
from paperkg.extract.read.structured import FIELDS, read_csv, read_json, read_jsonl
from paperkg.types import Paper, ReadReport, Skipped

log = logging.getLogger("paperkg")

#: Abstracts longer than this are not abstracts (a pasted paper, a broken export) and are skipped.
DEFAULT_MAX_CHARS = 20_000
#: The largest ``max_chars`` accepted: spaCy refuses longer texts (error E088).
MAX_MAX_CHARS = 1_000_000
#: Longer ids are not ids (and Neo4j cannot index them): such records are skipped.
MAX_ID_CHARS = 256
#: Years outside this range are not publication years: such records are skipped.
YEARS = range(1900, 2101)

_HEADER_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_HEADER_VENUE = re.compile(r"[A-Za-z][A-Za-z&\-]*[A-Za-z]")
_HEADER_STOPWORDS = {"papers", "paper", "list", "abstracts", "abstract", "accepted", "proceedings", "of", "the"}
_SPACES = re.compile(r"\s+")


#: Per file, how many warnings of one kind (a kind of cleaned character, an invalid UTF-8 line)
#: are printed: a corpus where every record has a stray control character would otherwise
#: bury the rest of the output. The others are logged at INFO (``paperkg --all-warnings``
#: prints them), counted in one summary line per kind after the file, and all are kept in
#: ``ReadResult.warnings`` (``ExtractResult.warnings`` in the API).
SHOWN_PER_KIND = 5
_SKIPPED = "skipped: "


@dataclass
class ReadResult:
    """Papers in input order plus everything that was skipped or warned about."""

    papers: list[Paper] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    read: int = 0
    #: The input files, in reading order (folders expanded).
    files: list[Path] = field(default_factory=list)
    #: ``(source, paper id)`` of the records left out by ``read_papers(exclude=...)``.
    excluded: list[tuple[str, str]] = field(default_factory=list)
    #: source -> kind -> [warnings, characters], for the file being read
    tally: dict[str, dict[str, list[int]]] = field(default_factory=dict, repr=False)

    def report(self) -> ReadReport:
        return ReadReport(read=self.read, written=len(self.papers), skipped=tuple(self.skipped))

    def warn(self, source: str, line: int, message: str, kinds: Counter | None = None) -> None:
        """A warning naming file and line. With ``kinds`` ({kind: characters}) it is one of a
        repeated kind: printed while some kind of it has had fewer than :data:`SHOWN_PER_KIND`
        warnings in this file, else only counted for :meth:`summarize` (and logged at INFO)."""
        text = f"{source}:{line}: {message}"
        self.warnings.append(text)
        self._say(source, text, kinds)

    def _say(self, source: str, text: str, kinds: Counter | dict | None) -> None:
        shown = not kinds
        for kind, characters in (kinds or {}).items():
            counts = self.tally.setdefault(source, {}).setdefault(kind, [0, 0])
            counts[0] += 1
            counts[1] += characters
            shown = shown or counts[0] <= SHOWN_PER_KIND
        log.log(logging.WARNING if shown else logging.INFO, text)

    def summarize(self, source: str) -> None:
        """One warning per kind whose warnings about ``source`` were not all printed."""
        tally = self.tally.pop(source, {})
        if log.isEnabledFor(logging.INFO):  # every warning was printed
            return
        for kind, (count, characters) in sorted(tally.items()):
            if count > SHOWN_PER_KIND:
                if kind.startswith(_SKIPPED):
                    what = f"records skipped ({kind[len(_SKIPPED):]})"
                elif kind == UTF8:
                    what = "lines with invalid UTF-8 bytes replaced with U+FFFD"
                else:
                    what = f"records with {describe(Counter({kind: characters}))} removed or replaced"
                log.warning(f"{source}: {count:,} {what} in all; the first {SHOWN_PER_KIND} are listed "
                            "above (paperkg --all-warnings lists every one)")

    def note(self, source: str, message: str) -> None:
        """A warning about a whole file or folder entry (no line)."""
        text = f"{source}: {message}"
        self.warnings.append(text)
        log.warning(text)

    def skip(self, source: str, line: int, reason: str, kind: str) -> None:
        """A record not kept, with its reason; printed like a repeated warning of ``kind``."""
        self.skipped.append(Skipped(source=source, line=line, reason=reason))
        self._say(source, f"{source}:{line}: skipped: {reason}", {_SKIPPED + kind: 0})


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


def iter_input_files(paths: Iterable[str | Path], result: ReadResult | None = None) -> Iterator[Path]:
    """Expand files and folders: a folder's ``.txt``, ``.jsonl``, ``.json`` and ``.csv`` files
    (each also ``.gz``), subfolders included, in sorted path order.

    Hidden entries (names starting with ``.``) are left out. Inside a folder, broken symbolic
    links, links to folders, FIFOs, sockets and devices are reported (a warning naming the path)
    and skipped; given directly, they are an :class:`~paperkg.errors.InputError` (a FIFO is never
    opened, so it cannot hang the run).
    """
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = _folder_files(path, result)
            if not found:
                raise InputError(f"{path}: folder holds no {SUFFIX_TEXT} files (subfolders included)")
            yield from found
            continue
        problem = _not_a_file(path)
        if problem:
            raise InputError(f"{path}: {problem}")
        if input_format(path) is None:
            raise InputError(f"{path}: unsupported file type {path.suffix or '(none)'!r}; use {SUFFIX_TEXT}")
        yield path


def _not_a_file(path: Path) -> str | None:
    """Why ``path`` cannot be read as an input file, or None when it is a regular file."""
    if path.is_file():
        return None
    if path.is_symlink() and not path.exists():
        return f"broken symbolic link (to {os.readlink(path)})"
    if not path.exists():
        return "no such file or directory"
    if path.is_dir():
        return "a folder"
    mode = path.stat().st_mode
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
    return f"not a regular file ({kind})"


def _folder_files(folder: Path, result: ReadResult | None) -> list[Path]:
    found: list[Path] = []

    def report(path: Path, message: str) -> None:
        if result is not None:
            result.note(str(path), f"skipped: {message}")

    for root, dirs, files in os.walk(folder, onerror=lambda exc: report(Path(exc.filename or folder), f"cannot list: {exc.strerror}")):
        base = Path(root)
        kept_dirs = []
        for name in sorted(dirs):
            if name.startswith("."):
                continue
            if (base / name).is_symlink():
                report(base / name, "symbolic link to a folder, not followed")
                continue
            kept_dirs.append(name)
        dirs[:] = kept_dirs
        for name in sorted(files):
            path = base / name
            if name.startswith(".") or input_format(path) is None:
                continue
            problem = _not_a_file(path)
            if problem:
                report(path, problem)
                continue
            found.append(path)
    return sorted(found, key=lambda p: p.relative_to(folder).parts)


def _as_tuple(value: object) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else [value]
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if v is not None and str(v).strip())
    return (str(value),)


def _clean_value(value: object, counts: Counter) -> object:
    """``value`` with :func:`~paperkg.extract.read.sanitize.clean_text` applied to every string in it."""
    if isinstance(value, str):
        return clean_text(value, counts)
    if isinstance(value, list):
        return [_clean_value(item, counts) for item in value]
    return value


def _parse_year(value: object) -> int | None:
    """The year as an int in ``YEARS``, None when absent; raises ValueError with the reason.

    >>> _parse_year(" 2024 "), _parse_year(""), _parse_year(2024.0), _parse_year("2024.0")
    (2024, None, 2024, 2024)
    >>> for bad in (True, 1e30, "soon", 99999):
    ...     try:
    ...         _parse_year(bad)
    ...     except ValueError as exc:
    ...         print(exc)
    year True is not an integer
    year 1e+30 is outside 1900-2100
    year 'soon' is not an integer
    year 99999 is outside 1900-2100
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"year {value!r} is not an integer")
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError(f"year {value!r} is not an integer")
        if not YEARS[0] <= value <= YEARS[-1]:
            raise ValueError(f"year {value!r} is outside {YEARS[0]}-{YEARS[-1]}")
        value = int(value)
    elif isinstance(value, str):
        text = value.strip()
        # "2024.0" is how spreadsheets and pandas write an integer column that has gaps.
        if not re.fullmatch(r"[0-9]{1,9}(?:\.0*)?", text):
            raise ValueError(f"year {value!r} is not an integer")
        value = int(text.split(".")[0])
    if value not in YEARS:
        raise ValueError(f"year {value!r} is outside {YEARS[0]}-{YEARS[-1]}")
    return value


class _Collector:
    """Applies the per-record rules shared by all formats: cleaning, checks, ids, duplicates."""

    def __init__(self, result: ReadResult, max_chars: int, exclude: frozenset = frozenset()) -> None:
        self.result = result
        self.max_chars = max_chars
        self.exclude = exclude
        self.by_hash: dict[str, int] = {}  # abstract digest -> index in result.papers
        self.by_id: dict[str, Paper] = {}
        self.counts: Counter = Counter()  # characters cleaned in the current record, by kind

    def add(self, record: dict, source: str, line: int, defaults: dict) -> None:
        result = self.result
        result.read += 1
        counts = self.counts
        counts.clear()
        record = {name: _clean_value(value, counts) for name in FIELDS if (value := record.get(name)) is not None}
        problem = self._problem(record)
        if problem:
            result.skip(source, line, problem, "unusable record")
            return
        abstract = record["abstract"]
        digest = paper_id_for(abstract)
        given_id = _id_text(record.get("id"))
        if self.exclude and ((source, given_id or digest) in self.exclude or (None, given_id or digest) in self.exclude):
            # Left out before the duplicate checks: the rest read as if the record were not there.
            result.excluded.append((source, given_id or digest))
            return
        if counts:
            result.warn(source, line, f"removed or replaced {describe(counts)}", counts)
        if digest in self.by_hash:
            self._duplicate_abstract(self.by_hash[digest], given_id, source, line)
            return
        paper_id = given_id or digest
        if paper_id in self.by_id:
            first = self.by_id[paper_id]
            result.skip(source, line, f"duplicate id {paper_id!r} with a different abstract ({first.source}:{first.line})",
                        "duplicate id")
            return
        try:
            year = _parse_year(record.get("year", defaults.get("year")))
        except ValueError as exc:
            result.skip(source, line, str(exc), "bad year")
            return
        paper = Paper(
            id=paper_id,
            abstract=abstract,
            title=_text_field(record.get("title")),
            venue=_text_field(record.get("venue")) or defaults.get("venue"),
            year=year,
            url=_text_field(record.get("url")),
            authors=_as_tuple(record.get("authors")),
            keywords=_as_tuple(record.get("keywords")),
            source=source,
            line=line,
        )
        self.by_hash[digest] = len(result.papers)
        self.by_id[paper_id] = paper
        result.papers.append(paper)

    def _problem(self, record: dict) -> str | None:
        """Why a (cleaned) record cannot become a paper, or None."""
        abstract = record.get("abstract")
        if abstract is None:
            return "no 'abstract' field"
        if not isinstance(abstract, str):
            return f"'abstract' is {type(abstract).__name__}, not text"
        if not abstract.strip():
            return "empty abstract"
        for name, value in record.items():
            size = len(value) if isinstance(value, str) else sum(len(str(v)) for v in value) if isinstance(value, list) else 0
            if size > self.max_chars:
                what = "abstract" if name == "abstract" else f"field {name!r}"
                return f"{what} is {size:,} characters, over the {self.max_chars:,} limit"
        given = record.get("id")
        if given is not None:
            if isinstance(given, bool) or not isinstance(given, (str, int)):
                return f"'id' is {type(given).__name__}, not text"
            if len(str(given).strip()) > MAX_ID_CHARS:
                return f"id is {len(str(given).strip()):,} characters, over the {MAX_ID_CHARS} limit"
        return None

    def _duplicate_abstract(self, index: int, given_id: str | None, source: str, line: int) -> None:
        result = self.result
        first = result.papers[index]
        where = f"duplicate abstract of paper {first.id} ({first.source}:{first.line})"
        if given_id and given_id != first.id and given_id not in first.aliases:
            if given_id in self.by_id:
                other = self.by_id[given_id]
                result.skip(source, line, f"{where}; its id {given_id!r} is already paper {other.id} ({other.source}:{other.line})",
                            "duplicate abstract")
                return
            first = replace(first, aliases=first.aliases + (given_id,))
            result.papers[index] = first
            self.by_id[given_id] = first
            result.skip(source, line, f"{where}; its id {given_id!r} is kept as an alias of that paper", "duplicate abstract")
            return
        result.skip(source, line, where, "duplicate abstract")


def _id_text(value: object) -> str | None:
    return _text_field(str(value)) if value is not None else None


def _text_field(value: object) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _paragraphs(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Blank-line separated paragraphs with the line number of their first line, in one pass."""
    start = None
    for index, line in enumerate(lines + [""]):
        blank = not line.strip(" \t\f\v")
        if blank and start is not None:
            text = "\n".join(lines[start:index])
            stripped = text.strip()
            if stripped:
                skipped_lines = text[: len(text) - len(text.lstrip())].count("\n")
                yield start + skipped_lines + 1, stripped
            start = None
        elif not blank and start is None:
            start = index


def _read_text(path: Path, collector: _Collector) -> None:
    result = collector.result
    source = str(path)
    paragraphs = list(_paragraphs(decode_lines(path, result)))
    if not paragraphs:
        result.warn(source, 1, "file is empty: no header and no abstracts")
        return
    defaults: dict = {}
    first_line, first = paragraphs[0]
    if looks_like_header(first):
        venue, year = parse_header(clean_text(first))
        defaults = {"venue": venue, "year": year}
        paragraphs = paragraphs[1:]
    else:
        result.warn(source, first_line, "no header line naming venue and year; venue and year left empty")
    if not paragraphs:
        result.warn(source, first_line, "file has a header but no abstracts")
    for line, paragraph in paragraphs:
        collector.add({"abstract": paragraph}, source, line, defaults)


_READERS = {".txt": _read_text, ".jsonl": read_jsonl, ".json": read_json, ".csv": read_csv}


def read_papers(paths: Iterable[str | Path], *, max_chars: int = DEFAULT_MAX_CHARS,
                exclude: Iterable[tuple[str | None, str]] = ()) -> ReadResult:
    """Read every input into papers, in input order, collapsing duplicate abstracts.

    ``exclude`` holds ``(file, paper id)`` pairs (``file`` as the path reads, ``None`` for any
    file) whose records are left out as if they were not in the file (``paperkg remove``); the
    pairs that matched are ``result.excluded``.

    Raises :class:`~paperkg.errors.InputError` for a missing path, an unsupported file type, or
    when nothing at all could be read.
    """
    if not 1 <= max_chars <= MAX_MAX_CHARS:
        raise InputError(f"max_chars {max_chars} is outside 1-{MAX_MAX_CHARS:,}")
    result = ReadResult()
    files = result.files = list(iter_input_files(paths, result))
    if not files:
        raise InputError("no input files given")
    collector = _Collector(result, max_chars, frozenset(exclude))
    for path in files:
        _READERS[input_format(path)](path, collector)
        result.summarize(str(path))
    if not result.papers:
        names = ", ".join(str(p) for p in files)
        raise InputError(f"{names}: no abstracts found ({result.read} records read, {len(result.skipped)} skipped)")
    return result
