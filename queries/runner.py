"""The named-query library: connection settings, ``.cypher`` headers, parameters, and running.

Every named query is one file ``queries/NAME.cypher`` whose leading ``//`` comment is its header::

    // What the query answers (one or more lines: the description).
    // param: entity entity -- the entity key (names are normalized: "MuJoCo" -> mujoco)
    // param: k int = 10 -- rows to return
    // returns: key, name, papers
    MATCH ...

``param:`` lines declare ``NAME TYPE [= DEFAULT] [-- help]``; a parameter without a default is
required, ``= null`` makes it optional (``None``). Types: ``string``, ``int``, ``float``,
``bool``, ``paper`` (a paper id), ``entity`` (an entity key; the value is normalized with
:func:`paperkg.extract.nlp.normalize.normalize_key`) and ``enum(A|B|C)``. Strings (from the CLI's
``--param key=value``) are converted to the declared type.

Files starting with ``_`` (``_load_*.cypher``) are the loader's statements, not named queries.
The same queries exist over NetworkX in :mod:`paperkg.queries.offline`, with identical rows.

Connection settings come from one place, :meth:`Neo4jSettings.from_env`: the environment
(``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``), overridden by explicit
values (the CLI's ``--uri --user --password --database``).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import textwrap
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any, Iterable, Iterator, Mapping, Sequence

from paperkg.errors import Neo4jError, QueryError

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_USER = "neo4j"
DEFAULT_DATABASE = "neo4j"
START_HINT = "start one with 'paperkg neo4j start' or 'docker compose up -d --wait', or point NEO4J_URI/--uri at yours"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and as whom to connect. Build it with :meth:`from_env`."""

    uri: str = DEFAULT_URI
    user: str = DEFAULT_USER
    password: str | None = field(default=None, repr=False)
    database: str = DEFAULT_DATABASE

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: str | None) -> "Neo4jSettings":
        """Settings from ``NEO4J_URI/USER/PASSWORD/DATABASE``; non-``None`` overrides win.

        >>> s = Neo4jSettings.from_env({"NEO4J_URI": "bolt://db:7687", "NEO4J_PASSWORD": "pw"}, user="me")
        >>> (s.uri, s.user, s.password, s.database)
        ('bolt://db:7687', 'me', 'pw', 'neo4j')
        """
        env = os.environ if env is None else env
        unknown = set(overrides) - {"uri", "user", "password", "database"}
        if unknown:
            raise TypeError(f"unknown Neo4j setting(s): {', '.join(sorted(unknown))}")
        values = {
            "uri": env.get("NEO4J_URI") or DEFAULT_URI,
            "user": env.get("NEO4J_USER") or DEFAULT_USER,
            "password": env.get("NEO4J_PASSWORD") or None,
            "database": env.get("NEO4J_DATABASE") or DEFAULT_DATABASE,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def coerce(cls, settings: Any = None) -> "Neo4jSettings":
        """``None`` -> :meth:`from_env`; any object with uri/user/password/database -> settings."""
        if settings is None:
            return cls.from_env()
        if isinstance(settings, cls):
            return settings
        try:
            return cls(uri=settings.uri, user=settings.user, password=settings.password, database=settings.database)
        except AttributeError as exc:
            raise TypeError(f"not Neo4j settings: {settings!r}") from exc


def _driver_errors():
    from neo4j import exceptions

    return exceptions


def connect(settings: Any = None, *, timeout: float = 10.0):
    """A verified ``neo4j.Driver``; raises :class:`Neo4jError` with one clear line otherwise."""
    from neo4j import GraphDatabase

    ex = _driver_errors()
    s = Neo4jSettings.coerce(settings)
    auth = (s.user, s.password) if s.password is not None else None
    try:
        driver = GraphDatabase.driver(s.uri, auth=auth, connection_timeout=timeout, connection_acquisition_timeout=timeout)
    except (ValueError, ex.ConfigurationError) as exc:
        raise Neo4jError(f"invalid Neo4j URI {s.uri!r}: {exc}") from exc
    try:
        driver.verify_connectivity()
        with driver.session(database=s.database) as session:
            session.run("RETURN 1").consume()
    except Exception as exc:
        driver.close()
        translated = translate_error(exc, s)
        if translated is exc:
            raise
        raise translated from exc
    return driver


def translate_error(exc: BaseException, settings: Neo4jSettings, what: str = "") -> BaseException:
    """A :class:`Neo4jError` with one line for a driver exception (others are returned as-is)."""
    ex = _driver_errors()
    where = f" ({what})" if what else ""
    if isinstance(exc, ex.AuthError):
        hint = "no password was given: set NEO4J_PASSWORD or pass --password" if settings.password is None else (
            "check NEO4J_PASSWORD / --password (and NEO4J_USER / --user)")
        return Neo4jError(f"Neo4j at {settings.uri} refused the credentials of user {settings.user!r} "
                          f"(authentication failed): {hint}")
    if isinstance(exc, (ex.ServiceUnavailable, ex.SessionExpired, OSError)) and not isinstance(exc, ex.Neo4jError):
        return Neo4jError(f"cannot connect to Neo4j at {settings.uri}: is it running? {START_HINT}")
    if isinstance(exc, ex.ClientError) and exc.code and "DatabaseNotFound" in exc.code:
        return Neo4jError(f"Neo4j at {settings.uri} has no database {settings.database!r} "
                          f"(set NEO4J_DATABASE or --database; Community Edition has only 'neo4j')")
    if isinstance(exc, ex.Neo4jError):
        message = (exc.message or str(exc)).splitlines()[0] if (exc.message or str(exc)) else repr(exc)
        return Neo4jError(f"Neo4j at {settings.uri} rejected a statement{where}: {exc.code}: {message}")
    if isinstance(exc, ex.DriverError):
        return Neo4jError(f"Neo4j driver error talking to {settings.uri}{where}: {exc}")
    return exc


@contextlib.contextmanager
def neo4j_errors(settings: Neo4jSettings, what: str = "") -> Iterator[None]:
    """Turn driver exceptions raised inside the block into :class:`Neo4jError`."""
    ex = _driver_errors()
    try:
        yield
    except (ex.Neo4jError, ex.DriverError, OSError) as exc:
        raise translate_error(exc, settings, what) from exc


# --------------------------------------------------------------------------- the library

_PARAM = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)\s+(?P<type>enum\([^)]*\)|[a-z]+)"
                    r"(?:\s*=\s*(?P<default>.+?))?\s*(?:--\s*(?P<help>.*))?$")
_TYPES = ("string", "int", "float", "bool", "paper", "entity")
_NULL = "null"
_MAX_INT = 2**63 - 1  # Neo4j integers are 64-bit


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool
    default: Any = None
    help: str = ""

    @property
    def choices(self) -> tuple[str, ...]:
        if self.type.startswith("enum("):
            return tuple(c.strip() for c in self.type[5:-1].split("|") if c.strip())
        return ()

    def describe(self) -> str:
        """``name (type, default 10): help`` for ``paperkg query --list``."""
        kind = "one of " + "|".join(self.choices) if self.choices else self.type
        extra = "required" if self.required else f"default {'null' if self.default is None else self.default}"
        return f"{self.name} ({kind}, {extra})" + (f": {self.help}" if self.help else "")

    def convert(self, value: Any, query: str) -> Any:
        """The value converted to this parameter's type; raises QueryError naming both."""
        if value is None or (isinstance(value, str) and value.strip().lower() == _NULL and self.type != "string"):
            if self.required:
                raise QueryError(f"query {query!r}: parameter {self.name!r} is required ({self.type}), got null")
            if self.default is not None:
                # Only a parameter declared "= null" takes null: Cypher's LIMIT null fails where a slice would not.
                raise QueryError(f"query {query!r}: parameter {self.name!r} cannot be null (default {self.default})")
            return None
        bad = QueryError(f"query {query!r}: parameter {self.name!r} expects {self.type}, got {value!r}")
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, (int, str)):
                raise bad
            try:
                number = int(value.strip()) if isinstance(value, str) else value
            except ValueError:
                raise bad from None
            if number < 0:
                raise QueryError(f"query {query!r}: parameter {self.name!r} must be >= 0, got {value!r}")
            if number > _MAX_INT:
                raise QueryError(f"query {query!r}: parameter {self.name!r} must be <= {_MAX_INT} (a 64-bit integer), got {value!r}")
            return number
        if self.type == "float":
            if isinstance(value, bool):
                raise bad
            if isinstance(value, (int, float)):
                return float(value)
            if isinstance(value, str):
                try:
                    return float(value.strip())
                except ValueError:
                    raise bad from None
            raise bad
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
                return value.strip().lower() in ("true", "yes", "1")
            raise bad
        if not isinstance(value, str):
            raise bad
        if self.type == "entity":
            from paperkg.extract.nlp.normalize import normalize_key

            return normalize_key(value)
        if self.choices and value not in self.choices:
            raise QueryError(f"query {query!r}: parameter {self.name!r} must be one of "
                             f"{', '.join(self.choices)}, got {value!r}")
        return value


@dataclass(frozen=True)
class QuerySpec:
    """One named query: its name, description, parameters, result columns and Cypher text."""

    name: str
    description: str
    params: tuple[Param, ...]
    columns: tuple[str, ...]
    cypher: str

    def bind(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every declared parameter, converted, with defaults filled in.

        Raises :class:`QueryError` naming a missing or unknown parameter.
        """
        given = dict(params or {})
        declared = {p.name: p for p in self.params}
        extra = sorted(set(given) - set(declared))
        if extra:
            allowed = ", ".join(declared) or "none"
            raise QueryError(f"query {self.name!r} has no parameter {', '.join(map(repr, extra))} "
                             f"(its parameters: {allowed})")
        missing = [p.name for p in self.params if p.required and p.name not in given]
        if missing:
            raise QueryError(f"query {self.name!r} needs parameter {', '.join(map(repr, missing))}: "
                             + "; ".join(declared[m].describe() for m in missing))
        return {p.name: p.convert(given[p.name], self.name) if p.name in given else p.default for p in self.params}


def parse_query(name: str, text: str) -> QuerySpec:
    """Parse one ``.cypher`` file's header (see the module docstring)."""
    description: list[str] = []
    params: list[Param] = []
    columns: tuple[str, ...] = ()
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("//"):
            break
        body = stripped[2:].strip()
        if body.startswith("param:"):
            spec = body[len("param:"):].strip()
            match = _PARAM.match(spec)
            if not match or not (match["type"] in _TYPES or match["type"].startswith("enum(")):
                raise QueryError(f"{name}.cypher: malformed parameter line {line.strip()!r}")
            raw = match["default"]
            param = Param(match["name"], match["type"], required=raw is None, help=(match["help"] or "").strip())
            if raw is not None and raw.strip().lower() != _NULL:
                param = Param(param.name, param.type, False, param.convert(raw.strip().strip("'\""), name), param.help)
            params.append(param)
        elif body.startswith("returns:"):
            columns = tuple(c.strip() for c in body[len("returns:"):].split(",") if c.strip())
        elif body:
            description.append(body)
    if not description:
        raise QueryError(f"{name}.cypher: no description in the header comment")
    return QuerySpec(name, " ".join(description), tuple(params), columns, text)


def _cypher_files() -> dict[str, str]:
    root = resources.files("paperkg.queries")
    return {entry.name[: -len(".cypher")]: entry.read_text(encoding="utf-8")
            for entry in root.iterdir() if entry.name.endswith(".cypher")}


@lru_cache(maxsize=1)
def library() -> dict[str, QuerySpec]:
    """Every named query, by name (sorted)."""
    files = _cypher_files()
    return {name: parse_query(name, files[name]) for name in sorted(files) if not name.startswith("_")}


def _internal(kind: str, name: str) -> str:
    files = _cypher_files()
    key = f"_{kind}_{name}"
    if key not in files:
        what = "loader" if kind == "load" else kind
        raise QueryError(f"missing {what} statement {key}.cypher in the paperkg.queries package")
    return files[key]


def statement(name: str) -> str:
    """The text of a loader statement ``queries/_load_NAME.cypher``."""
    return _internal("load", name)


def shell_statement(name: str) -> str:
    """The text of a ``paperkg cypher`` statement ``queries/_shell_NAME.cypher``."""
    return _internal("shell", name)


def get_query(name: str) -> QuerySpec:
    """The named query; raises :class:`QueryError` listing the available ones."""
    queries = library()
    if name not in queries:
        raise QueryError(f"unknown query {name!r}; available queries: {', '.join(queries)}")
    return queries[name]


# --------------------------------------------------------------------------- running


def run_query(name: str, params: Mapping[str, Any] | None = None, settings: Any = None, *, driver=None) -> list[dict]:
    """Run a named query against Neo4j (in a read transaction) and return its rows as dicts.

    ``settings`` defaults to :meth:`Neo4jSettings.from_env`; pass ``driver`` to reuse one.
    """
    spec = get_query(name)
    bound = spec.bind(params)
    s = Neo4jSettings.coerce(settings)
    own = driver is None
    if own:
        driver = connect(s)
    try:
        with neo4j_errors(s, f"query {name}"), driver.session(database=s.database) as session:
            return session.execute_read(_read_rows, spec.cypher, bound)
    finally:
        if own:
            driver.close()


def _read_rows(tx, cypher: str, params: dict) -> list[dict]:
    return [record.data() for record in tx.run(cypher, params)]


# --------------------------------------------------------------------------- CLI helpers


def parse_param_pairs(pairs: Iterable[str]) -> dict[str, str]:
    """``["k=10", "entity=MuJoCo"]`` -> ``{"k": "10", "entity": "MuJoCo"}`` (values stay strings).

    Spaces around the name and the value go: a quoted ``-p " dataset = ImageNet "`` is
    ``dataset`` = ``ImageNet``, as it would be unquoted.

    >>> parse_param_pairs(["k=10", "entity=a=b", " dataset = ImageNet "])
    {'k': '10', 'entity': 'a=b', 'dataset': 'ImageNet'}
    """
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise QueryError(f"--param expects KEY=VALUE, got {pair!r}")
        if key in params:
            raise QueryError(f"parameter {key!r} given twice")
        params[key] = value.strip()
    return params


def describe_library() -> str:
    """Every named query with its description and parameters (``paperkg query --list``)."""
    blocks = []
    for spec in library().values():
        lines = [spec.name, *textwrap.wrap(spec.description, 96, initial_indent="    ", subsequent_indent="    ")]
        lines += [f"    param {p.describe()}" for p in spec.params] or ["    (no parameters)"]
        if spec.columns:
            lines.append(f"    returns {', '.join(spec.columns)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return "; ".join(_cell(v) for v in value)
    return str(value)


#: What a spreadsheet takes for the start of a formula (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> str:
    """A CSV cell: a text that a spreadsheet would run as a formula (``=HYPERLINK(...)`` in a
    paper title) starts with ``'``, so it shows as text; numbers, ``-1.5`` too, stay numbers."""
    text = _cell(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return text
    return "'" + text if text.startswith(_FORMULA_START) else text


def format_rows(rows: list[dict], columns: Sequence[str] = (), fmt: str = "table", *, max_width: int = 60) -> str:
    """Rows as an aligned text table, JSON, or CSV (lists joined with ``; `` in table and CSV;
    CSV text cells that start like a formula get a leading ``'``, see :func:`_csv_cell`)."""
    cols = list(columns) or (list(rows[0]) if rows else [])
    for row in rows:
        cols += [c for c in row if c not in cols]
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False)
    if fmt == "csv":
        # Each row is written with the "\r\n" end (RFC 4180's) and cut off it: with a "\n" end
        # the csv module leaves a cell holding "\r" unquoted, a row break to a reader.
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        lines = []
        for cells in [cols, *([_csv_cell(row.get(c)) for c in cols] for row in rows)]:
            buffer.seek(0)
            buffer.truncate()
            writer.writerow(cells)
            lines.append(buffer.getvalue()[:-2])
        return "\n".join(lines)
    if fmt != "table":
        raise QueryError(f"unknown output format {fmt!r}; choose table, json or csv")
    if not rows:
        return "(no rows)"

    def clip(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= max_width else text[: max_width - 1] + "\u2026"

    cells = [[clip(_cell(row.get(c))) for c in cols] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    numeric = [all(isinstance(row.get(c), (int, float)) or row.get(c) is None for row in rows) for c in cols]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(cols), line(["-" * w for w in widths])]
    out += [line(r) for r in cells]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)
