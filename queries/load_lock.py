"""One ``paperkg load`` at a time per database (issue 21, M4).

Two loads of overlapping graphs that interleave each prune a paper's stale relationships
before the other writes its own, so the paper ends with the relationships of both files: a
state no serial order gives. So a load holds the database's load lock from before it reads
which papers exist until its counts are recomputed.

The lock is an open transaction that has written the uncommitted node
``(:PaperKGLoadLock {id: 'load'})`` under a unique constraint (``_load_lock.cypher``): the
write lock Neo4j takes for it is held until the transaction ends, and the next load's identical
statement waits for it. The load's own writes run in other transactions that never touch that
node, so they cannot wait on it. The transaction is rolled back at the end, so the node is never
stored. A loader killed with ``kill -9`` does not block later loads: its connection closes and
the server rolls its transaction back, releasing the lock at once.

A waiting load reports that it waits every :data:`WAIT_REPORT_SECONDS` and, past its timeout,
ends its waiting transaction (``_load_lock_cancel.cypher``, found by its metadata) and raises
:class:`paperkg.errors.LoadLockTimeoutError`.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from typing import Callable, Iterator

from paperkg.errors import LoadLockTimeoutError
from paperkg.queries.runner import Neo4jSettings, neo4j_errors, statement

#: The one lock of a database (every load takes the same one).
LOCK_NAME = "load"
#: How long a load waits for the others by default (a 95k-paper load takes about 6 minutes).
DEFAULT_LOCK_TIMEOUT = 3600.0
#: How often a waiting load says that it waits.
WAIT_REPORT_SECONDS = 5.0


@contextlib.contextmanager
def load_lock(driver, settings: Neo4jSettings, *, timeout: float = DEFAULT_LOCK_TIMEOUT,
              say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the database's load lock for the block (see the module docstring)."""
    token = uuid.uuid4().hex
    with driver.session(database=settings.database) as session:
        with neo4j_errors(settings, "taking the load lock"):
            tx = session.begin_transaction(metadata={"paperkg_load_lock": token})
        try:
            _acquire(tx, driver, settings, token, timeout, say)
            yield
        finally:
            # Ending the transaction releases the lock; a connection lost meanwhile already did.
            with contextlib.suppress(Exception):
                tx.rollback()


def _acquire(tx, driver, settings: Neo4jSettings, token: str, timeout: float,
             say: Callable[[str], None] | None) -> None:
    acquired, gave_up = threading.Event(), threading.Event()
    started = time.monotonic()
    where = f"database {settings.database!r} at {settings.uri}"

    def watch() -> None:
        while not acquired.wait(max(0.0, min(WAIT_REPORT_SECONDS, started + timeout - time.monotonic()))):
            waited = time.monotonic() - started
            if waited >= timeout:
                gave_up.set()
                with contextlib.suppress(Exception), driver.session(database=settings.database) as session:
                    session.run(statement("lock_cancel"), token=token).consume()
                return
            if say is not None:
                say(f"waiting for another paperkg load into {where} to finish ({waited:.0f} s of at most {timeout:.0f} s)")

    watcher = threading.Thread(target=watch, name="paperkg-load-lock", daemon=True)
    watcher.start()
    failure: BaseException | None = None
    try:
        tx.run(statement("lock"), name=LOCK_NAME, token=token).consume()
    except Exception as exc:  # noqa: BLE001 - a timeout's termination, or re-raised below
        failure = exc
    finally:
        acquired.set()
        watcher.join()
    # Checked after the join: a lock taken just as the watcher gave up was terminated with it.
    if gave_up.is_set():
        raise LoadLockTimeoutError(f"gave up after {timeout:.0f} s waiting for another paperkg load into {where}: "
                                   f"retry when it has finished, or wait longer with --lock-timeout") from failure
    if failure is not None:
        with neo4j_errors(settings, "taking the load lock"):
            raise failure
