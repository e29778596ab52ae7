"""The CLI: thin commands, help on every command, entries in docs/cli.md, one-line errors."""

import json
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest

from paperkg.cli import cli

ROOT = Path(__file__).resolve().parents[1]


def all_commands(group=cli, prefix=()):
    for name, command in sorted(group.commands.items()):
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from all_commands(command, prefix + (name,))


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-c", "from paperkg.cli import main; main()", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def long_names(option: click.Option) -> list[str]:
    """``--store``; both ``--html`` and ``--no-html`` for a flag pair."""
    return [name for name in (*option.opts, *option.secondary_opts) if name.startswith("--")]


def options_of(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option) and p.name != "help"]


def test_the_walk_reaches_subcommands_and_every_option():
    """The two tests below see nested commands and the build's store/engine options."""
    commands = dict(all_commands())
    assert {("neo4j", "import"), ("neo4j", "start"), ("neo4j", "stop"), ("neo4j", "status")} <= set(commands)
    build_options = {name for option in options_of(commands[("build",)]) for name in long_names(option)}
    assert {"--store", "--engine", "--scheduler", "--top-k", "--no-html", "--max-chars"} <= build_options


@pytest.mark.parametrize("path", [p for p, _ in all_commands()], ids=" ".join)
def test_every_command_has_help_and_a_reference_entry(path):
    command = dict(all_commands())[path]
    assert (command.help or "").strip(), f"paperkg {' '.join(path)} has no help text"
    result = run(*path, "--help")
    assert result.returncode == 0 and "Usage:" in result.stdout
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert re.search(rf"paperkg {re.escape(' '.join(path))}\b", reference), f"docs/cli.md does not document 'paperkg {' '.join(path)}'"
    # and every option of it: described in --help, named in the reference (either form of a flag pair)
    for option in options_of(command):
        names = long_names(option)
        assert (option.help or "").strip(), f"paperkg {' '.join(path)} {names[0]} has no help text"
        assert all(name in result.stdout for name in names), f"{names} missing from paperkg {' '.join(path)} --help"
        assert any(re.search(re.escape(name) + r"(?![\w-])", reference) for name in names), (
            f"docs/cli.md does not mention paperkg {' '.join(path)} {'/'.join(names)}")


def test_the_global_options_have_help_and_a_reference_entry():
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    result = run("--help")
    for option in options_of(cli):
        names = long_names(option)
        assert (option.help or "").strip() and all(name in result.stdout for name in names)
        assert any(re.search(re.escape(name) + r"(?![\w-])", reference) for name in names), names


def test_extract_writes_the_contract(tmp_path):
    out = tmp_path / "m.jsonl"
    result = run("extract", ROOT / "examples" / "abstracts.txt", "--output", out, "--no-progress")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 8
    names = {e["name"]: e for r in records for e in r["entities"]}
    assert names["TideRL"]["role"] == "proposed"
    assert "papers: read 8, written 8, skipped 0" in result.stderr


def test_build_writes_every_export_and_reports(tmp_path):
    source = tmp_path / "in.jsonl"
    lines = [json.dumps({"id": "a", "abstract": "We propose FooNet for image classification on CIFAR-10."}),
             "{broken",
             json.dumps({"id": "b", "abstract": "We evaluate ResNet-50 on CIFAR-10 and ImageNet."}),
             json.dumps({"id": "c", "abstract": "We evaluate ResNet-50 on CIFAR-10 and ImageNet."})]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run("build", source, "--out", out, "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "papers: read 4, written 2, skipped 2" in result.stderr
    assert "stage " not in result.stderr, "--no-progress prints no stage lines"
    assert f"warning: {source}:2: skipped: not valid JSON" in result.stderr
    assert result.stderr.count(f"{source}:2:") == 1, "a skipped record is reported once"
    assert "id 'c' is kept as an alias" in result.stderr
    for name in ("graph.json", "graph.graphml", "mentions.jsonl"):
        assert (out / name).stat().st_size > 0
    assert list(out.glob("*.html")), "no HTML view written"
    stats = run("stats", out / "graph.json", "--json")
    assert json.loads(stats.stdout)["counts"]["papers"] == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["extract", "missing.txt", "-o", "x.jsonl"], "error: missing.txt: no such file or directory"),
        (["stats", "missing.json"], "error: missing.json: no such graph file"),
    ],
)
def test_errors_are_one_line_without_traceback(tmp_path, args, message):
    result = run(*args, cwd=tmp_path)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), result.stderr
    assert "Traceback" not in result.stderr


def test_empty_input_is_an_error(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    result = run("extract", empty, "-o", tmp_path / "x.jsonl")
    assert result.returncode == 1
    assert "no abstracts found" in result.stderr.splitlines()[-1]


def test_build_says_what_each_stage_cost(tmp_path):
    result = run("build", ROOT / "examples" / "abstracts.txt", "--out", tmp_path / "out", "--no-html")
    assert result.returncode == 0, result.stderr
    stages = re.findall(r"^stage (\w+): [\d.]+ s, CPU [\d.]+ s", result.stderr, re.M)
    assert stages == ["read", "extract", "resolve", "graph", "link", "communities", "export"], result.stderr


def test_neo4j_start_help_says_where_data_and_launcher_live_and_query_list_matches_the_build():
    start = run("neo4j", "start", "--help")
    assert start.returncode == 0
    text = " ".join(start.stdout.split())
    assert "~/.local/share/paperkg/neo4j" in text and "~/.cache/paperkg/neo4j-local" in text
    listing = run("query", "--list")
    assert "smallest paper id" not in listing.stdout and "computed at load time" not in listing.stdout
