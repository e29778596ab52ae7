"""The ``paperkg`` command line: a thin layer where each command calls one API function.

Errors derived from :class:`~paperkg.errors.PaperKGError` become one line on stderr and exit
status 1, without a traceback; a usage error (unknown option, a value out of range) is one line
and exit status 2. Every numeric option is range-checked, and output paths are checked before
any extraction starts.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import sys
from pathlib import Path

import click

import paperkg
from paperkg.api import stage_line, timed
from paperkg.build_record import previous_build, replacing
from paperkg.errors import PaperKGError
from paperkg.graph.export_set import InterruptedAfterCommit, holding
from paperkg.extract.read.readers import DEFAULT_MAX_CHARS, MAX_MAX_CHARS
from paperkg.extract.resolve.confidence import DEFAULT_MIN_CONFIDENCE
from paperkg.paths import check_output_dir, check_output_file, output_folder
from paperkg.types import ENTITY_TYPES, ReadReport


class _WarningHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        click.echo(f"warning: {record.getMessage()}", err=True)


def _setup_logging(quiet: bool, all_warnings: bool) -> None:
    logger = logging.getLogger("paperkg")
    logger.handlers[:] = [_WarningHandler()]
    # Warnings past the first few of a kind per file are logged at INFO (extract/read/readers.py).
    logger.setLevel(logging.ERROR if quiet else logging.INFO if all_warnings else logging.WARNING)
    logger.propagate = False
    # The Neo4j driver logs retries and server notifications; errors reach the user as one
    # paperkg line instead, so its records go nowhere (not to Python's last-resort stderr).
    driver_logger = logging.getLogger("neo4j")
    driver_logger.handlers[:] = [logging.NullHandler()]
    driver_logger.propagate = False


def _print_report(report: ReadReport) -> None:
    click.echo(
        f"papers: read {report.read}, written {report.written}, skipped {len(report.skipped)}",
        err=True,
    )
    # Skipped records were reported as warnings with file, line and reason (5 per kind, then a count).


input_args = click.argument("inputs", nargs=-1, required=True, type=click.Path(path_type=Path))
n_process_opt = click.option("--n-process", default=0, show_default="0: auto", type=click.IntRange(min=0),
                             help="Extraction worker processes; 0: one per usable core (at most 4) when 500 or more "
                                  "papers need extracting, else 1. The exports are written by as many (0: one per "
                                  "usable core from 500 papers on).")
no_model_opt = click.option("--no-model", is_flag=True, help="Rules and gazetteers only, without the trained NER (faster, lower recall).")
max_chars_opt = click.option("--max-chars", default=DEFAULT_MAX_CHARS, show_default=True,
                             type=click.IntRange(1, MAX_MAX_CHARS),
                             help="Skip (and report) records with an abstract or field longer than this (at most 1,000,000).")
progress_opt = click.option("--progress/--no-progress", default=True, show_default=True, help="Show progress bars.")
min_confidence_opt = click.option(
    "--min-confidence", default=DEFAULT_MIN_CONFIDENCE, show_default=True, type=click.FloatRange(0.0, 1.0),
    help="Leave out paper entities whose confidence (the estimated probability that they are right) is below "
         "this; 0 keeps every entity. No effect with --no-model.")


#: Options of the whole program, accepted after the subcommand too ("paperkg build ... -q").
GLOBAL_FLAGS = ("-q", "--quiet", "--all-warnings")


class _Program(click.Group):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # Moved to the front, up to a "--" (after it every word is an argument).
        end = args.index("--") if "--" in args else len(args)
        flags = [a for a in args[:end] if a in GLOBAL_FLAGS]
        rest = [a for a in args[:end] if a not in GLOBAL_FLAGS]
        return super().parse_args(ctx, [*flags, *rest, *args[end:]])


@click.group(cls=_Program, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(paperkg.__version__, prog_name="paperkg")
@click.option("--quiet", "-q", is_flag=True, help="Hide warnings about input records (also after the subcommand).")
@click.option("--all-warnings", is_flag=True,
              help="Print every warning about input records (by default the first 5 of a kind per file, then a count; "
                   "also after the subcommand).")
def cli(quiet: bool, all_warnings: bool) -> None:
    """paperkg: ML paper abstracts in, a research knowledge graph out."""
    _setup_logging(quiet, all_warnings)


@cli.command()
@input_args
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path), help="Mentions JSONL to write.")
@n_process_opt
@no_model_opt
@min_confidence_opt
@max_chars_opt
@progress_opt
def extract(inputs, output, n_process, no_model, min_confidence, max_chars, progress):
    """Extract typed entities from INPUTS (.txt seed lists, .jsonl, .csv, or folders) into mentions JSONL."""
    check_output_file(output)
    result = paperkg.extract_entities(
        inputs, output=output, n_process=n_process, use_model=not no_model, max_chars=max_chars, progress=progress,
        min_confidence=min_confidence,
    )
    _print_report(result.report)
    click.echo(f"wrote {output}", err=True)


@cli.command()
@input_args
# --out is taken as typed (click would turn '' into '.'): an empty or root folder is refused.
@click.option("--out", "out_dir", required=True, type=click.Path(), help="Directory for every export.")
@click.option("--top-k", default=20, show_default=True, type=click.IntRange(min=0), help="Paper-paper links kept per paper (0: none).")
@click.option("--html/--no-html", default=True, show_default=True, help="Also write the HTML explorer.")
@click.option("--store", type=click.Path(path_type=Path), default=None,
              help="Extraction store to re-use and fill [default: DIR/.paperkg-store.sqlite].")
@click.option("--engine", type=click.Choice(["local", "dask"]), default="local", show_default=True,
              help="Where extraction runs: this machine, or a Dask cluster (needs paperkg[dask]).")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Dask scheduler address (tcp://host:8786) for --engine dask [default: a local cluster of --n-process workers].")
@n_process_opt
@no_model_opt
@min_confidence_opt
@max_chars_opt
@progress_opt
def build(inputs, out_dir, top_k, html, store, engine, scheduler, n_process, no_model, min_confidence, max_chars,
          progress):
    """Build the knowledge graph from INPUTS and write every export to --out DIR.

    Writes graph.json (reload with 'paperkg stats DIR/graph.json'), graph.graphml,
    mentions.jsonl and the HTML explorer pages. Incremental: papers whose text and extractor
    are unchanged since an earlier build into the same store are not extracted again.
    """
    from paperkg.extract.run.store import STORE_NAME

    if scheduler is not None and engine != "dask":
        raise click.UsageError("--scheduler needs --engine dask")
    out_dir = check_output_dir(out_dir)
    previous = previous_build(out_dir)
    kg = paperkg.build(inputs, top_k=top_k, n_process=n_process, use_model=not no_model, max_chars=max_chars,
                       progress=progress, store=store or out_dir / STORE_NAME, engine=engine, scheduler=scheduler,
                       min_confidence=min_confidence)
    line = replacing(previous, kg.build_record)
    if line:  # building other papers into a folder replaces its graph: never without a word
        click.echo(line, err=True)
    with timed([], "export", stage_line if progress else None):
        written = kg.export(out_dir, html=html, n_process=n_process)
    _print_build(kg, out_dir, [f"wrote {written[name]}" for name in sorted(written)])


def _print_build(kg, out_dir, lines: list[str]) -> None:
    """The build's summary, once its set is written: a Ctrl-C now says that the set is complete."""
    try:
        _print_report(kg.report)
        click.echo(kg.build_stats.extraction.describe(), err=True)
        counts = kg.counts()
        click.echo(
            f"graph: {counts['papers']} papers, {counts['entities']} entities, "
            f"{counts['paper_entity_edges']} paper-entity edges, {counts['paper_links']} paper links",
            err=True,
        )
        for line in lines:
            click.echo(line, err=True)
    except KeyboardInterrupt:
        raise InterruptedAfterCommit(Path(out_dir)) from None


build_dir_help = "A build folder (from paperkg build): its manifest records the inputs and options."


@cli.command("add")
@input_args
@click.option("--to", "out_dir", required=True, type=click.Path(), help=build_dir_help)  # as typed: '' is refused
@n_process_opt
@progress_opt
def add_command(inputs, out_dir, n_process, progress):
    """Add the papers of INPUTS to the build in --to DIR and write its exports again.

    Only the new papers are extracted (through the build's extraction store); the result is a
    fresh build of the old inputs and INPUTS with the same options, byte for byte. An input of
    the build that changed or vanished since is a one-line error naming it.
    """
    _print_build(paperkg.add(inputs, out_dir, n_process=n_process, progress=progress), out_dir, [f"updated {out_dir}"])


@cli.command("remove")
@click.argument("paper_ids", nargs=-1, required=True, metavar="IDS...")
@click.option("--from", "out_dir", required=True, type=click.Path(), help=build_dir_help)  # as typed: '' is refused
@n_process_opt
@progress_opt
def remove_command(paper_ids, out_dir, n_process, progress):
    """Take the papers IDS out of the build in --from DIR and write its exports again.

    Entities and links that rested only on them go too: the result is a fresh build of the
    inputs without those records, byte for byte. They stay out of later 'paperkg add' runs.
    """
    _print_build(paperkg.remove(paper_ids, out_dir, n_process=n_process, progress=progress), out_dir,
                 [f"updated {out_dir}"])


@cli.command()
@click.argument("graph_file", type=click.Path(path_type=Path))
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=0), help="Rows per list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--pairs", "pairs_file", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="Score resolution on labelled pairs (JSONL: name_a, name_b, label twin|apart), such as "
                   "tests/resolution_pairs.jsonl: twins folded, wrong merges.")
def stats(graph_file, top, as_json, pairs_file):
    """Print counts, singletons, top entities, resolution (scored on --pairs, else the duplicate
    candidates by string), links per paper and the most-linked papers (by evidence) of a saved graph."""
    summary = paperkg.load(graph_file).stats(top=top, pairs=pairs_file)
    if as_json:
        click.echo(json.dumps(summary, indent=2, ensure_ascii=False))
        return
    counts = summary["counts"]
    click.echo(f"papers {counts['papers']}  entities {counts['entities']}  "
               f"paper-entity edges {counts['paper_entity_edges']}  paper links {counts['paper_links']}  "
               f"communities {counts['communities']}")
    profile = summary["entities"]
    click.echo(f"entities in one paper only: {profile['singletons']} ({profile['singleton_share']:.1%})")
    click.echo("paper-entity edges by type and role:")
    for kind, roles in profile["edges_by_type_and_role"].items():
        click.echo(f"  {kind:<10} " + "  ".join(f"{role} {n}" for role, n in roles.items()))
    for kind in ENTITY_TYPES:
        click.echo(f"\n{kind} ({counts['entities_by_type'][kind]})")
        for row in summary["top_entities"][kind]:
            click.echo(f"  {row['paper_count']:>5}  {row['name']}")
    click.echo("\nlargest communities (papers, most specific entities)")
    for row in summary["communities"]:
        partial = f"  (the label covers {row['covered']:.0%} of its papers)" if row["covered"] < 0.5 else ""
        click.echo(f"  {row['papers']:>5}  #{row['community']}  {', '.join(row['labels'])}{partial}")
    if "resolution_pairs" in summary:
        scores = summary["resolution_pairs"]
        click.echo(f"\nresolution on {pairs_file.name}: twins folded {scores['twins_folded']}/{scores['twins']}, "
                   f"wrong merges {len(scores['wrong_merges'])}/{scores['apart']}, absent {len(scores['absent'])}")
        for names in scores["wrong_merges"][:top]:
            click.echo(f"  wrong merge: {names}")
        for names in scores["unfolded"][:top]:
            click.echo(f"  twins apart: {names}")
    else:
        dup = summary["duplicate_candidates"]
        click.echo(f"\nduplicate candidates by string, unchecked (entities in >= 2 papers; --pairs scores on a "
                   f"labelled list): {dup['groups']} groups, {dup['rate']:.1%} of those entities")
        for row in dup["top"]:
            click.echo(f"  {' / '.join(row['keys'])}  ({', '.join(row['kinds'])})")
    links = summary["links"]
    per = links["links_per_paper"]
    click.echo(f"\nlinks per paper: mean {per['mean']}, median {per['median']}, max {per['max']}; "
               f"{links['papers_without_links']} papers without links, {links['papers_at_cap']} at the cap "
               f"({links['cap']}); by kind: " + ", ".join(f"{k} {n}" for k, n in links["links_by_kind"].items())
               + f"; {links['links_on_one_entity']:.0%} of the links sharing entities share one")
    click.echo("  " + "  ".join(f"{bucket}: {n}" for bucket, n in per["histogram"].items()))
    click.echo("\nmost-linked papers (by the total weight of their links)")
    for row in summary["most_linked_papers"]:
        click.echo(f"  {row['evidence']:>7.3f}  {row['links']:>3} links  {row['paper_id']}  {row['label']}")
        click.echo(f"           strongest: {row['strongest']}")
    res = summary["results"]
    click.echo(f"\nresults {res['results']} in {res['papers_with_results']} papers  "
               + "  ".join(f"{kind} {n}" for kind, n in res["by_kind"].items()))
    for title, rows in (("datasets", res["top_datasets"]), ("metrics", res["top_metrics"])):
        click.echo(f"  {title} with most results: " + (", ".join(f"{r['name']} ({r['results']})" for r in rows) or "none"))


@cli.command()
@click.argument("graph_file", type=click.Path(path_type=Path))
@click.option("--out", required=True, type=click.Path(),
              help="A directory (all views) or a .html file (one view).")
@click.option("--view", type=click.Choice(["overview", "entity-map", "similarity", "focus", "all"]), default=None,
              help="Which view to write [default: all views for a directory, the overview for a file].")
@click.option("--focus", default=None, help="A paper id, entity key or entity name: also write its focus page.")
@click.option("--hops", default=2, show_default=True, type=click.IntRange(1, 3), help="Neighbourhood size of a focus page.")
@click.option("--max-entities", type=click.IntRange(min=1), default=None, help="Entities drawn (an opened topic 40, entity map 300).")
@click.option("--max-papers", type=click.IntRange(min=1), default=None, help="Papers drawn (an opened topic 150, similarity map 1000).")
@click.option("--max-edges", type=click.IntRange(min=1), default=None,
              help="Edges drawn (links between topics 2000, entity map 1500, similarity 4000).")
@click.option("--max-focus-nodes", type=click.IntRange(min=1), default=None, help="Nodes drawn on a focus page (300).")
@click.option("--title", default=None, help="Page title.")
def html(graph_file, out, view, focus, hops, max_entities, max_papers, max_edges, max_focus_nodes, title):
    """Write the offline HTML explorer of a saved graph (topic map, entity map, similarity map, focus)."""
    from paperkg.graph.explorer.render import is_dir_target

    out = output_folder(out)
    folder = out if is_dir_target(out) else out.parent
    # Pages merged into the graph's own set are drawn from that set's graph: a build of the
    # folder waits until they are in (issue 21, M2). Another folder's lock is not held, as two
    # html runs crossing two folders would each wait for the other.
    same = os.path.realpath(folder) == os.path.realpath(graph_file.parent)
    with holding(folder) if same else contextlib.nullcontext():
        pages = paperkg.load(graph_file).to_html(
            out, view=view, focus=focus, hops=hops, max_entities=max_entities, max_papers=max_papers,
            max_edges=max_edges, max_focus_nodes=max_focus_nodes, title=title,
        )
    for page in pages:
        click.echo(f"wrote {page}", err=True)


@cli.command()
@click.argument("gold_file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@no_model_opt
@min_confidence_opt
@n_process_opt
def evaluate(gold_file, as_json, no_model, min_confidence, n_process):
    """Score extraction on GOLD_FILE: paper-level gold (paperkg_dev.jsonl: core recall, precision,
    proposed P/R/F1, type accuracy, links, mention P/R/F1) or span gold (SciERC: P/R/F1 per type)."""
    from paperkg.extract.evaluate.papers import PaperEvaluationReport, format_paper_report
    from paperkg.extract.evaluate.spans import format_report

    report = paperkg.evaluate(gold_file, use_model=not no_model, n_process=n_process, min_confidence=min_confidence)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(format_paper_report(report) if isinstance(report, PaperEvaluationReport) else format_report(report))


@cli.command()
@click.option("--gold-dir", type=click.Path(path_type=Path), default=None,
              help="Folder with the *_train.jsonl and *_dev.jsonl gold files [default: ../shared/data/gold].")
@click.option("--output", "output_dir", type=click.Path(path_type=Path), default=None,
              help="Where to write the model [default: the package's own extract/model/ner].")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1), help="Random seed (training is reproducible).")
@progress_opt
def train(gold_dir, output_dir, seed, progress):
    """Train the statistical NER on the gold train splits and install it in the package."""
    from paperkg.extract.learn.train import DEFAULT_MODEL_DIR, default_gold_dir, train_model

    report = train_model(gold_dir or default_gold_dir(), output_dir or DEFAULT_MODEL_DIR, seed=seed, progress=progress)
    click.echo(str(report))


@cli.group()
def neo4j():
    """Run a local Neo4j 5.26 (embedded, Java 17 + Maven) without Docker.

    The password comes from NEO4J_PASSWORD; the data lives in $PAPERKG_HOME/neo4j/data
    (default ~/.local/share/paperkg/neo4j) and persists across restarts.
    """


data_dir_opt = click.option("--data-dir", type=click.Path(path_type=Path), default=None,
                            help="Neo4j data directory (default: $PAPERKG_HOME/neo4j/data, else "
                                 "~/.local/share/paperkg/neo4j).")


@neo4j.command("start")
@click.option("--port", default=7687, show_default=True, type=click.IntRange(1, 65535), help="Bolt port on 127.0.0.1.")
@data_dir_opt
@click.option("--timeout", default=180.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Seconds to wait until Bolt answers.")
@click.option("--heap", default=None, metavar="SIZE",
              help="JVM heap, e.g. 2g (default: a sixth of the available memory, 1-4 GB; PAPERKG_NEO4J_HEAP).")
@click.option("--page-cache", default=None, metavar="SIZE",
              help="Neo4j page cache, e.g. 512m (default: an eighth of the available memory, up to 2 GB; "
                   "PAPERKG_NEO4J_PAGE_CACHE).")
def neo4j_start(port, data_dir, timeout, heap, page_cache):
    """Build the launcher (cached), start Neo4j in the background and wait until Bolt answers.

    JVM heap and page cache follow the available memory (under 3 GB available: a small,
    fast-starting JVM); --heap, --page-cache and PAPERKG_NEO4J_JAVA_OPTS override them. The
    launcher is built into $PAPERKG_HOME/neo4j-local (else ~/.cache/paperkg/neo4j-local); the
    data lives in --data-dir.
    """
    from paperkg.queries.server import start_local

    server = start_local(port=port, data_dir=data_dir, timeout=timeout, heap=heap, page_cache=page_cache,
                         progress=lambda line: click.echo(line, err=True))
    state = "started" if server.started else "already running"
    click.echo(f"Neo4j {state} (pid {server.pid}) at {server.uri}; data {server.data_dir}; log {server.log_path}")


@neo4j.command("stop")
@data_dir_opt
def neo4j_stop(data_dir):
    """Stop the local Neo4j started by 'paperkg neo4j start' (by its pid file).

    Without --data-dir, and no server on the default data dir, it names the data dirs of the
    local servers that do run (stop one with --data-dir DIR).
    """
    from paperkg.queries.server import stop_local

    click.echo(stop_local(data_dir=data_dir).message)


@neo4j.command("import")
@click.argument("source", type=click.Path(path_type=Path))
@data_dir_opt
@click.option("--database", default="neo4j", show_default=True, help="Database to create or replace.")
@click.option("--array-delimiter", default=None,
              help="Separator of array values in the CSVs (default: for a graph.json the first of ; | ^ ~ ` that no "
                   "value holds; for a folder the one its import.sh names).")
def neo4j_import(source, data_dir, database, array_delimiter):
    """Bulk-import SOURCE (a graph.json, or a folder from 'paperkg export --format neo4j-admin')
    into the local Neo4j's data dir with the launcher's own import tool (no neo4j-admin needed).

    Replaces the database; the server must be stopped. Then 'paperkg neo4j start'.
    """
    from paperkg.queries.server.bulk_import import import_graph

    report = import_graph(source, data_dir=data_dir, database=database, array_delimiter=array_delimiter,
                          progress=lambda line: click.echo(line, err=True))
    click.echo(report.describe())


@neo4j.command("status")
@data_dir_opt
def neo4j_status(data_dir):
    """Say whether the local Neo4j runs, with its pid and URI (exit 3 when it does not)."""
    from paperkg.queries.server import status_local

    status = status_local(data_dir=data_dir)
    click.echo(status.describe())
    if not status.running:
        sys.exit(3)


def neo4j_connection_opts(func):
    """--uri --user --password --database; each overrides its NEO4J_* environment variable."""
    for flag, env, default in reversed((("--uri", "NEO4J_URI", "bolt://localhost:7687"), ("--user", "NEO4J_USER", "neo4j"),
                                        ("--password", "NEO4J_PASSWORD", "none"), ("--database", "NEO4J_DATABASE", "neo4j"))):
        func = click.option(flag, default=None, help=f"Overrides ${env} (default {default}).")(func)
    return func


@cli.command("load")
@click.argument("graph_file", type=click.Path(path_type=Path))
@click.option("--batch-size", default=10_000, show_default=True, type=click.IntRange(min=1),
              help="Nodes or relationships per write transaction.")
@click.option("--lock-timeout", default=3600.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              metavar="SECONDS", help="How long to wait for other loads into the database to finish.")
@neo4j_connection_opts
@progress_opt
def load_command(graph_file, batch_size, lock_timeout, uri, user, password, database, progress):
    """Load a saved graph (GRAPH_FILE, e.g. out/graph.json) into Neo4j.

    Idempotent (loading again changes nothing) and incremental (papers already in the database
    stay; the file is the truth for the papers it contains); MERGE-only, so a killed load can
    simply be re-run. Loads into one database run one at a time: a load started while another
    runs waits for it (saying so), so loads started at once end as if run one after the other.
    """
    report = paperkg.load(graph_file).to_neo4j(uri=uri, user=user, password=password, database=database,
                                               batch_size=batch_size, progress=progress, lock_timeout=lock_timeout)
    click.echo(report.describe(), err=True)


@cli.command("query")
@click.argument("name", required=False)
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="A query parameter (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="How the rows are printed.")
@click.option("--list", "list_queries", is_flag=True, help="List every query with its description and parameters.")
@click.option("--graph", "graph_file", type=click.Path(path_type=Path), default=None,
              help="Run over a saved graph.json with NetworkX instead of Neo4j (same rows, no server).")
@neo4j_connection_opts
def query_command(name, params, fmt, list_queries, graph_file, uri, user, password, database):
    """Run the named query NAME (queries/NAME.cypher) against Neo4j, or over --graph FILE."""
    from paperkg.queries.runner import (
        Neo4jSettings,
        describe_library,
        format_rows,
        get_query,
        parse_param_pairs,
        run_query,
    )

    if list_queries:
        click.echo(describe_library())
        return
    if not name:
        raise click.UsageError("give a query NAME, or --list to see them")
    spec = get_query(name)
    values = parse_param_pairs(params)
    if graph_file is not None:
        rows = paperkg.load(graph_file).query(name, **values)
    else:
        settings = Neo4jSettings.from_env(uri=uri, user=user, password=password, database=database)
        rows = run_query(name, values, settings)
    click.echo(format_rows(rows, spec.columns, fmt))


@cli.command("leaderboard")
@click.argument("graph_file", type=click.Path(path_type=Path))
@click.argument("dataset")
@click.option("--metric", default=None, help="Only scores measured by this metric (name, alias or acronym).")
@click.option("--task", default=None, help="Only scores for this task.")
@click.option("-k", "--limit", "k", default=50, show_default=True, type=click.IntRange(min=0), help="Rows to print.")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True,
              help="How the rows are printed.")
def leaderboard_command(graph_file, dataset, metric, task, k, fmt):
    """The scores reported on DATASET (a Dataset or Benchmark: name, alias or acronym) in a saved
    graph (GRAPH_FILE), by metric, best first where the metric's direction is known."""
    from paperkg.queries.runner import format_rows, get_query

    rows = paperkg.load(graph_file).leaderboard(dataset, metric=metric, task=task, k=k)
    if not rows and fmt == "table":
        click.echo(f"no scores reported on {dataset!r}" + (f" for metric {metric!r}" if metric else "")
                   + (f" and task {task!r}" if task else ""), err=True)
        return
    click.echo(format_rows(rows, get_query("leaderboard").columns, fmt))


@cli.command("cypher")
@neo4j_connection_opts
def cypher_command(uri, user, password, database):
    """An interactive Cypher shell over the driver: statements end with ';', rows print as tables.

    :help, :exit, :params, :param NAME=VALUE (JSON or a string; used as $NAME). History via
    readline. With standard input not a terminal (paperkg cypher < file.cypher) it runs the
    statements in order and stops at the first error (exit 1).
    """
    from paperkg.queries.runner import Neo4jSettings
    from paperkg.queries.shell import run_shell

    status = run_shell(Neo4jSettings.from_env(uri=uri, user=user, password=password, database=database))
    if status:
        sys.exit(status)


@cli.command("export")
@click.argument("graph_file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["neo4j-admin"]), required=True,
              help="neo4j-admin: node and relationship CSVs for 'neo4j-admin database import full'.")
@click.argument("out_dir", type=click.Path(path_type=Path))
@click.option("--array-delimiter", default=None,
              help="Separator of array values in the CSVs (default: the first of ; | ^ ~ ` that no value holds).")
def export_command(graph_file, fmt, out_dir, array_delimiter):
    """Export a saved graph (GRAPH_FILE) for bulk import into OUT_DIR."""
    written = paperkg.load(graph_file).to_neo4j_admin(out_dir, array_delimiter=array_delimiter)
    for key in sorted(written):
        click.echo(f"wrote {written[key]}", err=True)
    click.echo(f"import with: sh {written['import']}  (into an empty, stopped Neo4j; see queries/README.md)", err=True)


def _one_line(exc: click.ClickException) -> str:
    """A click error as one line, naming the command's --help for usage errors."""
    message = re.sub(r"\s+", " ", exc.format_message()).strip()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f" (see '{ctx.command_path} --help')"
    return message


def _os_line(exc: OSError) -> str:
    names = [os.fsdecode(n) if isinstance(n, (str, bytes, os.PathLike)) else str(n)
             for n in (exc.filename, exc.filename2) if n is not None]
    where = ": ".join(names).replace("\n", "\\n").replace("\r", "\\r")
    code = errno.errorcode.get(exc.errno, "") if exc.errno else ""
    reason = re.sub(r"\s+", " ", exc.strerror or str(exc) or type(exc).__name__).strip()
    return f"{where + ': ' if where else ''}{reason}{f' ({code})' if code else ''}"


def main() -> None:
    """Console entry point: run the CLI, turning paperkg errors into one-line messages."""
    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort as exc:
        done = exc.__cause__ if isinstance(exc.__cause__, InterruptedAfterCommit) else None
        click.echo(f"interrupted after the new set was complete in {done.out}" if done else "aborted", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()  # plain "paperkg" or "paperkg neo4j": the help text is the answer
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"error: {_one_line(exc)}", err=True)
        sys.exit(exc.exit_code)
    except PaperKGError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        # The last resort for a system error no command turned into a paperkg one (an I/O error,
        # no usable temporary folder): still one line, naming the path and the errno.
        click.echo(f"error: {_os_line(exc)}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
