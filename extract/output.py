"""The mentions JSONL contract written by ``paperkg extract`` (and by ``paperkg build``).

One line per paper, in input order::

    {"paper_id": "...", "title": "... or null", "entities": [
      {"name": "canonical name", "type": "Method|Dataset|Benchmark|Task|Metric",
       "role": "proposed|used|mentioned",
       "mentions": [{"start": 0, "end": 0, "text": "..."}]}],
     "results": [
      {"value": {"start": 0, "end": 0, "text": "76.2%"}, "number": 76.2, "upper": null,
       "unit": "%|x|points|absolute", "kind": "score|gain",
       "metric": "key or null", "dataset": "key or null", "method": "key or null",
       "task": "key or null", "evidence": "the sentence"}]}

A result's slots are the ``key`` of one of the same record's entities (or null); ``upper`` is
the high end of a range ("2-3x"), else null. Results are in text order.

Extra fields (``label``; an entity's ``key``, ``evidence``, ``pwc_id``, ``codesota_id``,
``area``, ``record_url`` and ``confidence``; a mention's ``role`` and ``nested``) are additions. Each entity
lists one mention per distinct occurrence; ``nested`` is true only for a mention strictly inside
another, different span of the same abstract. A graph loaded from ``graph.json`` writes the
same file from the graph (:func:`graph_records`), without a mention's ``role`` and ``nested``:
the graph does not keep them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from paperkg.atomic import REPLACE, atomic_open, json_line
from paperkg.types import RESULT_EDGES, RESULT_SLOTS, Extraction, Result


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
                "confidence": entity.confidence,
                "mentions": [
                    {"start": m.start, "end": m.end, "text": m.text, "role": m.role, "nested": m.nested}
                    for m in entity.mentions
                ],
            }
            for entity in extraction.entities
        ],
        "results": [result_record(r) for r in extraction.results],
    }


def result_record(result: Result) -> dict:
    """The JSON object for one result (the ``results`` items of the contract)."""
    return {"value": {"start": result.start, "end": result.end, "text": result.text}, "number": result.number,
            "upper": result.upper, "unit": result.unit, "kind": result.kind,
            **{slot: getattr(result, slot) for slot in RESULT_SLOTS}, "evidence": result.evidence}


def graph_records(graph: Any) -> Iterator[dict]:
    """The contract records of a knowledge graph (schema in ``paperkg.graph``), papers in graph
    order and each paper's entities in edge order (the extraction's order).

    >>> import networkx as nx
    >>> g = nx.DiGraph()
    >>> g.add_node("paper:a", kind="Paper", paper_id="a", title=None, label="SAC")
    >>> g.add_node("entity:sac", kind="Entity", type="Method", key="sac", name="SAC")
    >>> g.add_edge("paper:a", "entity:sac", kind="HAS", role="used", evidence="SAC.", mentions=[[0, 3, "SAC"]])
    >>> next(graph_records(g))["entities"][0]["mentions"]
    [{'start': 0, 'end': 3, 'text': 'SAC'}]
    """
    for node, attrs in graph.nodes(data=True):
        if attrs.get("kind") != "Paper":
            continue
        entities = []
        for _, target, data in graph.out_edges(node, data=True):
            if data.get("kind") != "HAS":
                continue
            entity = graph.nodes[target]
            entities.append({
                "name": entity.get("name"), "type": entity.get("type"), "role": data.get("role"),
                "key": entity.get("key"), "evidence": data.get("evidence"), "confidence": data.get("confidence"),
                **{name: entity.get(name) for name in ("pwc_id", "codesota_id", "area", "record_url")},
                "mentions": [{"start": m[0], "end": m[1], "text": m[2]} for m in data.get("mentions") or []],
            })
        yield {"paper_id": attrs.get("paper_id"), "title": attrs.get("title"), "label": attrs.get("label"),
               "entities": entities, "results": [_graph_result(graph, r) for _, r, kind in graph.out_edges(node, data="kind") if kind == "REPORTS"]}


def _graph_result(graph: Any, node: str) -> dict:
    attrs = graph.nodes[node]
    by_kind = {data["kind"]: graph.nodes[target]["key"] for _, target, data in graph.out_edges(node, data=True)}
    slots = {slot: by_kind.get(kind) for slot, kind in RESULT_EDGES.items()}
    return result_record(Result(start=attrs["start"], end=attrs["end"], text=attrs["value"], number=attrs["number"],
                                unit=attrs["unit"], kind=attrs["result_kind"], evidence=attrs.get("evidence") or "",
                                upper=attrs.get("upper"), **slots))


def write_mentions_jsonl(extractions: Iterable[Extraction], path: str | Path) -> Path:
    """Write the contract file for extraction results; returns its path."""
    return write_records((extraction_record(x) for x in extractions), path)


def write_records(records: Iterable[dict], path: str | Path) -> Path:
    """Write contract records atomically, one JSON line each (a lone surrogate becomes U+FFFD)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "w", errors=REPLACE) as handle:
        for record in records:
            handle.write(json_line(record))
    return path
