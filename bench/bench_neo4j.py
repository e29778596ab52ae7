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
    python bench/bench_neo4j.py --only full --jvm startup        # the old start-up JVM profile
    python bench/bench_neo4j.py --scale graph-95k.json           # bulk import vs paperkg load

Without ``--uri``/``NEO4J_URI`` it starts a throw-away local Neo4j (``paperkg.queries.server``)
on a free port and stops it at the end; ``--jvm`` picks its JVM: ``bench`` (default: full JIT,
parallel GC, 2 GB heap, 512 MB page cache), ``default`` (what ``paperkg neo4j start`` picks from
the available memory) or ``startup`` (the small, fast-starting profile). The database it
benchmarks against is wiped first: never point it at a database you care about.

``--scale GRAPH_JSON`` (a graph saved by ``bench/bench_scale.py --save-graph``) compares the two
ways into a local Neo4j, each as the CLI command a user runs, with ``paperkg neo4j start``'s
default JVM: ``paperkg neo4j import GRAPH_JSON`` into a fresh data dir, then a start and the
node and relationship counts over Bolt; and ``paperkg load GRAPH_JSON`` into an empty server.
It prints wall time, CPU seconds (the command and its children; for the load also the server's),
relationships per wall second, and both databases' counts, which must be equal.
"""

from __future__ import annotations

import argparse
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from recording import add_record_option, record

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


def bench_load(name: str, graph, settings, driver, batch_size: int, attempts=("load", "re-load")) -> dict:
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
    return {"nodes": report.nodes, "relationships": report.relationships,
            "nodes_per_s": round(report.nodes_per_second), "rels_per_s": round(report.relationships_per_second)}


def bench_naive(graph, settings, driver, sample: int, batch_size: int, repeats: int = 5) -> dict:
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
    return {"relationships": n, "naive_s": round(naive_seconds, 2), "batched_s": round(batched_seconds, 3),
            "speedup": round(naive_seconds / batched_seconds)}


def _launch_options(server) -> list[str]:
    """The JVM options and page cache the server was started with (from its command line)."""
    with open(f"/proc/{server.pid}/cmdline", "rb") as handle:
        args = handle.read().decode().split("\0")
    return [a for a in args if a.startswith("-X") or a.startswith("-XX")] + args[args.index("--page-cache"):][:2]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) of a running process, from /proc."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_command(command: list[str], env: dict) -> tuple[float, float, str]:
    """Run a CLI command; (wall s, CPU s of it and its children, its last line). Exits on failure."""
    wall, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return wall, cpu, said[-1] if said else ""


def bench_scale(graph_json: Path, java_opts) -> None:
    """``paperkg neo4j import`` vs ``paperkg load`` of one graph.json (see the module doc)."""
    from paperkg.graph.build import paper_nodes
    from paperkg.graph.export import read_node_link
    from paperkg.queries.loader import database_counts
    from paperkg.queries.runner import Neo4jSettings, connect
    from paperkg.queries.server import free_port, start_local, stop_local

    graph = read_node_link(graph_json)
    papers = len(paper_nodes(graph))
    print(f"[scale] {graph_json}: {papers:,} papers, {graph.number_of_nodes():,} nodes, "
          f"{graph.number_of_edges():,} edges", flush=True)
    del graph
    paperkg = [str(Path(sys.executable).parent / "paperkg")]
    password = secrets.token_urlsafe(12)
    env = {**os.environ, "NEO4J_PASSWORD": password}
    tmp = Path(tempfile.mkdtemp(prefix="paperkg-bench-scale-"))
    counts = {}
    try:
        for way in ("bulk", "load"):
            data_dir = tmp / way / "neo4j"
            data_dir.mkdir(parents=True)
            if way == "bulk":
                command = [*paperkg, "neo4j", "import", str(graph_json), "--data-dir", str(data_dir)]
                wall, cpu, out = timed_command(command, env)
            started = time.perf_counter()
            server = start_local(port=free_port(), data_dir=data_dir, password=password, timeout=600,
                                 java_opts=java_opts)
            start_seconds = time.perf_counter() - started
            try:
                settings = Neo4jSettings(uri=server.uri, user=server.user, password=password)
                if way == "load":
                    command = [*paperkg, "load", str(graph_json)]
                    server_cpu = process_cpu(server.pid)
                    wall, cpu, out = timed_command(command, {**env, "NEO4J_URI": server.uri, "NEO4J_USER": server.user})
                    server_cpu = process_cpu(server.pid) - server_cpu
                driver = connect(settings)
                try:
                    counts[way] = database_counts(driver, settings)
                    with driver.session(database=settings.database) as session:
                        for label in ("Paper", "Entity"):
                            counts[way][label] = session.run(f"MATCH (n:{label}) RETURN count(n) AS c").single()["c"]
                finally:
                    driver.close()
            finally:
                stop_local(data_dir=data_dir)
            rels = counts[way]["relationships"]
            shown = " ".join(["paperkg", *command[len(paperkg):]])
            extra = f", server {server_cpu:.1f} CPU s" if way == "load" else ""
            print(f"[scale] {way}: `{shown}`: {wall:.1f} s wall, {cpu:.1f} CPU s (command and its children{extra}); "
                  f"{rels / wall:,.0f} rels/s; then start {start_seconds:.1f} s; database over Bolt: "
                  f"{counts[way]['nodes']:,} nodes ({counts[way]['Paper']:,} :Paper, {counts[way]['Entity']:,} :Entity), "
                  f"{rels:,} relationships; says: {out[:300]}",
                  flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    same = counts["bulk"] == counts["load"]
    print(f"[scale] bulk and load databases hold the same counts: {same}", flush=True)
    if not same:
        sys.exit(1)


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
    parser.add_argument("--jvm", choices=["bench", "default", "startup"], default="bench",
                        help="JVM of the local server: the bench's throughput options, paperkg neo4j start's "
                             "memory-based defaults, or the small start-up profile")
    parser.add_argument("--scale", type=Path, metavar="GRAPH_JSON",
                        help="only compare 'paperkg neo4j import' with 'paperkg load' on this graph")
    add_record_option(parser)
    args = parser.parse_args(argv)
    from paperkg.queries.server import STARTUP_JAVA_OPTS, STARTUP_PAGE_CACHE

    java_opts, page_cache = {"bench": (THROUGHPUT_JAVA_OPTS, "512m"), "default": (None, None),
                             "startup": (STARTUP_JAVA_OPTS, STARTUP_PAGE_CACHE)}[args.jvm]
    if args.scale is not None:
        print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
              flush=True)
        bench_scale(args.scale, java_opts)
        return 0

    from paperkg.queries.runner import Neo4jSettings, connect

    prebuilt = {}
    for item in args.graph:
        name, _, path = item.partition("=")
        if name not in ("icml2024", "full") or not path:
            parser.error(f"--graph expects icml2024=PATH or full=PATH, got {item!r}")
        prebuilt[name] = Path(path)
    from paperkg.extract.nlp.pipeline import MODEL_DIR

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
        server = start_local(port=free_port(), data_dir=data_dir, password=password, timeout=300,
                             java_opts=java_opts, page_cache=page_cache)
        settings = Neo4jSettings(uri=server.uri, user=server.user, password=password)
        print(f"Neo4j: started a local server at {server.uri} (--jvm {args.jvm}: "
              f"{' '.join(_launch_options(server))})", flush=True)
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
            figures = {name: bench_load(name, graphs[name], settings, driver, args.batch_size) for name in wanted}
            figures["batched_vs_naive"] = bench_naive(graphs[wanted[-1]], settings, driver, args.sample, args.batch_size)
            if args.record:
                record("bench_neo4j", {"use_model": use_model, "jvm": args.jvm, **figures},
                       argv=argv and ["bench/bench_neo4j.py", *argv])
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
