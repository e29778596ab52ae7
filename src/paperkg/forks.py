"""Work run side by side in processes forked from this one, results in task order.

:func:`fork_map` runs one function over a stream of tasks in a few children forked from the
state when the first result is asked for: after corpus resolution, each child has the
resolution's tables and makes, from a batch of stored documents, the papers' records with their
roles, confidence and results (:mod:`paperkg.extract.run.corpus`); the link and community stages score text and entity
pairs in ranges of rows (:func:`fork_ranges`, :mod:`paperkg.graph.linking`); the export's
writers run the same way (:mod:`paperkg.forked`).

Why fork: a spawned child would have to rebuild or unpickle the state it needs, which costs more
than the work it takes over. Fork exists on Linux and macOS only (elsewhere the work runs in
turn), and forking a process that runs other threads can deadlock a child on a lock one of them
held: the build forks from its main thread, once its extraction workers are gone.

Errors: a child's exception reaches the parent as itself (pickled), raised there as the serial
path raises it, so a :class:`~paperkg.errors.PaperKGError` is still one line in the CLI; the
child's traceback is its ``__cause__``. A child that dies without a word (killed, out of memory)
is a :class:`WorkerDiedError`. Children die with their parent (the parent's sentinel, as the
extraction workers watch it).

``gc.freeze()`` while children run: the collector in a child would otherwise write to the header
of every tracked object of the inherited state and so copy nearly every page of it.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import threading
import traceback
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from paperkg.errors import PaperKGError

T, R = TypeVar("T"), TypeVar("R")


class WorkerDiedError(PaperKGError):
    """A forked process died without reporting (killed, or out of memory)."""


class RemoteTraceback(Exception):
    """A child's traceback, as text: the ``__cause__`` of its error raised in the parent."""

    def __init__(self, text: str):
        super().__init__(text)

    def __str__(self) -> str:
        return self.args[0]


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def exit_with_parent() -> None:
    """The extraction pool's initializer and a forked child's first step: a daemon
    thread that ends this worker as soon as its parent is gone.

    The pool's call queue cannot tell: a spawned worker holds both ends of its pipe, so it
    would wait for a task forever."""
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)  # no cleanup to wait for: the parent that wanted the results is gone

    threading.Thread(target=watch, name="paperkg-parent-watch", daemon=True).start()


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
            yield result_of(pickle.loads(message))
    finally:
        for process, task_send, result_receive in children:
            process.terminate()
            process.join()
            task_send.close()
            result_receive.close()
        gc.unfreeze()


def fork_ranges(work: Callable[[int, int], R], total: int, size: int, processes: int, *, what: str) -> Iterator[R]:
    """``work(start, stop)`` for consecutive ranges of ``size`` over ``range(total)``, in order,
    through :func:`fork_map` (``work`` may be a closure: a forked child gets it without pickling).

    >>> list(fork_ranges(lambda a, b: list(range(a, b)), 5, 2, 2, what="ranges"))
    [[0, 1], [2, 3], [4]]
    """
    return fork_map(lambda bounds: work(*bounds), ((start, min(start + size, total)) for start in range(0, total, size)),
                    processes, what=what)


def indexed_slices(items: Sequence[T], work: Callable[[list[tuple[int, T]]], R]) -> Callable[[int, int], R]:
    """A :func:`fork_ranges` task: ``work`` over ``items[start:stop]`` with their indices, read
    where the task runs (a lazy sequence, such as the extraction store's documents, is then read
    in the child: the parent neither reads nor sends the items).

    >>> indexed_slices("abcd", list)(1, 3)
    [(1, 'b'), (2, 'c')]
    """
    return lambda start, stop: work(list(enumerate(items[start:stop], start)))


def _give(child, tasks: Iterator) -> bool:
    for task in tasks:
        child[1].send(task)
        return True
    return False


def _worker(work: Callable, receive, send) -> None:
    exit_with_parent()
    while True:
        message = outcome(work, receive.recv())
        send.send(message)
        if not message[0]:
            return


def outcome(call: Callable, *args) -> tuple[bool, Any]:
    """A child's message: ``(True, call(*args))``, or ``(False, (error, traceback))`` for the
    parent's :func:`result_of` to raise."""
    try:
        return True, call(*args)
    except BaseException as exc:  # noqa: BLE001 - a Ctrl-C too: the parent decides what it ends
        return False, (_portable(exc), traceback.format_exc())


def result_of(message: tuple[bool, Any]) -> Any:
    """The value of a child's :func:`outcome`, or its error raised here with the child's
    traceback as the cause."""
    ok, value = message
    if not ok:
        error, text = value
        raise error from RemoteTraceback(text)
    return value


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else an error that does: a PaperKGError of the same one
    line for one of ours, a RuntimeError naming the type for any other."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception type may refuse pickling
        return PaperKGError(str(exc)) if isinstance(exc, PaperKGError) else RuntimeError(f"{type(exc).__name__}: {exc}")
