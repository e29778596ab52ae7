"""Extraction on several cores: a pool of worker processes that each load the pipeline once and
return only the plain rows the spaCy component produced.

spaCy's own ``nlp.pipe(n_process=N)`` sends every ``Doc`` back to the parent with
``Doc.to_bytes`` (28 KB per abstract; 18% of the CPU went to serializing), although paperkg
needs only ``doc._.paperkg_mentions`` and friends. Here each worker runs ``nlp.pipe`` over a
task of whole batches and returns :func:`~paperkg.extract.nlp.records.doc_record` rows; the parent gets
them in input order.

Determinism: a task is a whole number of ``batch_size`` batches, cut from the input in order,
so every document is in the same NER batch as in one process, and the output equals the
single-process output bit for bit (tests/test_workers.py checks it on real abstracts).

Workers are spawned (never forked: the parent may hold threads, e.g. BLAS or a progress bar),
so a script that extracts with ``n_process > 1`` needs the usual ``if __name__ == "__main__":``
guard. Workers die with their parent: each watches the pipe that multiprocessing keeps open from
the parent alone (``parent_process().sentinel``), which closes when the parent dies however it
dies (SIGKILL, SIGTERM, a crash), so no worker (~260 MB each) nor the resource tracker is left
behind. Each worker uses one BLAS thread: the cores are shared out as processes, and a second
BLAS thread per process only spins (+80% CPU for the NER in one process).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import sys
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from itertools import islice
from typing import Iterable, Iterator

from threadpoolctl import threadpool_limits

from paperkg.forks import exit_with_parent

#: Batches per task: enough to amortize sending a task, few enough that the cores share the
#: last ones evenly.
BATCHES_PER_TASK = 4

# glibc's mallopt parameters: keep freed memory in the heap instead of returning it to the OS,
# so the NER's large per-batch arrays reuse pages instead of faulting in fresh ones.
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3
_MALLOC_SETTINGS = ((_M_MMAP_THRESHOLD, 64 << 20), (_M_TRIM_THRESHOLD, 256 << 20), (_M_TOP_PAD, 64 << 20))

_worker: dict = {}


def one_blas_thread():
    """A context that keeps numpy's BLAS to one thread (extraction parallelizes by process)."""
    return threadpool_limits(limits=1, user_api="blas")


def _glibc(name: str):
    """glibc's function ``name``, or None where the C library is not glibc (musl: its allocator
    has no such knobs) or the platform is not Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return getattr(ctypes.CDLL("libc.so.6"), name)
    except (OSError, AttributeError):
        return None


def keep_freed_memory() -> None:
    """On glibc, a heap that keeps up to 256 MB of what it frees instead of returning it to the
    OS (about 8% less CPU in the NER, from fewer page faults). Process-wide and idempotent: the
    in-process extraction path sets it too, so one process extracts as fast as a worker."""
    if (mallopt := _glibc("mallopt")) is not None:
        for parameter, value in _MALLOC_SETTINGS:
            mallopt(parameter, value)


def return_freed_memory() -> None:
    """On glibc, give the heap's free pages back to the OS (``malloc_trim``). The build calls it
    after each stage: what a stage freed sits among the pages still in use, where the heap keeps
    it (at 95k papers ~110 MB at the link stage's start, and the export ran 140 MB lower)."""
    if (malloc_trim := _glibc("malloc_trim")) is not None:
        malloc_trim(0)


def tune_worker_process() -> None:
    """Settings for a process that only extracts: one BLAS thread and :func:`keep_freed_memory`."""
    threadpool_limits(limits=1, user_api="blas")
    keep_freed_memory()


def _extract(items: list[tuple[str, int]], use_model: bool, batch_size: int) -> list:
    from paperkg.extract.nlp.pipeline import build_pipeline
    from paperkg.extract.nlp.records import doc_record

    if not _worker:
        # Set up on the first task, not in a pool initializer: an error (a broken model) then
        # reaches the parent as itself instead of a broken pool.
        tune_worker_process()
        _worker["tuned"] = True
    nlp = build_pipeline(use_model)  # cached: loaded once per worker
    return [(index, *doc_record(doc)) for doc, index in nlp.pipe(items, as_tuples=True, batch_size=batch_size)]


def pool_stream(items: Iterable[tuple[str, int]], *, use_model: bool, n_process: int,
                batch_size: int) -> Iterator[tuple]:
    """``(index, DocMentions, notes)`` for each ``(text, index)`` of ``items``, in input order,
    from ``n_process`` worker processes. At most two tasks per worker are in flight, so memory
    stays bounded whatever the input size; a worker that dies fails the run
    (``BrokenProcessPool``) instead of hanging it."""
    items = iter(items)
    pool = ProcessPoolExecutor(n_process, mp_context=multiprocessing.get_context("spawn"),
                               initializer=exit_with_parent)
    pending: deque = deque()
    try:
        while task := list(islice(items, batch_size * BATCHES_PER_TASK)):
            pending.append(pool.submit(_extract, task, use_model, batch_size))
            if len(pending) >= 2 * n_process:
                yield from pending.popleft().result()
        while pending:
            yield from pending.popleft().result()
    finally:
        pool.shutdown(wait=not pending, cancel_futures=True)
