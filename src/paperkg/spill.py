"""Records kept on disk instead of in memory: a build's extraction records, once in the graph.

A 95k-paper build's records take about as much memory as its graph, and after the build they
serve only ``mentions.jsonl`` and ``kg.extractions``. :class:`Spill` pickles them in batches to an
anonymous temporary file (gone when the spill is closed or collected) and reads them back one
batch at a time.

>>> spill = Spill(batch=2)
>>> list(spill.tee(iter("abc")))
['a', 'b', 'c']
>>> len(spill), list(spill), spill[2], spill[-3], spill[1:]
(3, ['a', 'b', 'c'], 'c', 'a', ['b', 'c'])
>>> import pickle; pickle.loads(pickle.dumps(spill))
['a', 'b', 'c']
"""

from __future__ import annotations

import os
import pickle
from bisect import bisect_right
import tempfile
from collections.abc import Sequence
from typing import Iterable, Iterator, TypeVar

from paperkg.errors import output_error

T = TypeVar("T")


class Spill(Sequence):
    """An append-only sequence whose items live pickled in a temporary file, ``batch`` a record."""

    def __init__(self, batch: int = 500) -> None:
        self._file = tempfile.TemporaryFile(prefix="paperkg-spill-")
        self._batch = batch
        self._spans: list[tuple[int, int]] = []  # (start, end) file offsets of each written batch
        self._ends: list[int] = []  # items written up to and including each batch
        self._pending: list = []
        self._length = 0
        self._cached: tuple[int, list] | None = None

    def append(self, item) -> None:
        self._pending.append(item)
        self._length += 1
        if len(self._pending) >= self._batch:
            self._flush()

    def extend(self, items: Iterable) -> None:
        for item in items:
            self.append(item)

    def tee(self, items: Iterable[T]) -> Iterator[T]:
        """Yield ``items`` unchanged, keeping each one."""
        for item in items:
            self.append(item)
            yield item
        self._flush()

    def _flush(self) -> None:
        if self._pending:
            start = self._file.seek(0, 2)
            try:
                pickle.dump(self._pending, self._file, protocol=pickle.HIGHEST_PROTOCOL)
                self._file.flush()  # a full disk is met here, not at some later read
            except OSError as exc:
                # The temporary folder is full (TMPDIR): one line naming it, not a traceback.
                error = output_error(exc, tempfile.gettempdir(), " (the build's temporary records; TMPDIR names another folder)")
                if error is exc:
                    raise
                raise error from exc
            self._spans.append((start, self._file.tell()))
            self._ends.append(self._length)
            self._pending = []

    def _read(self, number: int) -> list:
        if self._cached is None or self._cached[0] != number:
            # pread, not seek + read: a process forked to write an export reads the spill through
            # the same open file, whose offset (and the buffer assuming it) the processes share.
            start, end = self._spans[number]
            self._cached = (number, pickle.loads(os.pread(self._file.fileno(), end - start, start)))
        return self._cached[1]

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator:
        self._flush()
        for number in range(len(self._ends)):
            yield from self._read(number)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError(index)
        self._flush()
        number = bisect_right(self._ends, index)
        return self._read(number)[index - (self._ends[number - 1] if number else 0)]

    def __reduce__(self):
        # A pickled spill (of a pickled KnowledgeGraph) is its items: the file stays behind.
        return list, (list(self),)

    def close(self) -> None:
        self._file.close()
