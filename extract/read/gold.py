"""Reading the annotated gold files (``../shared/data/gold``): the span format of SciERC, FTD,
TDMSci and SciREX, and paperkg's paper-level format, each checked as it is read.

Every problem is an :class:`~paperkg.errors.EvaluationError` naming the file and the line. Training
(:mod:`paperkg.extract.learn`) and scoring (:mod:`paperkg.extract.evaluate`) read gold through here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paperkg.errors import EvaluationError
from paperkg.types import ENTITY_TYPES, RESULT_KINDS, RESULT_SLOTS, ROLES, Paper

#: Labels of the gold files, in report order. ``OTHER`` exists in the gold but is never scored.
SCORED_LABELS: tuple[str, ...] = ("METHOD", "TASK", "DATASET", "METRIC")
GOLD_LABELS: frozenset[str] = frozenset((*SCORED_LABELS, "OTHER"))




@dataclass(frozen=True)
class GoldEntity:
    """One annotated span; ``text == doc.text[start:end]`` is checked on reading."""

    start: int
    end: int
    label: str
    text: str
    orig_label: str = ""


@dataclass(frozen=True)
class GoldDoc:
    """One gold document. ``source``/``line`` (1-based) point back at the JSONL line."""

    id: str
    text: str
    entities: tuple[GoldEntity, ...]
    source: str = ""
    line: int = 0


def fail(path: Path | str, line: int, message: str) -> EvaluationError:
    return EvaluationError(f"{path}:{line}: {message}")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def entity_object(raw: Any, fields: Sequence[str], path: Path, line: int, index: int) -> str:
    """Check that gold entity #``index`` is a JSON object with ``fields``; its name for errors."""
    where = f"entity #{index}"
    if not isinstance(raw, dict):
        raise fail(path, line, f"{where} is not a JSON object")
    for key in fields:
        if key not in raw:
            raise fail(path, line, f"{where} has no {key!r} field")
    return where


def _parse_entity(raw: Any, text: str, path: Path, line: int, index: int) -> GoldEntity:
    where = entity_object(raw, ("start", "end", "label", "text"), path, line, index)
    start, end, label, span_text = raw["start"], raw["end"], raw["label"], raw["text"]
    if not is_int(start) or not is_int(end):
        raise fail(path, line, f"{where}: 'start' and 'end' must be integers")
    if not 0 <= start < end <= len(text):
        raise fail(
            path, line, f"{where}: offsets [{start}, {end}) are not a non-empty range in the text "
            f"(length {len(text)})"
        )
    if label not in GOLD_LABELS:
        raise fail(
            path, line, f"{where}: unknown label {label!r} (expected one of {sorted(GOLD_LABELS)})"
        )
    if not isinstance(span_text, str):
        raise fail(path, line, f"{where}: 'text' must be a string")
    if text[start:end] != span_text:
        raise fail(
            path, line, f"{where}: text[{start}:{end}] is {text[start:end]!r}, but the entity "
            f"says {span_text!r}"
        )
    orig = raw.get("orig_label", "")
    if not isinstance(orig, str):
        raise fail(path, line, f"{where}: 'orig_label' must be a string")
    return GoldEntity(start=start, end=end, label=label, text=span_text, orig_label=orig)


def json_records(path: Path | str, required: Sequence[str]) -> Iterator[tuple[int, dict]]:
    """``(line number, record)`` of every non-blank line of a JSONL gold file, each checked to
    be a JSON object with the ``required`` fields; errors name the file and the line."""
    path = Path(path)
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise EvaluationError(f"{path}: cannot read gold file: {exc.strerror or exc}") from exc
    with handle:
        try:
            for line_no, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    raw = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise fail(path, line_no, f"invalid JSON: {exc.msg}") from exc
                if not isinstance(raw, dict):
                    raise fail(path, line_no, "a line must be a JSON object")
                for key in required:
                    if key not in raw:
                        raise fail(path, line_no, f"missing required field {key!r}")
                yield line_no, raw
        except UnicodeDecodeError as exc:
            raise EvaluationError(f"{path}: not UTF-8 text: {exc.reason}") from exc


def read_gold(path: Path | str) -> list[GoldDoc]:
    """Read and validate a gold JSONL file.

    Every line must be a JSON object with a non-empty string ``id`` (unique in the file), a
    string ``text`` and a list ``entities`` whose items have integer ``start``/``end`` inside
    the text, a known ``label`` and ``text == text[start:end]``. Blank lines are skipped.

    Raises :class:`~paperkg.errors.EvaluationError` naming the file and line on the first
    problem, and when the file is missing, unreadable or holds no document.
    """
    path = Path(path)
    docs: list[GoldDoc] = []
    seen: dict[str, int] = {}
    for line_no, raw in json_records(path, ("id", "text", "entities")):
        doc_id, text, entities = raw["id"], raw["text"], raw["entities"]
        if not isinstance(doc_id, str) or not doc_id:
            raise fail(path, line_no, "'id' must be a non-empty string")
        if doc_id in seen:
            raise fail(
                path, line_no, f"duplicate id {doc_id!r} (first on line {seen[doc_id]})"
            )
        if not isinstance(text, str):
            raise fail(path, line_no, "'text' must be a string")
        if not isinstance(entities, list):
            raise fail(path, line_no, "'entities' must be a list")
        parsed = tuple(
            _parse_entity(ent, text, path, line_no, i) for i, ent in enumerate(entities)
        )
        seen[doc_id] = line_no
        docs.append(
            GoldDoc(id=doc_id, text=text, entities=parsed, source=str(path), line=line_no)
        )
    if not docs:
        raise EvaluationError(f"{path}: gold file holds no document")
    return docs


def annotated_labels(gold_docs: Iterable[GoldDoc]) -> tuple[str, ...]:
    """The scored labels the gold actually uses, in :data:`SCORED_LABELS` order."""
    used = {ent.label for doc in gold_docs for ent in doc.entities}
    return tuple(label for label in SCORED_LABELS if label in used)


@dataclass(frozen=True)
class GoldPaperEntity:
    """One canonical entity of one gold paper; ``mentions`` are ``(start, end)`` pairs."""

    name: str
    type: str
    role: str
    core: bool
    mentions: tuple[tuple[int, int], ...]
    aliases: tuple[str, ...] = ()
    alt_type: str | None = None


@dataclass(frozen=True)
class GoldResult:
    """One annotated result: the value's offsets and text, its kind, and the four slots as
    names of entities of the same gold paper (or None)."""

    start: int
    end: int
    text: str
    kind: str
    metric: str | None = None
    dataset: str | None = None
    method: str | None = None
    task: str | None = None


@dataclass(frozen=True)
class GoldPaper:
    """One gold paper: ``paper`` carries id, title and abstract; ``line`` is 1-based.
    ``results`` is None when the record has no ``results`` field (not annotated for them)."""

    paper: Paper
    entities: tuple[GoldPaperEntity, ...]
    line: int = 0
    results: tuple[GoldResult, ...] | None = None


def is_paper_level(path: Path | str) -> bool:
    """True when the first record of a gold JSONL file is in the paper-level format
    (``abstract`` plus entities with ``name``/``mentions``), False for the span format."""
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    try:
                        raw = json.loads(line)
                    except json.JSONDecodeError:
                        return False
                    return isinstance(raw, dict) and "abstract" in raw and "text" not in raw
    except (OSError, UnicodeDecodeError):
        return False
    return False


def _parse_paper_entity(raw: Any, abstract: str, path: Path, line: int, index: int) -> GoldPaperEntity:
    where = entity_object(raw, ("name", "type", "role", "mentions"), path, line, index)
    if raw["type"] not in ENTITY_TYPES or (raw.get("alt_type") and raw["alt_type"] not in ENTITY_TYPES):
        raise fail(path, line, f"{where}: unknown type {raw['type']!r} (expected one of {list(ENTITY_TYPES)})")
    if raw["role"] not in ROLES:
        raise fail(path, line, f"{where}: unknown role {raw['role']!r} (expected one of {list(ROLES)})")
    spans = []
    for mention in raw["mentions"] if isinstance(raw["mentions"], list) else [None]:
        if not isinstance(mention, dict) or not all(k in mention for k in ("start", "end", "text")):
            raise fail(path, line, f"{where}: a mention needs 'start', 'end' and 'text'")
        start, end = mention["start"], mention["end"]
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(abstract)):
            raise fail(path, line, f"{where}: offsets [{start}, {end}) are not a range in the abstract")
        if abstract[start:end] != mention["text"]:
            raise fail(
                path, line, f"{where}: abstract[{start}:{end}] is {abstract[start:end]!r}, "
                f"but the mention says {mention['text']!r}"
            )
        spans.append((start, end))
    aliases = raw.get("aliases") or []
    return GoldPaperEntity(
        name=str(raw["name"]),
        type=raw["type"],
        role=raw["role"],
        core=bool(raw.get("core", False)),
        mentions=tuple(spans),
        aliases=tuple(str(a) for a in aliases),
        alt_type=raw.get("alt_type") or None,
    )


def _parse_result(raw: Any, abstract: str, names: set[str], path: Path, line: int, index: int) -> GoldResult:
    where = f"result #{index}"
    value = raw.get("value") if isinstance(raw, dict) else None
    if not isinstance(value, dict) or not all(k in value for k in ("start", "end", "text")):
        raise fail(path, line, f"{where} needs a 'value' with 'start', 'end' and 'text'")
    start, end = value["start"], value["end"]
    if not (is_int(start) and is_int(end) and 0 <= start < end <= len(abstract)) or abstract[start:end] != value["text"]:
        raise fail(path, line, f"{where}: value offsets [{start}, {end}) do not give {value['text']!r}")
    if raw.get("kind") not in RESULT_KINDS:
        raise fail(path, line, f"{where}: kind {raw.get('kind')!r} is not 'score' or 'gain'")
    slots = {slot: raw.get(slot) for slot in RESULT_SLOTS}
    for slot, name in slots.items():
        if name is not None and name not in names:
            raise fail(path, line, f"{where}: {slot} {name!r} is not the name of an entity of the record")
    return GoldResult(start, end, value["text"], raw["kind"], **slots)


def read_paper_gold(path: Path | str) -> list[GoldPaper]:
    """Read and validate a paper-level gold JSONL file (every offset is checked).

    Raises :class:`~paperkg.errors.EvaluationError` naming file and line on the first problem.
    """
    path = Path(path)
    papers: list[GoldPaper] = []
    seen: set[str] = set()
    for line_no, raw in json_records(path, ("id", "abstract", "entities")):
        if not isinstance(raw["abstract"], str) or not isinstance(raw["entities"], list):
            raise fail(path, line_no, "'abstract' must be a string and 'entities' a list")
        paper_id = str(raw["id"])
        if paper_id in seen:
            raise fail(path, line_no, f"duplicate id {paper_id!r}")
        seen.add(paper_id)
        entities = tuple(
            _parse_paper_entity(ent, raw["abstract"], path, line_no, i) for i, ent in enumerate(raw["entities"])
        )
        paper = Paper(id=paper_id, abstract=raw["abstract"], title=raw.get("title") or None, venue=raw.get("venue"))
        results = None
        if "results" in raw:
            if not isinstance(raw["results"], list):
                raise fail(path, line_no, "'results' must be a list")
            names = {e.name for e in entities}
            results = tuple(_parse_result(r, raw["abstract"], names, path, line_no, i) for i, r in enumerate(raw["results"]))
        papers.append(GoldPaper(paper=paper, entities=entities, line=line_no, results=results))
    if not papers:
        raise EvaluationError(f"{path}: gold file holds no paper")
    return papers


