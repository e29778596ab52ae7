"""The gazetteer: known names with their type and aliases, shipped as TSV under ``data/``.

``curated.tsv`` is written by hand (canonical name, then aliases); ``pwc.tsv`` is derived from
the Papers-with-Code task lists (CC BY-SA 4.0) and ``known.tsv`` from the Papers with Code
methods (CC BY-SA 4.0) and the CodeSOTA registry (CC BY 4.0), both by
``scripts/build_gazetteer.py``. A ``known.tsv`` record also carries the id, area and archived
record URL that entities matching it carry into every export.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from paperkg.errors import ExtractionError
from paperkg.types import ENTITY_TYPES

GAZETTEER_FILES = ("curated.tsv", "pwc.tsv")
KNOWN_FILE = "known.tsv"
#: Known-list sources whose names are looked up by key only, never matched in text ("map" is a
#: metric id but mostly an ordinary word).
KEY_ONLY_SOURCES = frozenset({"codesota-metric"})


@dataclass(frozen=True)
class GazetteerEntry:
    """One surface form: the text to match, its type and the canonical name it stands for."""

    surface: str
    type: str
    canonical: str

    @property
    def case_sensitive(self) -> bool:
        """Names with capitals match as written ("ARC" is not "arc"); lower-case ones match any case."""
        return self.surface != self.surface.lower()


def parse_gazetteer(lines: list[str], source: str) -> list[GazetteerEntry]:
    """Parse ``type<TAB>canonical[<TAB>alias|alias...]`` lines, naming the line of any error.

    >>> [e.surface for e in parse_gazetteer(["Method\\tsoft actor-critic\\tSAC"], "x.tsv")]
    ['soft actor-critic', 'SAC']
    """
    entries: list[GazetteerEntry] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) not in (2, 3) or fields[0] not in ENTITY_TYPES or not fields[1].strip():
            raise ExtractionError(f"{source}:{number}: expected 'Type<TAB>name[<TAB>aliases]', got {line!r}")
        kind, canonical = fields[0], fields[1].strip()
        entries.append(GazetteerEntry(canonical, kind, canonical))
        if len(fields) == 3:
            for alias in fields[2].split("|"):
                if alias.strip():
                    entries.append(GazetteerEntry(alias.strip(), kind, canonical))
    return entries


@dataclass(frozen=True)
class KnownRecord:
    """A name from the Papers with Code methods or the CodeSOTA registry."""

    type: str
    name: str
    aliases: tuple[str, ...]
    source: str
    id: str | None
    area: str | None
    record_url: str | None

    @property
    def pwc_id(self) -> str | None:
        return self.id if self.source == "pwc" else None

    @property
    def codesota_id(self) -> str | None:
        return self.id if self.source == "codesota" else None


def parse_known(lines: list[str], source: str) -> list[KnownRecord]:
    """Parse ``type, name, aliases, source, id, area, record_url`` TSV lines.

    >>> line = "\\t".join(["Method", "Proximal Policy Optimization", "PPO", "pwc", "ppo", "RL", "https://x"])
    >>> parse_known([line], "k.tsv")[0].pwc_id
    'ppo'
    """
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) != 7 or fields[0] not in ENTITY_TYPES or not fields[1].strip():
            raise ExtractionError(f"{source}:{number}: expected 7 tab-separated fields, got {line!r}")
        kind, name, aliases, origin, ident, area, url = fields
        records.append(KnownRecord(kind, name, tuple(a for a in aliases.split("|") if a), origin, ident or None,
                                   area or None, url or None))
    return records


@lru_cache(maxsize=1)
def load_known() -> tuple[KnownRecord, ...]:
    """Every record of ``known.tsv``."""
    text = (resources.files("paperkg.extract") / "data" / KNOWN_FILE).read_text(encoding="utf-8")
    return tuple(parse_known(text.splitlines(), KNOWN_FILE))


@lru_cache(maxsize=1)
def load_curated() -> tuple[GazetteerEntry, ...]:
    """The hand-written entries of ``curated.tsv`` alone (they outrank every other list)."""
    text = (resources.files("paperkg.extract") / "data" / GAZETTEER_FILES[0]).read_text(encoding="utf-8")
    return tuple(parse_gazetteer(text.splitlines(), GAZETTEER_FILES[0]))


@lru_cache(maxsize=1)
def load_gazetteer() -> tuple[GazetteerEntry, ...]:
    """Every shipped entry matched in text; the curated file wins where two name the same
    surface form, then the PwC task lists, then the known lists."""
    seen: set[str] = set()
    entries: list[GazetteerEntry] = []
    data = resources.files("paperkg.extract") / "data"
    listed = [list(load_curated())]
    listed += [parse_gazetteer((data / name).read_text(encoding="utf-8").splitlines(), name) for name in GAZETTEER_FILES[1:]]
    listed.append([GazetteerEntry(surface, r.type, r.name) for r in load_known() if r.source not in KEY_ONLY_SOURCES
                   for surface in (r.name, *r.aliases)])
    for entry in (entry for group in listed for entry in group):
        if entry.surface not in seen:
            seen.add(entry.surface)
            entries.append(entry)
    return tuple(entries)
