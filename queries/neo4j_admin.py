"""Bulk export for ``neo4j-admin database import full``: node and relationship CSVs.

``paperkg export GRAPH_JSON --format neo4j-admin DIR`` writes into ``DIR``:

``papers.csv``       ``id:ID(Paper),:LABEL,title,abstract,venue,year:long,url,label,authors:string[],community:int``
``entities.csv``     ``key:ID(Entity),:LABEL,type,name,aliases:string[],alias_keys:string[],pwc_id,codesota_id,area,record_url,paper_count:long``
``paper_entity.csv`` ``:START_ID(Paper),:END_ID(Entity),:TYPE,count:long,evidence,evidence_offset:long,confidence:double``
``related_to.csv``   ``:START_ID(Paper),:END_ID(Paper),:TYPE,weight:double,shared:string[],reason,evidence``
``results.csv``      ``id:ID(Result),:LABEL,paper_id,index:long,value,start:long,end:long,number:double,upper:double,unit,kind,evidence,direction``
``paper_result.csv`` ``:START_ID(Paper),:END_ID(Result),:TYPE`` (``REPORTS``)
``result_entity.csv`` ``:START_ID(Result),:END_ID(Entity),:TYPE`` (``ON_DATASET``, ``MEASURED_BY``, ``ACHIEVED_BY``, ``FOR_TASK``)
``entity_entity.csv`` ``:START_ID(Entity),:END_ID(Entity),:TYPE,count:long`` (the derived ``EVALUATED_ON``,
                     ``ADDRESSES``, ``MEASURED_BY``)
``constraints.cypher`` the loader's constraints and index, to run once after the import
``import.sh``        the exact ``neo4j-admin`` command for these files, or, without a
                     ``neo4j-admin`` on PATH, ``paperkg neo4j import`` (the local launcher's own
                     import tool, :mod:`paperkg.queries.server.bulk_import`)

The imported database is the one ``paperkg load`` builds from the same graph: same labels,
relationship types, properties and values (see ``queries/README.md``; tested by importing with
the real import tool). As neither stores empty lists, an entity without aliases or a paper
without authors has no ``aliases``/``authors`` property.

Every string is quoted (``"`` doubled inside), a missing value is an empty unquoted field (no
property), and arrays are joined with the array delimiter: by default the first of
:data:`DELIMITERS` that no array element holds (:func:`pick_array_delimiter`); a given one that
an element contains is an error naming it.
Abstracts may span lines, hence ``--multiline-fields=true`` in the command.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any, Iterable, Sequence

import networkx as nx

from paperkg.atomic import REPLACE, atomic_open, atomic_write_text, file_mode
from paperkg.errors import GraphError
from paperkg.graph.export_set import NEO4J_ADMIN_FILES, write_set
from paperkg.queries.offline import paper_communities, strip_entity_prefix
from paperkg.graph.build import DERIVED_EDGES
from paperkg.types import ENTITY_TYPES, RESULT_EDGES

#: The role of a paper -> entity edge -> its relationship type (as the loader writes it).
ROLE_TYPES = {"proposed": "PROPOSES", "used": "USES", "mentioned": "MENTIONS"}

PAPER_HEADER = ("id:ID(Paper)", ":LABEL", "title", "abstract", "venue", "year:long", "url", "label",
                "authors:string[]", "community:int")
ENTITY_HEADER = ("key:ID(Entity)", ":LABEL", "type", "name", "aliases:string[]", "alias_keys:string[]", "pwc_id",
                 "codesota_id", "area", "record_url", "paper_count:long")
#: Known-list properties of an entity (None when it matches no known record).
KNOWN_ID_PROPERTIES = ("pwc_id", "codesota_id", "area", "record_url")
PAPER_ENTITY_HEADER = (":START_ID(Paper)", ":END_ID(Entity)", ":TYPE", "count:long", "evidence", "evidence_offset:long",
                       "confidence:double")
RELATED_TO_HEADER = (":START_ID(Paper)", ":END_ID(Paper)", ":TYPE", "weight:double", "shared:string[]", "reason",
                     "evidence", "link_kind", "terms:string[]")
RESULT_HEADER = ("id:ID(Result)", ":LABEL", "paper_id", "index:long", "value", "start:long", "end:long", "number:double",
                 "upper:double", "unit", "kind", "evidence", "direction")
PAPER_RESULT_HEADER = (":START_ID(Paper)", ":END_ID(Result)", ":TYPE")
RESULT_ENTITY_HEADER = (":START_ID(Result)", ":END_ID(Entity)", ":TYPE")
ENTITY_ENTITY_HEADER = (":START_ID(Entity)", ":END_ID(Entity)", ":TYPE", "count:long")
#: The closed sets of relationship types the Result files hold (never taken from the input).
RESULT_SLOT_TYPES = frozenset(RESULT_EDGES.values())
DERIVED_TYPES = frozenset(kind for kind, _, _ in DERIVED_EDGES)

#: File key -> name; node files first (``--nodes``), then relationship files (``--relationships``).
NODE_FILES = ("papers", "entities", "results")
FILES = {
    "papers": "papers.csv",
    "entities": "entities.csv",
    "results": "results.csv",
    "paper_entity": "paper_entity.csv",
    "related_to": "related_to.csv",
    "paper_result": "paper_result.csv",
    "result_entity": "result_entity.csv",
    "entity_entity": "entity_entity.csv",
}


def evidence_json(evidence: list[dict] | None) -> str | None:
    """A link's evidence as the JSON string Neo4j stores (a property cannot hold a list of maps);
    keys sorted, so a graph read back from graph.json stores the same string.

    >>> evidence_json([{"key": "sac", "name": "SAC", "type": "Method", "papers": 9, "contribution": 0.4}])
    '[{"contribution":0.4,"key":"sac","name":"SAC","papers":9,"type":"Method"}]'
    """
    if not evidence:
        return None
    return json.dumps(list(evidence), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


class _Array(list):
    """Marks a list value to be written as one delimited array field."""


def _field(value: Any, delimiter: str, where: str) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, _Array):
        if not value:
            return ""
        items = [str(v) for v in value]
        for item in items:
            if delimiter in item:
                raise GraphError(f"{where}: array element {item!r} contains the array delimiter {delimiter!r}; "
                                 f"export with another one (--array-delimiter)")
        value = delimiter.join(items)
    text = str(value)
    return '"' + text.replace('"', '""') + '"'


def _write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[Any]], delimiter: str) -> int:
    count = 0
    with atomic_open(path, "w", newline="", errors=REPLACE) as handle:
        handle.write(",".join(header) + "\n")
        for row in rows:
            where = f"{path.name} row {count + 1}"
            handle.write(",".join(_field(v, delimiter, where) for v in row) + "\n")
            count += 1
    return count


#: Array delimiters tried in order when none is given: the first that no array element holds
#: (real abstracts have aliases such as "5 rlowbarri.ubar;ri.ubar").
DELIMITERS = (";", "|", "^", "~", "`")


def pick_array_delimiter(graph: nx.DiGraph) -> str:
    """The first of :data:`DELIMITERS` that no array element of ``graph`` contains (authors,
    aliases, alias keys; a link's ``shared`` keys are alias keys too).

    >>> g = nx.DiGraph(); g.add_node("entity:x", kind="Entity", aliases=["a;b"], alias_keys=["x|y"])
    >>> pick_array_delimiter(g)
    '^'
    """
    free = list(DELIMITERS)
    for _, attrs in graph.nodes(data=True):
        for name in ("authors", "aliases", "alias_keys"):
            for item in attrs.get(name) or ():
                free = [c for c in free if c not in str(item)]
                if not free:
                    raise GraphError(f"every array delimiter ({' '.join(DELIMITERS)}) occurs in an array element "
                                     f"of {attrs.get('key') or attrs.get('paper_id')!r}; pass --array-delimiter")
    return free[0]


def script_array_delimiter(out_dir: Path) -> str:
    """The array delimiter that ``out_dir/import.sh`` (written by :func:`write_neo4j_admin`)
    imports with; ``;`` for a folder without one (CSVs written by hand or by an old export)."""
    script = Path(out_dir) / "import.sh"
    if script.is_file():
        for line in script.read_text(encoding="utf-8").splitlines():
            if "--array-delimiter=" in line and not line.lstrip().startswith("#"):
                for word in shlex.split(line, comments=True):
                    if word.startswith("--array-delimiter="):
                        return word.split("=", 1)[1]
    return ";"


def import_options(out_dir: Path, *, array_delimiter: str = ";") -> list[str]:
    """The options of ``database import full`` for the files in ``out_dir``."""
    files = [(key, str(out_dir / name)) for key, name in FILES.items()]
    return [f"--{'nodes' if key in NODE_FILES else 'relationships'}={path}" for key, path in files] + [
        f"--array-delimiter={array_delimiter}", "--multiline-fields=true", "--overwrite-destination=true"]


def import_command(out_dir: Path, *, database: str = "neo4j", array_delimiter: str = ";") -> str:
    """The ``neo4j-admin database import full`` command for the files in ``out_dir``."""
    options = " ".join(shlex.quote(o) for o in import_options(out_dir, array_delimiter=array_delimiter))
    return f"neo4j-admin database import full {shlex.quote(database)} {options}"


def write_neo4j_admin(graph: nx.DiGraph, out_dir: str | Path, *, array_delimiter: str | None = None,
                      database: str = "neo4j") -> dict[str, Path]:
    """Write the CSVs, ``constraints.cypher`` and ``import.sh`` into ``out_dir``; returns their paths.
    ``array_delimiter`` defaults to :func:`pick_array_delimiter`; ``import.sh`` names it.

    The files are one export set (:func:`paperkg.graph.export_set.write_set`, merged into a
    build's set when ``out_dir`` holds one): a killed export leaves the previous CSVs and
    ``import.sh`` or the new ones, never new nodes beside old relationships.

    Raises :class:`GraphError` for an entity type or role outside the closed sets, or an array
    element that contains the given ``array_delimiter``.
    """
    if array_delimiter is None:
        array_delimiter = pick_array_delimiter(graph)
    if len(array_delimiter) != 1 or array_delimiter in ',"\n\r':
        raise GraphError(f"the array delimiter must be one character other than , \" and newline, got {array_delimiter!r}")
    communities = paper_communities(graph)

    def papers():
        for _, a in graph.nodes(data=True):
            if a["kind"] == "Paper":
                yield (a["paper_id"], "Paper", a.get("title"), a.get("abstract"), a.get("venue"), a.get("year"),
                       a.get("url"), a.get("label"), _Array(a.get("authors") or []), communities.get(a["paper_id"]))

    def entities():
        for _, a in graph.nodes(data=True):
            if a["kind"] == "Entity":
                if a["type"] not in ENTITY_TYPES:
                    raise GraphError(f"entity {a['key']!r} has type {a['type']!r}, not one of {', '.join(ENTITY_TYPES)}")
                # The label field is an array too: it takes the same delimiter.
                yield (a["key"], f"Entity{array_delimiter}{a['type']}", a["type"], a.get("name"), _Array(a.get("aliases") or []),
                       _Array(a.get("alias_keys") or [a["key"]]), *(a.get(name) for name in KNOWN_ID_PROPERTIES),
                       a.get("paper_count"))

    def paper_entity():
        for u, v, d in graph.edges(data=True):
            if d["kind"] == "HAS":
                if d["role"] not in ROLE_TYPES:
                    raise GraphError(f"edge {u!r} -> {v!r} has role {d['role']!r}, not one of {', '.join(ROLE_TYPES)}")
                yield (graph.nodes[u]["paper_id"], graph.nodes[v]["key"], ROLE_TYPES[d["role"]], d.get("count"),
                       d.get("evidence"), d.get("evidence_offset"), d.get("confidence"))

    def related_to():
        for u, v, d in graph.edges(data=True):
            if d["kind"] == "RELATED_TO":
                a, b = sorted((graph.nodes[u]["paper_id"], graph.nodes[v]["paper_id"]))
                yield (a, b, "RELATED_TO", float(d["weight"]), _Array(strip_entity_prefix(s) for s in d.get("shared") or []),
                       d.get("reason") or None, evidence_json(d.get("evidence")), d.get("link_kind") or "entities",
                       _Array(d.get("terms") or []))

    def results():
        for node, a in graph.nodes(data=True):
            if a["kind"] == "Result":
                upper = a.get("upper")
                yield (node, "Result", a["paper_id"], int(a["index"]), a.get("value"), a.get("start"), a.get("end"),
                       float(a["number"]), None if upper is None else float(upper), a.get("unit"),
                       a.get("result_kind"), a.get("evidence"), a.get("direction"))

    def paper_result():
        for u, v, d in graph.edges(data=True):
            if d["kind"] == "REPORTS":
                yield (graph.nodes[u]["paper_id"], v, "REPORTS")

    def result_entity():
        for u, v, d in graph.edges(data=True):
            if d["kind"] in RESULT_SLOT_TYPES and graph.nodes[u]["kind"] == "Result":
                yield (u, graph.nodes[v]["key"], d["kind"])

    def entity_entity():
        for u, v, d in graph.edges(data=True):
            if d["kind"] in DERIVED_TYPES and graph.nodes[u]["kind"] == "Entity":
                yield (graph.nodes[u]["key"], graph.nodes[v]["key"], d["kind"], int(d["count"]))

    def write(folder: Path) -> dict[str, Path]:
        written = {}
        for key, header, rows in (("papers", PAPER_HEADER, papers()), ("entities", ENTITY_HEADER, entities()),
                                  ("results", RESULT_HEADER, results()),
                                  ("paper_entity", PAPER_ENTITY_HEADER, paper_entity()),
                                  ("related_to", RELATED_TO_HEADER, related_to()),
                                  ("paper_result", PAPER_RESULT_HEADER, paper_result()),
                                  ("result_entity", RESULT_ENTITY_HEADER, result_entity()),
                                  ("entity_entity", ENTITY_ENTITY_HEADER, entity_entity())):
            written[key] = folder / FILES[key]
            _write_csv(written[key], header, rows, array_delimiter)
        written["constraints"] = atomic_write_text(folder / "constraints.cypher", statement("constraints"))
        written["import"] = atomic_write_text(folder / "import.sh", _import_script(database, array_delimiter))
        written["import"].chmod(file_mode(executable=True))  # staged: the mode lands with the file
        return written

    from paperkg.queries.runner import statement

    # Merged, so a build's graph.json and pages in the same folder stay; replaces: the CSVs an
    # older export left that this one lacks go, and no other file.
    return write_set(out_dir, write, replaces=NEO4J_ADMIN_FILES, merge=True)


def _import_script(database: str, array_delimiter: str) -> str:
    command = import_command(Path("."), database=database, array_delimiter=array_delimiter)
    return (
        "#!/bin/sh\n"
        "# Bulk import of this paperkg graph into a STOPPED Neo4j 5 (it replaces the database), then\n"
        "# the constraints once the server runs again. Run from any directory. Uses neo4j-admin when\n"
        "# it is on PATH (a Neo4j distribution, or inside the Docker image), else paperkg's local\n"
        "# launcher (its own import tool; no neo4j-admin needed; see 'paperkg neo4j import --help').\n"
        "set -e\n"
        'cd "$(dirname "$0")"\n'
        "if command -v neo4j-admin >/dev/null 2>&1; then\n"
        f"  {command}\n"
        "else\n"
        f"  paperkg neo4j import . --database {shlex.quote(database)} --array-delimiter {shlex.quote(array_delimiter)}\n"
        "fi\n"
        "# after starting Neo4j:  paperkg cypher < constraints.cypher   (or: paperkg load graph.json)\n"
    )
