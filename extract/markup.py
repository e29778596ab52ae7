"""Blank out markup (LaTeX, markdown, HTML) without moving a single character.

The NLP pipeline reads the masked text, so every offset it yields still indexes the abstract
exactly as read: markup characters become spaces instead of being deleted.
"""

from __future__ import annotations

import re

_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]{1,300}?\$|\\\(.+?\\\)|\\\[.+?\\\]", re.S)
# \textit{X} and friends keep X; the command and the braces go.
_LATEX_WRAPPER = re.compile(r"\\(?:text(?:it|bf|tt|sc|rm|sf)?|emph|mathrm|mathbf|mathcal|mathit|url|href)\s*\{([^{}]*)\}")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,200})?/?>")
_MARKDOWN = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|`+|(?m:^#+ )")
_TEX_QUOTES = re.compile(r"``|''")


def _blank(match: re.Match) -> str:
    return " " * (match.end() - match.start())


def _blank_wrapper(match: re.Match) -> str:
    inner_start = match.start(1) - match.start()
    inner = match.group(1)
    whole = match.group(0)
    return " " * inner_start + inner + " " * (len(whole) - inner_start - len(inner))


def mask_markup(text: str) -> str:
    """Replace markup with spaces, keeping the length and every other character in place.

    >>> mask_markup("we propose **FedBAT** in <b>X</b>")
    'we propose   FedBAT   in    X    '
    >>> len(mask_markup("a $x$ b")) == len("a $x$ b")
    True
    """
    masked = _MATH.sub(_blank, text)
    masked = _LATEX_WRAPPER.sub(_blank_wrapper, masked)
    masked = _LATEX_COMMAND.sub(_blank, masked)
    masked = _HTML_TAG.sub(_blank, masked)
    masked = _MARKDOWN.sub(_blank, masked)
    masked = _TEX_QUOTES.sub(_blank, masked)
    return masked
