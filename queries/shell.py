"""``paperkg cypher``: an interactive Cypher shell over the Python driver (no cypher-shell needed).

On a terminal: a ``cypher> `` prompt with readline editing and history
(``$PAPERKG_HOME/cypher_history`` or ``~/.cache/paperkg/cypher_history``); a statement ends
with ``;`` outside strings, backtick names and ``//`` / ``/* */`` comments (it may span lines)
and its rows print as a table. Shell commands start with ``:``:
``:help``, ``:exit`` (or Ctrl-D), ``:params`` (show the parameters), ``:param NAME=VALUE``
(VALUE is JSON - ``3``, ``"MuJoCo"``, ``[1, 2]``, ``null`` - or else taken as a string),
``:param NAME`` (remove it) and ``:params clear``. Parameters travel as Bolt parameters
(``$NAME`` in a statement), never pasted into the Cypher text.

Ctrl-C while a statement runs cancels it: the server terminates its transaction (found by the
random token in its metadata, from a second session), ``query cancelled`` is printed and the
prompt comes back. A second Ctrl-C while the cancel is under way leaves at once, and so does
Ctrl-C at the ``cypher>`` prompt (both with status 130); at the ``...>`` prompt Ctrl-C drops
the statement being typed, as a shell does.

History keeps no secrets: a statement containing ``PASSWORD`` (any case: ``ALTER USER ... SET
PASSWORD``, ``CREATE USER ... SET PASSWORD``) and every ``:param NAME=VALUE`` line (a value may
be a key or a token, and a name tells nothing sure) stay out of it, and such lines already in
an older history file are dropped when it is read. The file is readable by its owner only (0600).

When standard input is not a terminal (``paperkg cypher < file.cypher``) the statements are
read from it and run in order; the first error stops the run with exit status 1. SIGINT there
cancels the running statement the same way and ends the run with status 130.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Iterable, Iterator, TextIO

from paperkg.errors import PaperKGError, QueryError
from paperkg.queries.runner import Neo4jSettings, connect, format_rows, shell_statement, translate_error

HELP = """\
Statements end with ';' and may span lines; rows print as a table. Ctrl-C cancels a running statement.
  :param NAME=VALUE   set a parameter ($NAME); VALUE is JSON (3, "text", [1, 2], null) or a plain string
  :param NAME         remove a parameter
  :params             show the parameters      :params clear   remove them all
  :help               this help                :exit           leave (or Ctrl-D, or Ctrl-C)"""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PASSWORD = re.compile(r"password", re.IGNORECASE)
INTERRUPTED = 130  # the exit status of a run SIGINT stopped, as shells report it
CANCELLED = "query cancelled"


class QueryCancelled(QueryError):
    """The running statement was cancelled with Ctrl-C (its transaction terminated)."""


class LeaveNow(PaperKGError):
    """A second Ctrl-C came while a cancel was under way: leave without waiting for it (the
    server ends a transaction whose connection closes, so the statement stops all the same)."""


def parse_param(text: str) -> tuple[str, Any]:
    """``NAME=VALUE`` as (name, value): VALUE as JSON, else the plain string.

    >>> parse_param("k=3"), parse_param('entity="MuJoCo"'), parse_param(" entity = MuJoCo ")
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


class Splitter:
    """Cypher text, fed line by line, cut into statements at ``;`` outside quotes
    (``'``, ``"``, backticks; across lines too) and comments (``//`` to the line's end,
    ``/* */`` across lines); a line starting with ``:`` between statements is a command."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.buffer: list[str] = []
        self.quote = ""
        self.comment = False
        self.code = False  # the statement so far holds more than comments and spaces

    @property
    def pending(self) -> bool:
        """An unfinished statement (or an open string or comment) awaits more lines."""
        return self.code or bool(self.quote) or self.comment

    def feed(self, line: str) -> list[str]:
        """The statements and commands this line completes."""
        line = line.rstrip("\n")
        if not self.pending and line.strip().startswith(":"):
            self.buffer = []
            return [line.strip()]
        done: list[str] = []
        start = i = 0
        while i < len(line):
            ch = line[i]
            if self.comment:
                if line.startswith("*/", i):
                    self.comment = False
                    i += 1
            elif self.quote:
                if ch == "\\" and self.quote != "`":
                    i += 1
                elif ch == self.quote:
                    self.quote = ""
            elif line.startswith("//", i):
                break
            elif line.startswith("/*", i):
                self.comment = True
                i += 1
            elif ch == ";":
                self.buffer.append(line[start:i])
                if self.code:  # a ';' after nothing but comments ends no statement
                    done.append("\n".join(self.buffer).strip())
                self.buffer, self.code, start = [], False, i + 1
            else:
                self.quote = ch if ch in "'\"`" else ""
                self.code = self.code or not ch.isspace()
            i += 1
        if self.pending:
            self.buffer.append(line[start:])
        else:  # a comment alone starts no statement
            self.buffer = []
        return done

    def finish(self) -> str | None:
        """The last statement when the input ends without its ``;``."""
        rest = "\n".join(self.buffer).strip() if self.code else None
        self.reset()
        return rest


def split_statements(lines: Iterable[str]) -> Iterator[str]:
    """Statements (ended by ``;`` outside quotes and comments) and ``:`` commands, in order.

    >>> list(split_statements(["MATCH (n) // a; comment", "RETURN 'a;b' AS x;", ":params", "RETURN 1"]))
    ["MATCH (n) // a; comment\\nRETURN 'a;b' AS x", ':params', 'RETURN 1']
    >>> list(split_statements(["RETURN /* a; b */ `c;", "d` AS x; /* e;", "f */ RETURN 2;"]))
    ['RETURN /* a; b */ `c;\\nd` AS x', '/* e;\\nf */ RETURN 2']
    """
    splitter = Splitter()
    for line in lines:
        yield from splitter.feed(line)
    rest = splitter.finish()
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
        """Run one statement and print its rows; Ctrl-C raises :class:`QueryCancelled` once the
        server has stopped it (a second Ctrl-C meanwhile raises :class:`LeaveNow`)."""
        token = secrets.token_hex(16)
        outcome: dict[str, Any] = {}
        # The driver runs in a worker so that Ctrl-C never lands inside its socket code: the
        # main thread stays free to terminate the transaction over a second connection. An
        # Event, not Thread.join: a join that Ctrl-C interrupts may leave is_alive() False.
        done = threading.Event()
        try:
            threading.Thread(target=self._execute, args=(statement, token, outcome, done), daemon=True).start()
            while not done.wait(0.1):
                pass
        except KeyboardInterrupt:
            # The cancel runs in a thread too: a second Ctrl-C inside driver code can be lost
            # (raised in a finalizer, it is only printed), in the waiting loop it is not. The
            # thread starts inside the try so that a second Ctrl-C right after the first leaves.
            failed: dict[str, Any] = {}
            try:
                threading.Thread(target=self._terminate, args=(token, done, failed), daemon=True).start()
                while not done.wait(0.1):
                    pass
            except KeyboardInterrupt:
                raise LeaveNow() from None
            if "error" in failed:
                raise failed["error"] from None
            if "result" not in outcome:  # else it ended before the server got the cancel: show it
                raise QueryCancelled(CANCELLED) from None
        if "error" in outcome:
            raise outcome["error"]
        keys, rows, summary = outcome["result"]
        if keys:
            print(format_rows(rows, keys, "table", max_width=80), file=self.out)
        counters = {k: v for k, v in vars(summary.counters).items() if v and not k.startswith("_")}
        if counters or not keys:  # the table already ends with its row count
            print(", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(counters.items())) or "done",
                  file=self.err)

    def _execute(self, statement: str, token: str, outcome: dict[str, Any], done: threading.Event) -> None:
        from neo4j import Query

        try:
            with self.driver.session(database=self.settings.database) as session:
                result = session.run(Query(statement, metadata={"paperkg_shell": token}), self.params)
                keys = list(result.keys())
                rows = [{k: plain(record[k]) for k in keys} for record in result]
                outcome["result"] = keys, rows, result.consume()
        except Exception as exc:  # handed to the main thread, which reports it
            outcome["error"] = exc
        finally:
            done.set()

    def _terminate(self, token: str, done: threading.Event, failed: dict[str, Any]) -> None:
        """Terminate the statement's transaction until the worker sees it end; the lookup is
        repeated because the server may not have begun the transaction when Ctrl-C came. An
        error (a lost connection) ends the worker's wait with it: the statement is abandoned."""
        try:
            with self.driver.session(database=self.settings.database) as session:
                while not done.is_set():
                    ids = [r["transactionId"] for r in session.run(shell_statement("find_transactions"), token=token)]
                    if ids:
                        session.run(shell_statement("terminate_transactions"), ids=ids).consume()
                    done.wait(0.2)
        except Exception as exc:  # handed to the main thread, which reports it
            failed["error"] = exc
            done.set()


def history_file() -> Path:
    home = os.environ.get("PAPERKG_HOME")
    base = Path(home).expanduser() if home else Path.home() / ".cache" / "paperkg"
    return base / "cypher_history"


def secret(item: str) -> bool:
    """True for what history must not keep (see the module docstring).

    >>> [secret(s) for s in ("ALTER USER me SET password 'x'", ":param key=abc", ":param key", "RETURN 1")]
    [True, True, False, False]
    """
    if item.startswith(":"):
        word, _, rest = item[1:].strip().partition(" ")
        return word == "param" and "=" in rest
    return bool(_PASSWORD.search(item))


class History:
    """The readline history: read (dropping secrets an older file kept), written 0600 atomically."""

    def __init__(self, path: Path):
        import readline

        self.readline, self.path = readline, path
        try:
            readline.read_history_file(path)
        except OSError:
            pass
        for index in reversed(range(readline.get_current_history_length())):
            if secret((readline.get_history_item(index + 1) or "").strip()):  # get is 1-based, remove 0-based
                readline.remove_history_item(index)

    def mark(self) -> int:
        return self.readline.get_current_history_length()

    def forget_since(self, mark: int) -> None:
        """Drop the lines entered since ``mark`` (those of a statement holding a secret)."""
        for index in reversed(range(mark, self.readline.get_current_history_length())):
            self.readline.remove_history_item(index)

    def save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".cypher_history.", dir=self.path.parent)  # mkstemp: mode 0600
            os.close(fd)
            try:
                self.readline.write_history_file(tmp)
                os.replace(tmp, self.path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except OSError:  # a shell without history beats no shell
            pass


def run_shell(settings: Any = None, *, stdin: TextIO | None = None, out: TextIO | None = None,
              err: TextIO | None = None, interactive: bool | None = None) -> int:
    """Run the shell (see the module docstring); returns the exit status."""
    stdin, out, err = stdin or sys.stdin, out or sys.stdout, err or sys.stderr
    interactive = stdin.isatty() if interactive is None else interactive
    s = Neo4jSettings.coerce(settings)
    driver = connect(s)
    shell = Shell(driver, s, out, err)
    try:
        if interactive:
            print(f"Connected to {s.uri} (database {s.database}) as {s.user}. :help for help, :exit to leave.", file=out)
            return _interactive(shell)
        return _script(shell, stdin)
    finally:
        driver.close()


def _leaving() -> int:
    """Status 130, and SIGINT ignored from here on: more Ctrl-C while the shell saves its
    history and closes the driver would cut that short, with a traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return INTERRUPTED


def _do(shell: Shell, item: str) -> bool:
    """Run a statement or a command; False means leave. Errors come back as ValueError."""
    from neo4j import exceptions

    try:
        if item.startswith(":"):
            return shell.command(item)
        shell.run(item)
        return True
    except (exceptions.Neo4jError, exceptions.DriverError) as exc:
        raise ValueError(str(translate_error(exc, shell.settings))) from exc


def _script(shell: Shell, stdin: TextIO) -> int:
    try:
        for item in split_statements(stdin):
            try:
                if not _do(shell, item):
                    break
            except ValueError as exc:
                print(f"error: {exc}", file=shell.err)
                return 1
            except QueryCancelled:
                print(CANCELLED, file=shell.err)
                return _leaving()
    except (KeyboardInterrupt, LeaveNow):  # Ctrl-C between statements (nothing to cancel), or twice
        return _leaving()
    return 0


def _interactive(shell: Shell) -> int:
    history = History(history_file())
    splitter = Splitter()
    start = history.mark()
    try:
        while True:
            try:
                line = input("   ...> " if splitter.pending else "cypher> ")
            except EOFError:
                print(file=shell.out)
                return 0
            except KeyboardInterrupt:
                print(file=shell.out)
                if not splitter.pending:
                    return _leaving()
                if secret("\n".join(splitter.buffer)):
                    history.forget_since(start)
                splitter.reset()
                start = history.mark()
                continue
            items = splitter.feed(line)
            if any(secret(item) for item in items):
                history.forget_since(start)
                start = history.mark()
            elif items and splitter.pending and line.strip():  # this line also begins the next statement
                start = history.mark() - 1
            if not splitter.pending:
                start = history.mark()
            for item in items:
                try:
                    if not _do(shell, item):
                        return 0
                except ValueError as exc:
                    print(f"error: {exc}", file=shell.err)
                except QueryCancelled:
                    print(CANCELLED, file=shell.err)
                    break
                except LeaveNow:
                    print(file=shell.out)
                    return _leaving()
                except KeyboardInterrupt:  # between the server's answer and the prompt: only output is lost
                    print("interrupted", file=shell.err)
                    break
    finally:
        history.save()
