"""Text the tokenizer reads in linear time: long punctuation runs split by spaces.

spaCy's tokenizer strips a prefix or a suffix one character at a time and searches the rest of
the chunk again each time, so a chunk of 20,000 brackets or quotes costs 20,000² character
steps (50 s in ``find_suffix``). No name holds more than a few punctuation characters in a row,
so in a run longer than :data:`MAX_RUN` every :data:`MAX_RUN`-th character becomes a space:
chunks stay short, the text keeps its length and every other character, and every offset still
indexes the abstract as read.
"""

from __future__ import annotations

import re

#: The longest punctuation run the tokenizer sees unbroken.
MAX_RUN = 16
_RUN = re.compile(r"[^\w\s]{%d,}" % (MAX_RUN + 1))


def _split(match: re.Match) -> str:
    run = match.group(0)
    return "".join(" " if index % MAX_RUN == MAX_RUN - 1 else char for index, char in enumerate(run))


def split_punctuation_runs(text: str) -> str:
    """``text`` with a space in place of every :data:`MAX_RUN`-th character of a longer
    punctuation run (same length).

    >>> split_punctuation_runs("We propose FooNet " + "{" * 20)
    'We propose FooNet {{{{{{{{{{{{{{{ {{{{'
    >>> split_punctuation_runs("a (b) -- c...")
    'a (b) -- c...'
    """
    return _RUN.sub(_split, text)
