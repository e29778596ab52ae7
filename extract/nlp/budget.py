"""A per-document work budget, so no input can make extraction run for hours.

The rule algorithms (abbreviation detection, short-form matching, overlap resolution) are
linear or n·log n in the text length and count their elementary steps on a :class:`Steps`;
the pipeline gives each document ``STEPS_PER_CHAR * len(text) + STEPS_BASE`` steps, and a stage
that would exceed them raises :class:`BudgetExceeded`, is skipped for that document and is
reported. Tests bound the same counts, which measure the algorithm rather than the clock.
"""

from __future__ import annotations

from paperkg.errors import ExtractionError

#: Far above what real abstracts need (at most 2.8 steps per character on ICML 2024, 0.6 on
#: average; the campaign's hostile inputs need up to 36), far below a quadratic algorithm's
#: ~length steps per character.
STEPS_PER_CHAR = 200
STEPS_BASE = 100_000


class BudgetExceeded(ExtractionError):
    """A document needed more steps than its budget."""


class Steps:
    """A step counter with an optional limit.

    >>> steps = Steps(limit=10)
    >>> steps.spend(4); steps.count
    4
    >>> steps.spend(7)
    Traceback (most recent call last):
    ...
    paperkg.extract.nlp.budget.BudgetExceeded: over the budget of 10 steps
    """

    __slots__ = ("count", "limit")

    def __init__(self, limit: int | None = None) -> None:
        self.count = 0
        self.limit = limit

    @classmethod
    def for_text(cls, text: str) -> "Steps":
        return cls(STEPS_PER_CHAR * len(text) + STEPS_BASE)

    def spend(self, steps: int = 1) -> None:
        self.count += steps
        if self.limit is not None and self.count > self.limit:
            raise BudgetExceeded(f"over the budget of {self.limit:,} steps")
