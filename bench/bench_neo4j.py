"""Benchmark the Neo4j loader: nodes/s and relationships/s, and batched vs naive writes.

Loads the ICML 2024 graph (2,634 papers) and the full 8,112-paper graph (all three corpus files)
into an empty Neo4j, printing nodes/s and relationships/s of each load (and of an idempotent
re-load), after one warm-up load whose (cold JVM) figures are printed too; then, on a sample of relationships, times the batched loader statement (UNWIND, one
transaction) against a naive loader that runs one MERGE per transaction, and prints the ratio.
Targets: relationships/s >= 20,000 and batched/naive >= 50x.

Usage::

    python bench/bench_neo4j.py                                  # build both graphs, own server
    python bench/bench_neo4j.py --graph icml2024=out/icml/graph.json --graph full=out/all/graph.json
    NEO4J_URI=bolt://localhost:7687 NEO4J_PASSWORD=... python bench/bench_neo4j.py --graph ...

Without ``--uri``/``NEO4J_URI`` it starts a throw-away local Neo4j (``paperkg.queries.server``)
on a free port with JVM options for throughput (full JIT, parallel GC, 2 GB heap, 512 MB page
cache; the launcher's defaults favour start-up time) and stops it at the end. The database it
benchmarks against is wiped first: never point it at a database you care about.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "data" / "corpus"
THROUGHPUT_JAVA_OPTS = ["-Xms1g", "-Xmx2g", "-XX:+UseParallelGC", "-XX:-OmitStackTraceInFastThrow",
                        "-Dlog4j2.disable.jmx=true"]

NAIVE_HAS = """
MATCH (p:Paper {id: $paper})
MATCH (e:Entity {key: $key})
MERGE (p)-[r:USES]->(e)
SET r.count = $count, r.evidence = $evidence, r.evidence_offset = $evidence_offset
"""
NAIVE_LINK = """
MATCH (a:Paper {id: $source})
MATCH (b:Paper {id: $target})
MERGE (a)-[r:RELATED_TO]->(b)
SET r.weight = $weight, r.shared = $shared
"""


def build_graph(name: str, paths: list[Path], use_model: bool, cache: Path | None):
    import paperkg

    if cache is not None and cache.exists():
        print(f"[{name}] reading the prebuilt graph {cache}", flush=True)
        return paperkg.load(cache).graph
    for path in paths:
        if not path.exists():
            sys.exit(f"missing corpus file {path} (pass --graph {name}=GRAPH_JSON instead)")
    started = time.perf_counter()
    print(f"[{name}] building from {', '.join(p.name for p in paths)} (use_model={use_model}) ...", flush=True)
    kg = paperkg.build(paths, use_model=use_model, progress=False)
    print(f"[{name}] built in {time.perf_counter() - started:.0f} s", flush=True)
    if cache is not None:
        kg.save(cache)
    return kg.graph


def wipe(driver, database: str) -> None:
    with driver.session(database=database) as session:
        session.run("CALL () { MATCH (n) DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS").consume()


def bench_load(name: str, graph, settings, driver, batch_size: int, attempts=("load", "re-load")) -> None:
    from paperkg.queries.loader import load_graph

    wipe(driver, settings.database)
    for attempt in attempts:
        report = load_graph(graph, settings, batch_size=batch_size, progress=False, driver=driver)
        print(f"[{name}] {attempt}: {report.nodes:,} nodes in {report.node_seconds:.2f} s = "
              f"{report.nodes_per_second:,.0f} nodes/s; {report.relationships:,} relationships in "
              f"{report.relationship_seconds:.2f} s = {report.relationships_per_second:,.0f} rels/s; "
              f"total {report.seconds:.2f} s (prepare {report.prepare_seconds:.2f} s, "
              f"finalize {report.finalize_seconds:.2f} s, {report.batches} batches of <= {batch_size:,}); "
              f"database: {report.database_counts}", flush=True)


def bench_naive(graph, settings, driver, sample: int, batch_size: int, repeats: int = 5) -> None:
    """The same relationships written by the batched statement and by one MERGE per transaction.

    Both loaders first write a separate warm-up sample (untimed: query plans cached, JIT warm);
    the naive run is timed once, the batched one as the best of ``repeats``.
    """
    from paperkg.queries.loader import ROLE_STATEMENTS, _write, batch_params, load_graph, prepare_rows
    from paperkg.queries.runner import statement

    rows = prepare_rows(graph)
    half = sample // 2
    has_rows, warm_has = rows.relationships["used"][:half], rows.relationships["used"][half : half + 50]
    link_rows, warm_links = rows.links[: sample - half], rows.links[sample - half : sample - half + 50]
    n = len(has_rows) + len(link_rows)
    wipe(driver, settings.database)
    load_graph(graph, settings, batch_size=batch_size, progress=False, driver=driver)

    def delete(has, links) -> None:
        with driver.session(database=settings.database) as session:
            session.run("UNWIND $rows AS row MATCH (:Paper {id: row.paper})-[r:USES]->(:Entity {key: row.key}) "
                        "DELETE r", rows=has).consume()
            session.run("UNWIND $rows AS row MATCH (:Paper {id: row.source})-[r:RELATED_TO]->(:Paper {id: row.target}) "
                        "DELETE r", rows=links).consume()

    def count(has, links) -> int:
        with driver.session(database=settings.database) as session:
            a = session.run("UNWIND $rows AS row MATCH (:Paper {id: row.paper})-[r:USES]->(:Entity {key: row.key}) "
                            "RETURN count(r) AS c", rows=has).single()["c"]
            b = session.run("UNWIND $rows AS row MATCH (:Paper {id: row.source})-[r:RELATED_TO]->(:Paper {id: row.target}) "
                            "RETURN count(r) AS c", rows=links).single()["c"]
            return a + b

    def naive(has, links) -> float:
        started = time.perf_counter()
        with driver.session(database=settings.database) as session:
            for row in has:
                session.execute_write(_write, NAIVE_HAS, row)
            for row in links:
                session.execute_write(_write, NAIVE_LINK, row)
        return time.perf_counter() - started

    def batched(has, links) -> float:
        started = time.perf_counter()
        with driver.session(database=settings.database) as session:
            for key, part in ((ROLE_STATEMENTS["used"], has), ("links", links)):
                for params in batch_params(key, part, batch_size):
                    session.execute_write(_write, statement(key), params)
        return time.perf_counter() - started

    delete(has_rows + warm_has, link_rows + warm_links)
    naive(warm_has, warm_links)
    delete(warm_has, warm_links)
    batched(warm_has, warm_links)
    naive_seconds = naive(has_rows, link_rows)
    assert count(has_rows, link_rows) == n, "the naive loader did not write every relationship"
    batched_seconds = float("inf")
    for _ in range(repeats):
        delete(has_rows, link_rows)
        batched_seconds = min(batched_seconds, batched(has_rows, link_rows))
        assert count(has_rows, link_rows) == n, "the batched loader did not write every relationship"
    print(f"[batched vs naive] {n:,} relationships ({len(has_rows)} USES + {len(link_rows)} RELATED_TO): "
          f"naive one-MERGE-per-transaction {naive_seconds:.2f} s = {n / naive_seconds:,.0f} rels/s; batched "
          f"{batched_seconds:.3f} s = {n / batched_seconds:,.0f} rels/s (best of {repeats}); "
          f"batched is {naive_seconds / batched_seconds:,.0f}x faster", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--graph", action="append", default=[], metavar="NAME=GRAPH_JSON",
                        help="a prebuilt graph.json for 'icml2024' or 'full' (skips building it)")
    parser.add_argument("--save-graphs", type=Path, help="directory to save built graphs in, for next time")
    parser.add_argument("--no-model", action="store_true", help="build without the trained NER (faster)")
    parser.add_argument("--only", choices=["icml2024", "full"], action="append", help="load only this graph")
    parser.add_argument("--batch-size", type=int, default=10_000)
    parser.add_argument("--sample", type=int, default=2_000, help="relationships for batched vs naive")
    for flag in ("--uri", "--user", "--password", "--database"):
        parser.add_argument(flag, help="Neo4j connection (default: NEO4J_* env, else a throw-away local server)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed-for-the-figures warm-up load")
    parser.add_argument("--launcher-defaults", action="store_true",
                        help="start the local server with the launcher's default JVM options")
    args = parser.parse_args(argv)

    from paperkg.queries.runner import Neo4jSettings, connect

    prebuilt = {}
    for item in args.graph:
        name, _, path = item.partition("=")
        if name not in ("icml2024", "full") or not path:
            parser.error(f"--graph expects icml2024=PATH or full=PATH, got {item!r}")
        prebuilt[name] = Path(path)
    from paperkg.extract.pipeline import MODEL_DIR

    use_model = (MODEL_DIR / "meta.json").exists() and not args.no_model
    sources = {"icml2024": [CORPUS / "icml2024.jsonl"],
               "full": [CORPUS / "icml2024.jsonl", CORPUS / "iclr2024.jsonl", CORPUS / "neurips2023.jsonl"]}
    wanted = args.only or ["icml2024", "full"]

    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"(other processes compete for the cores)", flush=True)
    server = data_dir = None
    if args.uri or os.environ.get("NEO4J_URI"):
        settings = Neo4jSettings.from_env(uri=args.uri, user=args.user, password=args.password, database=args.database)
        print(f"Neo4j: {settings.uri} (database {settings.database}); it will be wiped", flush=True)
    else:
        from paperkg.queries.server import free_port, start_local

        password = secrets.token_urlsafe(12)
        data_dir = Path(tempfile.mkdtemp(prefix="paperkg-bench-")) / "neo4j"
        opts = None if args.launcher_defaults else THROUGHPUT_JAVA_OPTS
        server = start_local(port=free_port(), data_dir=data_dir, password=password, timeout=300,
                             java_opts=opts, page_cache="64m" if args.launcher_defaults else "512m")
        settings = Neo4jSettings(uri=server.uri, user=server.user, password=password)
        print(f"Neo4j: started a local server at {server.uri} (JVM options: "
              f"{'launcher defaults' if opts is None else ' '.join(opts)})", flush=True)
    try:
        driver = connect(settings)
        try:
            graphs = {}
            for name in wanted:
                cache = prebuilt.get(name) or (args.save_graphs / f"{name}.json" if args.save_graphs else None)
                graphs[name] = build_graph(name, sources[name], use_model, cache)
            if not args.no_warmup:
                # A fresh JVM interprets and JIT-compiles Cypher's runtime during its first load:
                # report that cold load separately, then measure on the warm server.
                what = "first load on the fresh server (cold JVM)" if server is not None else "warm-up load"
                bench_load(f"{wanted[0]} warm-up", graphs[wanted[0]], settings, driver, args.batch_size,
                           attempts=(what,))
            for name in wanted:
                bench_load(name, graphs[name], settings, driver, args.batch_size)
            bench_naive(graphs[wanted[-1]], settings, driver, args.sample, args.batch_size)
        finally:
            driver.close()
    finally:
        if server is not None:
            from paperkg.queries.server import stop_local

            stop_local(data_dir=data_dir)
            shutil.rmtree(data_dir.parent, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
