"""How a function's CPU time grows with its input: a ratio, not a time, so a loaded machine
slows both sizes alike. Linear work grows by the size factor, quadratic by its square."""

from __future__ import annotations

import time
from typing import Callable


def cpu_growth(func: Callable[[str], object], make: Callable[[int], str], size: int, factor: int = 8,
               repeat: int = 3) -> float:
    """CPU time of ``func(make(size * factor))`` over that of ``func(make(size))`` (best of
    ``repeat`` each): about ``factor`` for linear work, ``factor ** 2`` for quadratic."""
    def best(n: int) -> float:
        text = make(n)
        times = []
        for _ in range(repeat):
            start = time.process_time()
            func(text)
            times.append(time.process_time() - start)
        return max(min(times), 1e-4)  # below the clock's resolution, count a tick

    return best(size * factor) / best(size)
