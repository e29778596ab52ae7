"""The gazetteer: known names with their type and aliases, shipped as TSV under ``data/``.

``curated.tsv`` is written by hand (canonical name, then aliases); ``pwc.tsv`` is derived from
the Papers-with-Code task lists (CC BY-SA 4.0) by ``scripts/build_gazetteer.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from paperkg.errors import ExtractionError
from paperkg.types import ENTITY_TYPES

GAZETTEER_FILES = ("curated.tsv", "pwc.tsv")


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


@lru_cache(maxsize=1)
def load_gazetteer() -> tuple[GazetteerEntry, ...]:
    """Every shipped entry; the curated file wins where both name the same surface form."""
    seen: set[str] = set()
    entries: list[GazetteerEntry] = []
    data = resources.files("paperkg.extract") / "data"
    for name in GAZETTEER_FILES:
        text = (data / name).read_text(encoding="utf-8")
        for entry in parse_gazetteer(text.splitlines(), name):
            if entry.surface not in seen:
                seen.add(entry.surface)
                entries.append(entry)
    return tuple(entries)
