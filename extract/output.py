"""The mentions JSONL contract written by ``paperkg extract`` (and by ``paperkg build``).

One line per paper, in input order::

    {"paper_id": "...", "title": "... or null", "entities": [
      {"name": "canonical name", "type": "Method|Dataset|Benchmark|Task|Metric",
       "role": "proposed|used|mentioned",
       "mentions": [{"start": 0, "end": 0, "text": "..."}]}]}

Extra fields (``label``; an entity's ``key``, ``evidence``, ``pwc_id``, ``codesota_id``,
``area`` and ``record_url``; a mention's ``role`` and ``nested``) are additions. Each entity
lists one mention per distinct occurrence; ``nested`` is true only for a mention strictly inside
another, different span of the same abstract.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from paperkg.types import Extraction


def extraction_record(extraction: Extraction) -> dict:
    """The JSON object for one paper."""
    return {
        "paper_id": extraction.paper.id,
        "title": extraction.paper.title,
        "label": extraction.label,
        "entities": [
            {
                "name": entity.name,
                "type": entity.type,
                "role": entity.role,
                "key": entity.key,
                "evidence": entity.evidence,
                "pwc_id": entity.pwc_id,
                "codesota_id": entity.codesota_id,
                "area": entity.area,
                "record_url": entity.record_url,
                "mentions": [
                    {"start": m.start, "end": m.end, "text": m.text, "role": m.role, "nested": m.nested}
                    for m in entity.mentions
                ],
            }
            for entity in extraction.entities
        ],
    }


def write_mentions_jsonl(extractions: Iterable[Extraction], path: str | Path) -> Path:
    """Write the contract file; returns its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for extraction in extractions:
            handle.write(json.dumps(extraction_record(extraction), ensure_ascii=False) + "\n")
    return path
