"""Text helpers: JSON safe inside a script element, labels, URLs, UTF-16 mark offsets."""

from __future__ import annotations

import functools
import json
import math
import re
import zlib
from typing import Any, Iterator

from paperkg.graph.explorer.config import LABEL_MAX, SURROGATE

#: Array members per piece while streaming a payload (:func:`iter_json_for_script`).
CHUNK = 2000
dumps = functools.partial(json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def script_safe(text: str) -> str:
    text = (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def json_for_script(obj: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``.

    ``<``, ``>`` and ``&`` become ``\\u003c``... (no ``</script>``, no ``<!--``), U+2028/9 are
    escaped, and lone surrogates (impossible to encode as UTF-8) become ``\\udXXX`` escapes.
    """
    return script_safe(dumps(obj))


def _pieces(obj: Any) -> Iterator[tuple[str, bool]]:
    """(text, already script-safe) pieces of the JSON of ``obj``."""
    if isinstance(obj, JsonChunks):
        yield "[", True
        for i, text in enumerate(obj.texts()):
            yield ("," if i else "") + text, True
        yield "]", True
    elif isinstance(obj, dict) and all(isinstance(key, str) for key in obj):
        yield "{", True
        for i, (key, value) in enumerate(obj.items()):
            yield ("," if i else "") + dumps(key) + ":", False
            yield from _pieces(value)
        yield "}", True
    elif isinstance(obj, list) and len(obj) > CHUNK:
        yield "[", True
        for start in range(0, len(obj), CHUNK):
            yield ("," if start else "") + dumps(obj[start:start + CHUNK])[1:-1], False
        yield "]", True
    else:
        yield dumps(obj), False


def iter_json_for_script(obj: Any) -> Iterator[str]:
    """:func:`json_for_script` of ``obj`` in pieces, a few thousand array members each, so the
    text of a whole page's payload never exists at once (the escapes are per character, so
    each piece is escaped on its own). ``obj`` may hold :class:`JsonChunks` (written as the
    array they hold).

    >>> data = {"a": list(range(5000)), "b": {"c": "</script>", "d": [1.5, None]}}
    >>> "".join(iter_json_for_script(data)) == json_for_script(data)
    True
    >>> rows = JsonChunks()
    >>> _ = [rows.add(row) for row in data["a"]]
    >>> "".join(iter_json_for_script({**data, "a": rows.close()})) == json_for_script(data)
    True
    """
    for text, safe in _pieces(obj):
        yield text if safe else script_safe(text)


class JsonChunks:
    """The members of a JSON array, already :func:`script_safe`, in zlib-compressed chunks of
    ``CHUNK`` members: the page data of a whole graph held in a few MB and written piece by
    piece (:func:`iter_json_for_script`); :meth:`decode` gives the
    list back."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self._pending: list[Any] = []

    def add(self, member: Any) -> None:
        self._pending.append(member)
        if len(self._pending) >= CHUNK:
            self.close()

    def close(self) -> "JsonChunks":
        if self._pending:
            text = script_safe(dumps(self._pending)[1:-1])
            self.chunks.append(zlib.compress(text.encode("utf-8"), 1))
            self._pending = []
        return self

    def texts(self) -> Iterator[str]:
        for chunk in self.chunks:
            yield zlib.decompress(chunk).decode("utf-8")

    def decode(self) -> list[Any]:
        return [member for text in self.texts() for member in json.loads("[" + text + "]")]


def as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    text = value if isinstance(value, str) else str(value)
    return text


def short(text: str, limit: int = LABEL_MAX) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def http_url(value: Any) -> str | None:
    """The URL if it is an absolute http(s) URL without whitespace/control characters, else None."""
    url = as_text(value)
    if not url:
        return None
    url = url.strip()
    if not re.match(r"(?i)^https?://[^\s/?#]+", url) or re.search(r"[\x00-\x20\x7f]", url):
        return None
    return url


def int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def finite(value: Any, default: float = 0.0) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if math.isfinite(number) else default


def mark_ranges(evidence: str, offset: Any, mentions: Any) -> list[int]:
    """Flat [start, end, ...] UTF-16 ranges of the mentions inside the evidence sentence.

    Mentions carry abstract offsets; inside the evidence a mention starts at
    ``start - evidence_offset``. A mention whose text does not sit there is looked up in the
    sentence instead; mentions outside the sentence are dropped. Overlaps are merged.
    """
    if not evidence or not isinstance(mentions, (list, tuple)):
        return []
    base = int_or_none(offset) or 0
    spans: list[tuple[int, int]] = []
    for mention in mentions:
        if not isinstance(mention, (list, tuple)) or len(mention) < 2:
            continue
        start, end = int_or_none(mention[0]), int_or_none(mention[1])
        text = as_text(mention[2]) if len(mention) > 2 else None
        if start is None or end is None:
            continue
        rel_start, rel_end = start - base, end - base
        ok = 0 <= rel_start < rel_end <= len(evidence)
        if ok and text is not None and evidence[rel_start:rel_end] != text:
            ok = False
        if not ok and text:
            found = evidence.find(text)
            if found < 0:
                continue
            rel_start, rel_end = found, found + len(text)
        elif not ok:
            continue
        spans.append((rel_start, rel_end))
    spans.sort()
    merged: list[list[int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    flat: list[int] = []
    for start, end in merged:
        flat += [utf16_len(evidence[:start]), utf16_len(evidence[:end])]
    return flat
