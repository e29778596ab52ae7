"""Abbreviation definitions ("long form (SHORT)" and "SHORT (long form)") as plain functions.

The matching is the Schwartz & Hearst (2003) algorithm, as in scispaCy's ``abbreviation.py``:
walk the short form right to left and find each character in the long form, the first
character of the short form at the start of a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from paperkg.extract.nlp.budget import Steps

#: How far back from "(" a long form may start, in characters (17 words of 17 characters).
LOOKBEHIND = 300
#: How far back from "(" a short form may start: a short form has at most 12 characters.
SHORT_LOOKBEHIND = 32

_SPACE = re.compile(r"\s")
_WORD_CHAR = re.compile(r"[\w\-]")
_TOKEN_START = re.compile(r"(?<![\w\-])\w")
_PAREN = re.compile(r"\(([^()]{1,120})\)")
_SHORT_FORM = re.compile(r"^[^\s]{1,12}$")
_LONG_FORM_STOP = re.compile(r"[.;:!?]\s|,\s(?:and|or|which|where|while)\s")


@dataclass(frozen=True)
class Abbreviation:
    """One definition: character offsets of the long form and of the short form."""

    long_start: int
    long_end: int
    short_start: int
    short_end: int

    def long_form(self, text: str) -> str:
        return text[self.long_start : self.long_end]

    def short_form(self, text: str) -> str:
        return text[self.short_start : self.short_end]


def is_short_form(candidate: str) -> bool:
    """A plausible short form: one word of 2-12 characters, starting alphanumeric, with a capital.

    >>> is_short_form("SAC"), is_short_form("LLMs"), is_short_form("e.g."), is_short_form("see")
    (True, True, False, False)
    """
    if not _SHORT_FORM.match(candidate) or len(candidate) < 2:
        return False
    if not candidate[0].isalnum() or not any(c.isupper() for c in candidate):
        return False
    return sum(c.isalpha() for c in candidate) >= 2 and "." not in candidate


def match_long_form(short: str, long_candidate: str) -> int | None:
    """Where the long form starts inside ``long_candidate`` (an index), or None.

    >>> text = "we use Soft Actor-Critic"
    >>> text[match_long_form("SAC", text):]
    'Soft Actor-Critic'
    >>> text = "Token-level Direct Preference Optimization"
    >>> text[match_long_form("TDPO", text):]
    'Token-level Direct Preference Optimization'
    >>> match_long_form("XYZ", "graph neural network") is None
    True
    """
    letters = short[:-1] if short.endswith("s") and len(short) > 2 and short[-2].isupper() else short
    letters = "".join(c for c in letters.lower() if c.isalnum())
    if not letters:
        return None
    s_index = len(letters) - 1
    l_index = len(long_candidate) - 1
    lower = long_candidate.lower()
    while s_index >= 0:
        char = letters[s_index]
        # The first short-form character must begin a word of the long form.
        while l_index >= 0 and (
            lower[l_index] != char
            or (s_index == 0 and l_index > 0 and lower[l_index - 1].isalnum())
        ):
            l_index -= 1
        if l_index < 0:
            return None
        l_index -= 1
        s_index -= 1
    start = l_index + 1
    # Back up to the start of the word holding the first matched character.
    while start > 0 and not long_candidate[start - 1].isspace() and long_candidate[start - 1] not in "\"'(":
        start -= 1
    long_form = long_candidate[start:]
    words = long_form.split()
    if len(words) < 2 and len(letters) > 2 and "-" not in long_form:
        return None
    if len(words) > len(letters) + 5:
        return None
    if long_form.lower().strip() == short.lower() or re.search(r"\w's?\s", long_form):
        return None  # "language models' tremendous success (LLMs)" is no definition
    return start


def find_abbreviations(text: str, steps: Steps | None = None) -> list[Abbreviation]:
    """Every "long form (SHORT)" or "SHORT (long form)" definition in ``text``.

    Linear in the text: each parenthesis looks back at most ``LOOKBEHIND`` characters for a long
    form and ``SHORT_LOOKBEHIND`` for a short form, whatever precedes it. ``steps`` counts the
    characters examined (see :mod:`~paperkg.extract.nlp.budget`).

    >>> text = "We introduce RVI-SAC, based on Soft Actor-Critic (SAC), and large language models (LLMs)."
    >>> [(a.long_form(text), a.short_form(text)) for a in find_abbreviations(text)]
    [('Soft Actor-Critic', 'SAC'), ('large language models', 'LLMs')]
    >>> text = "we introduce EAGLE (Extrapolation Algorithm for Greater Language-model Efficiency), a"
    >>> [(a.long_form(text), a.short_form(text)) for a in find_abbreviations(text)]
    [('Extrapolation Algorithm for Greater Language-model Efficiency', 'EAGLE')]
    """
    steps = steps if steps is not None else Steps()
    found: list[Abbreviation] = []
    for paren in _PAREN.finditer(text):
        inner = paren.group(1).strip()
        inner_start = paren.start(1) + (len(paren.group(1)) - len(paren.group(1).lstrip()))
        steps.spend(len(paren.group(0)))
        # "(SAC; Haarnoja et al.)" or "(SAC, 2018)": the short form is the first chunk.
        first_chunk = re.split(r"[;,]\s", inner, maxsplit=1)[0].strip()
        if is_short_form(first_chunk):
            base, before = _window(text, paren.start(), LOOKBEHIND)
            window_start = _long_form_window(before, first_chunk)
            candidate = before[window_start:].rstrip()
            steps.spend(len(before) + len(candidate))
            offset = match_long_form(first_chunk, candidate)
            if offset is not None:
                long_start = base + window_start + offset
                long_end = base + window_start + len(candidate)
                long_start, long_end = _trim_quotes(text, long_start, long_end)
                found.append(Abbreviation(long_start, long_end, inner_start, inner_start + len(first_chunk)))
                continue
        # "EAGLE (Extrapolation Algorithm for ...)": the short form precedes the parenthesis.
        if len(inner.split()) >= 2:
            previous = _previous_word(text, paren.start())
            steps.spend(SHORT_LOOKBEHIND + len(inner))
            if previous is not None:
                short_start = previous[0]
                short = text[short_start : previous[1]].rstrip(",:")
                if is_short_form(short) and match_long_form(short, inner) == 0:
                    found.append(Abbreviation(inner_start, inner_start + len(inner), short_start, short_start + len(short)))
    return found


def _window(text: str, end: int, size: int) -> tuple[int, str]:
    """``(start, text[start:end])``: at most ``size`` characters before ``end``, without a word
    cut in two at the window's left edge."""
    start = max(0, end - size)
    if start > 0 and not text[start - 1].isspace():
        space = _SPACE.search(text, start, end)
        start = space.start() if space else end
    return start, text[start:end]


def _previous_word(text: str, end: int) -> tuple[int, int] | None:
    """Offsets of the word right before ``end`` (spaces between allowed), when it is at most
    ``SHORT_LOOKBEHIND`` characters long and ends within ``SHORT_LOOKBEHIND`` of ``end``.

    >>> text = "we use EAGLE  ("
    >>> start, stop = _previous_word(text, 14); text[start:stop]
    'EAGLE'
    >>> _previous_word("x" * 100 + " (", 101) is None
    True
    """
    floor = max(0, end - 2 * SHORT_LOOKBEHIND)
    stop = end
    while stop > floor and text[stop - 1].isspace():
        stop -= 1
    if stop == floor or stop < end - SHORT_LOOKBEHIND:
        return None
    start = stop
    limit = max(0, stop - SHORT_LOOKBEHIND)
    while start > limit and not text[start - 1].isspace() and text[start - 1] != "(":
        start -= 1
    if start == stop or (start == limit and start > 0 and not text[start - 1].isspace() and text[start - 1] != "("):
        return None  # nothing there, or a word longer than any short form
    return start, stop


def find_short_forms(text: str, shorts: Iterable[str], steps: Steps | None = None) -> Iterator[tuple[int, int, str]]:
    """Every use of the defined short forms, in one pass: ``(start, end, short)``.

    A use is the short form (or its plural, "LLM" for "LLMs" too) as a whole token: not inside a
    longer word or hyphenated name. Each token start tries the at most 13 lengths a short form
    can have, so the pass is linear in the text however many forms there are.

    >>> text = "LLMs beat an LLM; TLLM and LLM-based do not."
    >>> [(text[s:e], short) for s, e, short in find_short_forms(text, ["LLMs"])]
    [('LLMs', 'LLMs'), ('LLM', 'LLMs')]
    """
    steps = steps if steps is not None else Steps()
    forms: dict[str, list[str]] = {}
    for short in shorts:
        forms.setdefault(short.rstrip("s") or short, []).append(short)
    if not forms:
        return
    lengths = sorted({len(base) for base in forms})
    firsts = {base[0] for base in forms}
    for token in _TOKEN_START.finditer(text):
        start = token.start()
        steps.spend(1)
        if token.group() not in firsts:
            continue
        steps.spend(len(lengths))
        for length in lengths:
            base = text[start : start + length]
            if len(base) < length:
                break
            if base not in forms:
                continue
            end = start + length
            if text.startswith("s", end) and not _WORD_CHAR.match(text, end + 1):
                end += 1
            elif _WORD_CHAR.match(text, end):
                continue
            for short in forms[base]:
                yield start, end, short


def _long_form_window(before: str, short: str) -> int:
    """Start of the text a long form may come from: at most min(|S|+5, 2|S|) words back."""
    max_words = min(len(short) + 5, len(short) * 2)
    stop = None
    for stop in _LONG_FORM_STOP.finditer(before):
        pass
    floor = stop.end() if stop else 0
    segment = before[floor:]
    words = segment.rsplit(None, max_words)
    if not words or not words[-1]:
        return len(before)
    if len(words) <= max_words:
        return floor + len(segment) - len(segment.lstrip())
    return before.index(words[1], floor + len(words[0]))


def _trim_quotes(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in "\"'`*“‘":
        start += 1
    while end > start and text[end - 1] in "\"'`*”’,":
        end -= 1
    return start, end
