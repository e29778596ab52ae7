"""Typed records that cross stage boundaries (readers -> extraction -> graph -> exports).

Raw dicts and spaCy ``Doc`` objects never leave a stage; these frozen dataclasses do. The
per-paper ones have slots: a 95k-paper build holds millions of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Literal, TypeVar

EntityType = Literal["Method", "Dataset", "Benchmark", "Task", "Metric"]
Role = Literal["proposed", "used", "mentioned"]

#: The closed set of entity types; Neo4j labels are taken from here and nowhere else.
ENTITY_TYPES: tuple[str, ...] = ("Method", "Dataset", "Benchmark", "Task", "Metric")
#: Roles, strongest first: a paper that proposes X and also uses X proposes it.
ROLES: tuple[str, ...] = ("proposed", "used", "mentioned")
#: What a paper-paper link rests on (see :class:`Link`).
LINK_KINDS: tuple[str, ...] = ("both", "text", "entities")

_Slotted = TypeVar("_Slotted")


def _quick_pickle(cls: type[_Slotted]) -> type[_Slotted]:
    """Pickle a frozen slotted dataclass by its field values in field order, as the dataclass's
    own ``__getstate__`` does, without calling ``dataclasses.fields`` per object: the records
    go through pickle twice in a build (from the forked processes, to the spill), and that call
    was a third of the graph step's CPU.

    >>> import pickle
    >>> m = Mention(0, 3, "SAC", "Method", "sac", "used", "SAC works.")
    >>> pickle.loads(pickle.dumps(m)) == m
    True
    """
    names = tuple(f.name for f in fields(cls))
    values = attrgetter(*names)

    def __getstate__(self) -> tuple:
        return values(self)

    def __setstate__(self, state: tuple) -> None:
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)

    cls.__getstate__, cls.__setstate__ = __getstate__, __setstate__
    return cls


@_quick_pickle
@dataclass(frozen=True, slots=True)
class Paper:
    """One abstract as read from an input file.

    ``source`` and ``line`` say where it came from, so every later message can point back at
    the input (``line`` is 1-based: the JSONL/CSV row or the first line of the paragraph).
    ``aliases`` are the explicit ids of later records with the same abstract (one paper, every id kept).
    """

    id: str
    abstract: str
    title: str | None = None
    venue: str | None = None
    year: int | None = None
    url: str | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    source: str = ""
    line: int = 0
    aliases: tuple[str, ...] = ()


@_quick_pickle
@dataclass(frozen=True, slots=True)
class Mention:
    """One typed span in one abstract. Offsets index ``Paper.abstract`` exactly.

    ``nested`` marks a mention strictly inside another, different span of the same paper (both
    are kept; flat gold sees only the outer one); a span is never listed twice. ``origin`` says which source found it: abbreviation, proposal, model, gazetteer.
    """

    start: int
    end: int
    text: str
    type: str
    key: str
    role: str
    sentence: str
    origin: str = "rule"
    nested: bool = False


@_quick_pickle
@dataclass(frozen=True, slots=True)
class PaperEntity:
    """A canonical entity as it occurs in one paper: all its mentions (one per distinct span),
    one role, one evidence; the ids of the known-list record it matches, if any; and the
    normalized keys of every written form of it in this paper (``alias_keys``); ``confidence``, the
    estimated probability that it is right (:mod:`paperkg.extract.resolve.confidence`; None
    without a trained model)."""

    key: str
    name: str
    type: str
    role: str
    mentions: tuple[Mention, ...]
    evidence: str
    pwc_id: str | None = None
    codesota_id: str | None = None
    area: str | None = None
    record_url: str | None = None
    alias_keys: tuple[str, ...] = ()
    confidence: float | None = None

    @property
    def count(self) -> int:
        return len(self.mentions)


#: Result kinds: a value reached, or a difference or factor against something else.
RESULT_KINDS: tuple[str, ...] = ("score", "gain")
#: A result's slots, each the key of one of the paper's entities (or None).
RESULT_SLOTS: tuple[str, ...] = ("metric", "dataset", "method", "task")
#: Result slot -> the kind of the graph edge from a Result node to the entity in that slot.
RESULT_EDGES: dict[str, str] = {"metric": "MEASURED_BY", "dataset": "ON_DATASET", "method": "ACHIEVED_BY",
                                "task": "FOR_TASK"}


@_quick_pickle
@dataclass(frozen=True, slots=True)
class Result:
    """One number an abstract reports as a result (:mod:`paperkg.extract.results`).

    ``start``/``end``/``text``: the value as written, offsets into the abstract; ``number`` its
    parse (a range's low end, ``upper`` its high end) and ``unit`` one of ``%``, ``x``,
    ``points``, ``absolute``; ``kind`` one of :data:`RESULT_KINDS`; the slots hold entity keys
    of the same paper or None; ``evidence`` is the sentence.
    """

    start: int
    end: int
    text: str
    number: float
    unit: str
    kind: str
    metric: str | None
    dataset: str | None
    method: str | None
    task: str | None
    evidence: str
    upper: float | None = None


@_quick_pickle
@dataclass(frozen=True, slots=True)
class Extraction:
    """What extraction yields for one paper: the paper, a readable label, its entities and the
    results it reports."""

    paper: Paper
    label: str
    entities: tuple[PaperEntity, ...]
    results: tuple[Result, ...] = ()


@dataclass(frozen=True)
class Entity:
    """A canonical concept across papers: one graph node."""

    key: str
    name: str
    type: str
    aliases: tuple[str, ...] = ()
    paper_count: int = 0


@dataclass(frozen=True)
class Link:
    """A paper-paper link (undirected; ``source < target`` node ids) and what it rests on.

    ``kind``: ``both`` (similar text and shared specific entities), ``text`` (similar text
    alone) or ``entities`` (shared entities of papers without text). ``weight``: the text
    cosine (for ``entities``, the entity cosine). ``shared`` holds entity keys, strongest
    contribution first; ``evidence`` the same entities as ``{"key", "name", "type", "papers",
    "contribution"}`` dicts (each its term of the entity cosine); ``terms`` the shared words that
    weigh most in the text cosine; ``reason`` is one line naming the strongest of both.
    """

    source: str
    target: str
    weight: float
    shared: tuple[str, ...] = field(default=())
    evidence: tuple[dict, ...] = field(default=())
    reason: str = ""
    kind: str = "entities"
    terms: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Skipped:
    """An input record that was read but not kept, and why (reported, never silent)."""

    source: str
    line: int
    reason: str


@dataclass(frozen=True)
class ReadReport:
    """Counts of one read: ``read == written + len(skipped)`` always holds."""

    read: int
    written: int
    skipped: tuple[Skipped, ...]
