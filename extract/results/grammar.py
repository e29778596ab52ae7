"""The number grammar: every number of an abstract as written, parsed into a value and a unit.

A value is the number exactly as the abstract writes it, with its sign, percent sign,
multiplier or attached unit letter and nothing else (``"76.2%"``, ``"15\\%"``, ``"8.6 \\times"``,
``"2-5x"``, ``"1-2 orders of magnitude"``). Units: ``%``, ``x`` (a factor: x, ×, ``\\times``,
"times", "-fold", orders of magnitude), ``points`` ("by 2.1 points": the word follows the value
but is not part of it) and ``absolute``. A range ("1-3%", "5 to 10 times") is one value with
``number`` its low end and ``upper`` its high end.

Not numbers here: digits inside names and identifiers (GPT-4, CIFAR-10, 7B, 3D, 1st, x^2) and
numbers in math superscripts; which numbers are *results* is decided later
(:mod:`paperkg.extract.results.extract`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

UNITS: tuple[str, ...] = ("%", "x", "points", "absolute")

_NUM = r"[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[+\-\u2212]?\.\d+"
_PCT = r"\s?\$?\\?%"
_TIMES = r"\$\\times\$|\s?\\times|\s?\u00d7|[xX](?![A-Za-z0-9])|\s(?:times)\b|-fold\b|\s(?:orders?) of magnitude\b"
_ATTACHED = r"(?:s|ms)(?![A-Za-z0-9])"
_UNIT = rf"(?:{_PCT}|{_TIMES}|{_ATTACHED})"
_SEP = r"\s?(?:-|\u2013|\u2014|\$?\\sim\$?|~)\s?|\sto\s"
_NUMBER = re.compile(
    rf"(?P<frac>\d+/\d+)(?:th)?(?![\d/])"
    rf"|(?P<a>{_NUM})(?P<ua>{_UNIT})?(?:(?P<sep>{_SEP})(?P<b>{_NUM})(?P<ub>{_UNIT}))?"
)
_POINTS = re.compile(r"\s*(?:[A-Za-z@\-0-9]+\s+){0,2}?(?:percentage\s+points?|points?|pp\b|p\.p\.)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Number:
    """One number of a text: offsets, the value as written, its parse and its unit."""

    start: int
    end: int
    text: str
    number: float
    unit: str
    upper: float | None = None


def _float(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


def _unit(written: str | None) -> str:
    if not written:
        return "absolute"
    if "%" in written:
        return "%"
    if written.strip() in ("s", "ms"):
        return "absolute"
    return "x"


def _glued_before(text: str, start: int) -> bool:
    """Digits that continue a word: GPT-4, CIFAR-10, ResNet50, v1.5, x^2 (the sign of "-4"
    after a letter is the name's hyphen)."""
    before = text[start - 1] if start else " "
    if before == "/":  # "3.4%/3.3%": two values; "ViT-G/14": a name
        return not text[:start - 1].endswith("%")
    if before == "{":  # "x^{2}", but "\\textit{10 times}"
        return text[start - 2:start - 1] in ("^", "_")
    return before.isalnum() or before in "_^\\"


def _glued_after(text: str, end: int) -> bool:
    """Digits that a word continues: 7B, 3D, 1st, 5-shot, 10$^{-3}$."""
    after = text[end:end + 2]
    if after[:1].isalpha() or after[:1] in "_^" or after in ("$^", "$_"):
        return True
    return after[:1] == "-" and after[1:2].isalpha()


def find_numbers(text: str) -> list[Number]:
    """Every number of ``text`` with its unit, left to right.

    >>> [(n.text, n.number, n.unit, n.upper) for n in find_numbers("reaches 76.2% top-1 accuracy, 3x faster than GPT-4")]
    [('76.2%', 76.2, '%', None), ('3x', 3.0, 'x', None)]
    >>> [(n.text, n.unit) for n in find_numbers(r"by $8.6 \\times$ and 15\\%$\\sim$30\\%, up to 2-5x less")]
    [('8.6 \\\\times', 'x'), ('15\\\\%', '%'), ('30\\\\%', '%'), ('2-5x', 'x')]
    >>> [(n.text, n.unit) for n in find_numbers("improves BLEU by 2.1 points on 12 datasets with 7B parameters")]
    [('2.1', 'points'), ('12', 'absolute')]
    """
    found: list[Number] = []
    position = 0
    while match := _NUMBER.search(text, position):
        start, end = match.span()
        position = end
        if match.group("frac"):
            num, den = match.group("frac").split("/")
            if _glued_before(text, start) or float(den) == 0:
                continue
            found.append(Number(start, end, text[start:end], float(num) / float(den), "absolute"))
            continue
        if text[start] in "-\u2212" and start and text[start - 1] in "%xX$\u00d7":
            # "4%-36%": the dash of a range, not a sign
            start += 1
        elif _glued_before(text, start):
            continue
        a = abs(_float(match.group("a"))) if start > match.start() else None
        a = _float(match.group("a")) if a is None else a
        if match.group("b") and not match.group("ua"):
            b = _float(match.group("b"))
            if b < a:  # "2020-21", "10-5": not a range of values
                continue
            unit, upper = _unit(match.group("ub")), b
        else:
            # "2.7x-3.5x": a unit on both ends is two values; the second is matched next.
            end = position = match.end("ua") if match.group("ua") else match.end("a")
            unit, upper = _unit(match.group("ua")), None
            if not match.group("ua") and _glued_after(text, end):
                continue
        if unit == "absolute" and _POINTS.match(text, end):
            unit = "points"
        found.append(Number(start, end, text[start:end], a, unit, upper))
    return found
