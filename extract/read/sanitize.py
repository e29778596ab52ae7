"""Normalize input text once, at the reader, so nothing later meets a character it cannot handle.

Every field of every record passes through :func:`clean_text`: lone surrogates (from JSON
escapes such as ``"\\udc80"``) become U+FFFD, line endings become ``\\n``, control characters and
Unicode noncharacters (illegal in XML, invisible in text) go, whitespace controls (``\\v``, ``\\f``,
``\\x1c``-``\\x1f``, NEL) become a space, and invisible format characters (zero-width spaces and
joiners, soft hyphens, bidi overrides and isolates, a stray BOM) go, so ``Zero\\u200bWidthNet``
and ``ZeroWidthNet`` are one name. The cleaned text is what the graph stores, so every offset
indexes the abstract as stored. The reader warns per cleaned record, the first few of each kind
per file, then a count (``paperkg.extract.read.readers.SHOWN_PER_KIND``).
"""

from __future__ import annotations

import re
from collections import Counter

# One pass over the text finds every character that needs a decision; the common case (clean
# text) costs one regex scan and no Python-level loop. Characters beyond the BMP are looked for
# only in text that has any: a class with astral ranges scans 2-3x slower.
_SUSPECT_BMP = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff"
    "\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0]"
)
_SUSPECT = re.compile(_SUSPECT_BMP.pattern[:-1] + "\U0001fffe\U0001ffff\U0010fffe\U0010ffff\U000e0000-\U000e0fff]")
_LINE_END = re.compile(r"\r\n?")
_AS_SPACE = frozenset("\x0b\x0c\x1c\x1d\x1e\x1f\x85")

#: What a report calls each kind of change.
KINDS = {
    "surrogate": "lone surrogate",
    "control": "control character",
    "noncharacter": "Unicode noncharacter",
    "invisible": "zero-width or bidi control character",
}


def _kind(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        return "surrogate"
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return "control"
    if 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:
        return "noncharacter"
    return "invisible"


def _replacement(char: str, kind: str) -> str:
    if kind == "surrogate":
        return "\ufffd"
    return " " if char in _AS_SPACE else ""


def clean_text(text: str, counts: Counter | None = None) -> str:
    r"""The text with every unsafe character replaced or removed; ``counts`` (when given) adds
    one per change, by kind.

    >>> counts = Counter()
    >>> clean_text("Zero\u200bWidthNet\x00 is \u202egood\r\nyes\rno", counts), counts
    ('ZeroWidthNet is good\nyes\nno', Counter({'invisible': 2, 'control': 1}))
    >>> clean_text("bad \udc80 id"), clean_text("tab\tand\x0bvt"), clean_text("tag\U000e0041s")
    ('bad \ufffd id', 'tab\tand vt', 'tags')
    """
    if "\r" in text:
        text = _LINE_END.sub("\n", text)
    if not _SUSPECT_BMP.search(text) and (text.isascii() or max(text) <= "\uffff" or not _SUSPECT.search(text)):
        return text

    def replace(match: re.Match) -> str:
        char = match.group(0)
        kind = _kind(char)
        if counts is not None:
            counts[kind] += 1
        return _replacement(char, kind)

    return _SUSPECT.sub(replace, text)


def describe(counts: Counter) -> str:
    """``2 zero-width or bidi control characters, 1 control character`` (most frequent first).

    >>> from collections import Counter
    >>> describe(Counter({"invisible": 2, "surrogate": 1}))
    '2 zero-width or bidi control characters, 1 lone surrogate'
    """
    parts = []
    for kind, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        parts.append(f"{count} {KINDS[kind]}{'s' if count != 1 else ''}")
    return ", ".join(parts)
