"""The export's writers side by side, in processes forked from the built graph.

The files of an export set (graph.json, graph.graphml, mentions.jsonl, resolution.jsonl, the
explorer pages) are independent: each streams from the built graph, or the spilled records, to
its own file of the set's staging folder. :func:`run_writers` runs them in child processes
forked from the built state, so a child has the graph as it is in memory (nothing is pickled)
and sends back only its writer's small result. The set's all-or-nothing commit stays with the
parent (:mod:`paperkg.graph.export_set`): it commits once every child has written its files,
and on an error in any child it stops the others before the staging folder is deleted, so the
previous set is left as it was.

Why fork, the errors, and ``gc.freeze()``: as for the papers' records
(:mod:`paperkg.forks`). A writer that dies without a word is an
:class:`ExportWorkerError`; the parent's Ctrl-C ends the children before the staging folder goes.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
from typing import Any, Callable, Sequence

from paperkg.forks import WorkerDiedError, can_fork, exit_with_parent, outcome, result_of

#: Below this many papers the writers run in turn: forking and waiting cost more than they save
#: (measured: ``python bench/bench_export.py --speed``, docs/performance.md).
AUTO_MIN_PAPERS = 500


class ExportWorkerError(WorkerDiedError):
    """A process writing one export died without reporting."""


def writer_processes(n_process: int, papers: int, writers: int) -> int:
    """How many processes write ``writers`` exports of a ``papers``-paper graph: ``n_process``
    (at most one per writer; 1: in this process), or for 0 one per usable core from
    :data:`AUTO_MIN_PAPERS` papers on; 1 wherever fork is not available.

    >>> writer_processes(1, 10**6, 5), writer_processes(0, 10, 5), writer_processes(9, 10, 5) == (5 if can_fork() else 1)
    (1, 1, True)
    """
    if not can_fork():
        return 1
    if n_process:
        return min(n_process, writers)
    if papers < AUTO_MIN_PAPERS:
        return 1
    return max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
                      writers))


def run_writers(writers: Sequence[tuple[str, Callable[[], Any]]], processes: int) -> dict[str, Any]:
    """``{name: result}`` of each ``(name, write)``, run in turn (``processes`` 1) or in up to
    ``processes`` forked children at once, started in the order given (the longest first makes
    the shortest run). An error in any writer is raised once no child is left running."""
    if processes <= 1:
        return {name: write() for name, write in writers}
    context = multiprocessing.get_context("fork")
    waiting = list(writers)
    running: dict = {}  # the parent's end of a child's pipe -> (name, process)
    results: dict[str, Any] = {}
    gc.freeze()
    try:
        while waiting or running:
            while waiting and len(running) < processes:
                name, write = waiting.pop(0)
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(write, send), name=f"paperkg-export-{name}")
                process.start()
                send.close()  # the child holds the only write end: its death is an EOF here
                running[receive] = (name, process)
            for receive in multiprocessing.connection.wait(list(running)):
                name, process = running.pop(receive)
                with receive:
                    try:
                        message = receive.recv()
                    except EOFError:
                        process.join()
                        raise ExportWorkerError(f"the process writing {name} died (exit code {process.exitcode})") from None
                process.join()
                results[name] = result_of(message)
    finally:
        for receive, (_, process) in running.items():
            process.terminate()
            process.join()
            receive.close()
        gc.unfreeze()
    return {name: results[name] for name, _ in writers}


def _child(write: Callable[[], Any], send) -> None:
    exit_with_parent()
    send.send(outcome(write))
    send.close()
