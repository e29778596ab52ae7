"""``paperkg cypher``: an interactive Cypher shell over the Python driver (no cypher-shell needed).

On a terminal: a ``cypher> `` prompt with readline editing and history
(``$PAPERKG_HOME/cypher_history`` or ``~/.cache/paperkg/cypher_history``); a statement ends
with ``;`` (it may span lines) and its rows print as a table. Shell commands start with ``:``:
``:help``, ``:exit`` (or Ctrl-D), ``:params`` (show the parameters), ``:param NAME=VALUE``
(VALUE is JSON - ``3``, ``"MuJoCo"``, ``[1, 2]``, ``null`` - or else taken as a string),
``:param NAME`` (remove it) and ``:params clear``. Parameters travel as Bolt parameters
(``$NAME`` in a statement), never pasted into the Cypher text.

When standard input is not a terminal (``paperkg cypher < file.cypher``) the statements are
read from it and run in order; the first error stops the run with exit status 1.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from paperkg.queries.runner import Neo4jSettings, connect, format_rows, translate_error

HELP = """\
Statements end with ';' and may span lines; rows print as a table.
  :param NAME=VALUE   set a parameter ($NAME); VALUE is JSON (3, "text", [1, 2], null) or a plain string
  :param NAME         remove a parameter
  :params             show the parameters      :params clear   remove them all
  :help               this help                :exit           leave (or Ctrl-D)"""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_param(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` as (name, value): VALUE as JSON, else the plain string.

    >>> parse_param("k=3"), parse_param('entity="MuJoCo"'), parse_param("entity=MuJoCo")
    (('k', 3), ('entity', 'MuJoCo'), ('entity', 'MuJoCo'))
    """
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.fullmatch(name):
        raise ValueError(f"expected :param NAME=VALUE, got {text!r}")
    raw = raw.strip()
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


def split_statements(lines: Iterable[str]) -> Iterator[str]:
    """Statements (ended by ``;`` outside quotes and comments) and ``:`` commands, in order.

    >>> list(split_statements(["MATCH (n) // a; comment", "RETURN 'a;b' AS x;", ":params", "RETURN 1"]))
    ["MATCH (n) // a; comment\\nRETURN 'a;b' AS x", ':params', 'RETURN 1']
    """
    buffer: list[str] = []
    quote = ""
    for line in lines:
        if not buffer and not quote and line.strip().startswith(":"):
            yield line.strip()
            continue
        start = 0
        i = 0
        code_end = len(line)
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == "\\" and quote != "`":
                    i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "'\"`":
                quote = ch
            elif line.startswith("//", i):
                code_end = i
                break
            elif ch == ";":
                buffer.append(line[start:i])
                statement = "\n".join(buffer).strip()
                if statement:
                    yield statement
                buffer, start = [], i + 1
            i += 1
        if buffer or quote or line[start:code_end].strip():  # a comment alone starts no statement
            buffer.append(line[start:].rstrip("\n"))
    rest = "\n".join(buffer).strip()
    if rest:
        yield rest


def plain(value: Any) -> Any:
    """Driver values as plain data: a node as ``(:Label {props})``, a relationship as
    ``[:TYPE {props}]``, a path as its nodes and relationships."""
    from neo4j.graph import Node, Path as GraphPath, Relationship

    if isinstance(value, Node):
        return f"({''.join(':' + label for label in sorted(value.labels))} {_props(value)})"
    if isinstance(value, Relationship):
        return f"[:{value.type} {_props(value)}]"
    if isinstance(value, GraphPath):
        return [plain(n) for n in value.nodes]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return json.dumps({k: plain(v) for k, v in value.items()}, ensure_ascii=False, default=str)
    return value


def _props(entity) -> str:
    return json.dumps(dict(sorted(entity.items())), ensure_ascii=False, default=str)


class Shell:
    """One session: the driver, the parameters, and where output goes."""

    def __init__(self, driver, settings: Neo4jSettings, out: TextIO, err: TextIO):
        self.driver, self.settings, self.out, self.err = driver, settings, out, err
        self.params: dict[str, Any] = {}

    def command(self, line: str) -> bool:
        """Run a ``:`` command; False means leave."""
        word, _, rest = line[1:].strip().partition(" ")
        rest = rest.strip()
        if word in ("exit", "quit"):
            return False
        if word == "help":
            print(HELP, file=self.out)
        elif word == "params" and rest == "clear":
            self.params.clear()
        elif word == "params" and not rest:
            print(json.dumps(self.params, ensure_ascii=False, indent=2, default=str) if self.params else "(no parameters)",
                  file=self.out)
        elif word == "param" and rest and "=" not in rest and _NAME.fullmatch(rest):
            self.params.pop(rest, None)
        elif word == "param" and rest:
            name, value = parse_param(rest)
            self.params[name] = value
        else:
            raise ValueError(f"unknown command {line!r}; :help lists them")
        return True

    def run(self, statement: str) -> None:
        with self.driver.session(database=self.settings.database) as session:
            result = session.run(statement, self.params)
            keys = list(result.keys())
            rows = [{k: plain(record[k]) for k in keys} for record in result]
            summary = result.consume()
        if keys:
            print(format_rows(rows, keys, "table", max_width=80), file=self.out)
        counters = {k: v for k, v in vars(summary.counters).items() if v and not k.startswith("_")}
        if counters or not keys:  # the table already ends with its row count
            print(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(counters.items())) or "done",
                  file=self.err)


def history_file() -> Path:
    home = os.environ.get("PAPERKG_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".cache" / "paperkg"
    return base / "cypher_history"


def _prompt_lines(shell: Shell) -> Iterator[str]:
    import readline

    path = history_file()
    try:
        readline.read_history_file(path)
    except OSError:
        pass
    prompt = "cypher> "
    try:
        while True:
            try:
                line = input(prompt)
            except EOFError:
                print(file=shell.out)
                return
            except KeyboardInterrupt:  # drop the statement being typed, as a shell does
                print(file=shell.out)
                prompt = "cypher> "
                yield "\x03"
                continue
            yield line
            prompt = "cypher> " if line.rstrip().endswith(";") or line.strip().startswith(":") else "   ...> "
    finally:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            readline.write_history_file(path)
        except OSError:
            pass


def run_shell(settings: Any = None, *, stdin: TextIO | None = None, out: TextIO | None = None,
              err: TextIO | None = None, interactive: bool | None = None) -> int:
    """Run the shell (see the module docstring); returns the exit status."""
    from neo4j import exceptions

    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    interactive = stdin.isatty() if interactive is None else interactive
    s = Neo4jSettings.coerce(settings)
    driver = connect(s)
    shell = Shell(driver, s, out, err)
    try:
        if interactive:
            print(f"Connected to {s.uri} (database {s.database}) as {s.user}. :help for help, :exit to leave.", file=out)
        lines = _interactive_statements(shell) if interactive else split_statements(stdin)
        for item in lines:
            try:
                if item.startswith(":"):
                    if not shell.command(item):
                        break
                else:
                    shell.run(item)
            except (ValueError, exceptions.Neo4jError, exceptions.DriverError) as exc:
                message = str(translate_error(exc, s)) if not isinstance(exc, ValueError) else str(exc)
                print(f"error: {message}", file=err)
                if not interactive:
                    return 1
    finally:
        driver.close()
    return 0


def _interactive_statements(shell: Shell) -> Iterator[str]:
    """Statements from the prompt: lines are collected until a ``;`` ends a statement."""
    pending: list[str] = []
    for line in _prompt_lines(shell):
        if line == "\x03":
            pending = []
            continue
        pending.append(line)
        statements = list(split_statements(pending))
        complete = pending[-1].rstrip().endswith(";") or (len(pending) == 1 and line.strip().startswith(":"))
        if complete:
            yield from statements
            pending = []
