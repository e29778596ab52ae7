"""M4: reading a seed-format .txt is linear in its length (the campaign found 354 s for 100k
abstracts, from a line count over the whole prefix for every paragraph). The test bounds the
lines the paragraph splitter touches, not the clock."""

from __future__ import annotations

from paperkg.extract.read.readers import _paragraphs


class CountingLines(list):
    """A list of lines that counts how many lines its slices copy."""

    touched = 0

    def __getitem__(self, item):
        result = super().__getitem__(item)
        if isinstance(item, slice):
            CountingLines.touched += len(result)
        return result


def test_paragraph_splitting_touches_each_line_a_bounded_number_of_times():
    lines = ["ICML 2024 Papers", ""]
    for index in range(20_000):
        lines += [f"Abstract {index} first line.", "second line of it.", "", ""]
    CountingLines.touched = 0
    paragraphs = list(_paragraphs(CountingLines(lines)))
    assert len(paragraphs) == 20_001
    assert paragraphs[1] == (3, "Abstract 0 first line.\nsecond line of it.")
    assert paragraphs[-1][0] == 3 + 4 * 19_999
    assert CountingLines.touched <= 2 * len(lines)
