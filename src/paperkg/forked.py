"""Work run side by side in forked processes: the export's writers, and the per-paper records.

The files of an export set (graph.json, graph.graphml, mentions.jsonl, resolution.jsonl, the
explorer pages) are independent: each streams from the built graph, or the spilled records, to
its own file of the set's staging folder. :func:`run_writers` runs them in child processes
forked from the built state, so a child has the graph as it is in memory (nothing is pickled)
and sends back only its writer's small result. The set's all-or-nothing commit stays with the
parent (:mod:`paperkg.graph.export_set`): it commits once every child has written its files,
and on an error in any child it stops the others before the staging folder is deleted, so the
previous set is left as it was.

:func:`fork_map` runs one function over a stream of tasks in a few children forked from the
state when the first task is asked for, and yields the results in task order: after corpus
resolution, each child has the resolution's tables and makes, from a batch of stored documents,
the papers' records with their roles, confidence and results (``paperkg.extract.run.corpus``).

Why fork: a spawned child would have to rebuild or unpickle the graph (or the resolution), which
costs more than the work it takes over. Fork exists on Linux and macOS only (elsewhere the work
runs in turn), and forking a process that runs other threads can deadlock a child on a lock one
of them held: both are run from a build's main thread, once its extraction workers are gone.

Errors: a child's exception reaches the parent as itself (pickled), raised there as the serial
path raises it, so a :class:`~paperkg.errors.PaperKGError` is still one line in the CLI; the
child's traceback is its ``__cause__``. A child that dies without a word (killed, out of memory)
is a :class:`WorkerDiedError`. Children die with their parent (the parent's sentinel, as the
extraction workers watch it), and the parent's Ctrl-C ends them before the staging folder goes.

``gc.freeze()`` while children run: the collector in a child would otherwise write to the header
of every tracked object of the inherited state and so copy nearly every page of it.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import traceback
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from paperkg.errors import PaperKGError
from paperkg.extract.run.workers import exit_with_parent

#: Below this many papers the writers run in turn: forking and waiting cost more than they save
#: (measured: ``python bench/bench_export.py --speed``, docs/performance.md).
AUTO_MIN_PAPERS = 500
T, R = TypeVar("T"), TypeVar("R")


class WorkerDiedError(PaperKGError):
    """A forked process died without reporting (killed, or out of memory)."""


class ExportWorkerError(WorkerDiedError):
    """A process writing one export died without reporting."""


class _RemoteTraceback(Exception):
    def __init__(self, text: str):
        super().__init__(text)

    def __str__(self) -> str:
        return self.args[0]


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


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
                        ok, value = receive.recv()
                    except EOFError:
                        process.join()
                        raise ExportWorkerError(f"the process writing {name} died (exit code {process.exitcode})") from None
                process.join()
                if not ok:
                    error, text = value
                    raise error from _RemoteTraceback(text)
                results[name] = value
    finally:
        for receive, (_, process) in running.items():
            process.terminate()
            process.join()
            receive.close()
        gc.unfreeze()
    return {name: results[name] for name, _ in writers}


def fork_map(work: Callable[[T], R], tasks: Iterable[T], processes: int, *, what: str) -> Iterator[R]:
    """``work(task)`` for each of ``tasks``, yielded in task order; computed in ``processes``
    children forked when the first result is asked for (1: here, in turn). Each child has one
    task at a time, so neither end ever waits on a full pipe; the next task goes to a child
    before its result is unpickled, so the child works while the parent reads. ``what`` names
    the work in the error of a child that dies. The children end when the results do, or when
    the consumer stops early or fails.

    >>> list(fork_map(abs, [-3, 1, -2, 5, -4], 2, what="absolutes")) == list(map(abs, [-3, 1, -2, 5, -4]))
    True
    """
    if processes <= 1 or not can_fork():
        yield from map(work, tasks)
        return
    context = multiprocessing.get_context("fork")
    tasks = iter(tasks)
    children: list = []  # (process, the parent's end of the task pipe, of the result pipe)
    waiting: deque = deque()  # the children with a task, in task order
    gc.freeze()
    try:
        for number in range(processes):
            task_receive, task_send = context.Pipe(duplex=False)
            result_receive, result_send = context.Pipe(duplex=False)
            process = context.Process(target=_worker, args=(work, task_receive, result_send),
                                      name=f"paperkg-{what.replace(' ', '-')}-{number}")
            process.start()
            task_receive.close()
            result_send.close()  # the child holds the only write end: its death is an EOF here
            children.append((process, task_send, result_receive))
        for child in children:
            if not _give(child, tasks):
                break
            waiting.append(child)
        while waiting:
            child = waiting.popleft()
            process, _, result_receive = child
            try:
                message = result_receive.recv_bytes()
            except EOFError:
                process.join()
                raise WorkerDiedError(f"a process making {what} died (exit code {process.exitcode})") from None
            if _give(child, tasks):
                waiting.append(child)
            ok, value = pickle.loads(message)
            if not ok:
                error, text = value
                raise error from _RemoteTraceback(text)
            yield value
    finally:
        for process, task_send, result_receive in children:
            process.terminate()
            process.join()
            task_send.close()
            result_receive.close()
        gc.unfreeze()


def _give(child, tasks: Iterator) -> bool:
    for task in tasks:
        child[1].send(task)
        return True
    return False


def _worker(work: Callable, receive, send) -> None:
    exit_with_parent()
    while True:
        task = receive.recv()
        try:
            message = (True, work(task))
        except BaseException as exc:  # noqa: BLE001 - a Ctrl-C too: the parent decides what it ends
            send.send((False, (_portable(exc), traceback.format_exc())))
            return
        send.send(message)


def _child(write: Callable[[], Any], send) -> None:
    exit_with_parent()
    try:
        message = (True, write())
    except BaseException as exc:  # noqa: BLE001 - a Ctrl-C too: the parent decides what it ends
        message = (False, (_portable(exc), traceback.format_exc()))
    send.send(message)
    send.close()


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else an error that does: a PaperKGError of the same one
    line for one of ours, a RuntimeError naming the type for any other."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception type may refuse pickling
        return PaperKGError(str(exc)) if isinstance(exc, PaperKGError) else RuntimeError(f"{type(exc).__name__}: {exc}")
