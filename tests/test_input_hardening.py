"""Issue 11, inputs: the hostile-input campaign's reproductions on the readers.

Each test is one finding (H3, M3, M4, M5, and the low items on inputs) and failed on the code
before the fix.
"""

import json
import os
import subprocess
import sys

import pytest

from paperkg.errors import InputError
from paperkg.extract.read.readers import iter_input_files, read_papers
from paperkg.graph.build import build_graph
from paperkg.types import Extraction


def write(tmp_path, name, content):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def jsonl(tmp_path, *records, name="p.jsonl"):
    # ensure_ascii keeps lone surrogates as \udc80 escapes, exactly what the campaign fed in
    return write(tmp_path, name, "".join(json.dumps(r) + "\n" for r in records))


class TestLoneSurrogates:
    """H3: one "\\udc80" escape crashed readers.paper_id_for (abstract) or the build (other fields)."""

    def test_in_every_field(self, tmp_path):
        path = jsonl(tmp_path, {"id": "a\udc80", "title": "T\ud800", "abstract": "We propose Foo\udc80Net.",
                                "authors": ["A\udfff"], "keywords": ["k\udc80"], "venue": "V\udc80"})
        result = read_papers([path])
        paper = result.papers[0]
        assert paper.abstract == "We propose Foo\ufffdNet."
        assert (paper.id, paper.title, paper.authors, paper.keywords, paper.venue) == (
            "a\ufffd", "T\ufffd", ("A\ufffd",), ("k\ufffd",), "V\ufffd")
        assert any(w.startswith(f"{path}:1: ") and "6 lone surrogates" in w for w in result.warnings)
        for value in (paper.id, paper.abstract, paper.title):
            value.encode("utf-8")


class TestInvisibleAndControlCharacters:
    """Build item 2 (and H1's source): control, zero-width and bidi characters go at the reader."""

    def test_jsonl(self, tmp_path):
        path = jsonl(tmp_path, {"abstract": "We propose Zero\u200bWidthNet\x00 and \u202eImage\u200dNet\x08 here.",
                                "title": "A\x0bB\x7fC"})
        result = read_papers([path])
        paper = result.papers[0]
        assert paper.abstract == "We propose ZeroWidthNet and ImageNet here."
        assert paper.title == "A BC"
        assert [w for w in result.warnings if w.startswith(f"{path}:1: removed or replaced")]

    def test_raw_control_bytes_in_jsonl_are_cleaned_not_a_lost_record(self, tmp_path):
        path = write(tmp_path, "p.jsonl", b'{"abstract": "tab\tand \x01 bell"}\n')
        assert read_papers([path]).papers[0].abstract == "tab\tand  bell"

    @pytest.mark.parametrize("char", ["\x00", "\x01", "\x0b", "\x0c", "\x1b", "\x7f", "\ufffe", "\uffff", "\u2066", "\ufeff"])
    def test_every_campaign_character_in_text_and_csv(self, tmp_path, char):
        txt = write(tmp_path, "s.txt", f"ICML 2024 Papers\n\nWe propose Foo{char}Net.\n")
        csv_path = write(tmp_path, "s.csv", f"abstract\nWe study Bar{char}Net.\n")
        papers = read_papers([txt, csv_path]).papers
        assert [p.abstract.replace(" ", "") for p in papers] == ["WeproposeFooNet.", "WestudyBarNet."]

    def test_zero_width_look_alikes_are_one_paper(self, tmp_path):
        path = jsonl(tmp_path, {"abstract": "We use ZeroWidthNet."}, {"abstract": "We use Zero\u200bWidthNet."})
        result = read_papers([path])
        assert len(result.papers) == 1 and "duplicate abstract" in result.skipped[0].reason


class TestLineEndings:
    """CR-only line endings merged every abstract of a file into one."""

    def test_seed_text(self, tmp_path):
        path = write(tmp_path, "mac.txt", b"ICML 2024 Papers\r\rFirst abstract.\r\rSecond\rabstract.\r")
        papers = read_papers([path]).papers
        assert [(p.abstract, p.line, p.year) for p in papers] == [("First abstract.", 3, 2024), ("Second\nabstract.", 5, 2024)]

    def test_jsonl_and_csv(self, tmp_path):
        j = write(tmp_path, "mac.jsonl", b'{"abstract": "one"}\r{"abstract": "two"}\r')
        c = write(tmp_path, "mac.csv", b'abstract,title\r"three\rlines",T\rfour,U\r')
        papers = read_papers([j, c]).papers
        assert [(p.abstract, p.line) for p in papers] == [("one", 1), ("two", 2), ("three\nlines", 2), ("four", 4)]


class TestCsv:
    def test_field_over_128_kib_is_skipped_not_a_crash(self, tmp_path):
        """M3: _csv.Error 'field larger than field limit' stopped the whole run."""
        big = "x " * 100_000
        path = write(tmp_path, "big.csv", f'abstract\n"{big}"\nsmall one\n')
        result = read_papers([path])
        assert [p.abstract for p in result.papers] == ["small one"]
        assert result.skipped[0].line == 2 and "200,000 characters" in result.skipped[0].reason
        assert read_papers([path], max_chars=300_000).papers[0].abstract == big

    def test_multi_line_record_reported_at_its_first_line(self, tmp_path):
        path = write(tmp_path, "m.csv", 'id,abstract,year\na,"one\ntwo\nthree",soon\nb,fine,2024\n')
        result = read_papers([path])
        assert [(s.line, s.reason) for s in result.skipped] == [(2, "year 'soon' is not an integer")]
        assert result.papers[0].line == 5

    def test_unterminated_quote_does_not_absorb_the_next_rows(self, tmp_path):
        rows = [f'{i},"Abstract number {i}."' for i in range(51)]
        rows[10] = '10,"Abstract number 10 with an unclosed quote.'
        path = write(tmp_path, "q.csv", "id,abstract\n" + "\n".join(rows) + "\n")
        result = read_papers([path])
        report = result.report()
        assert (report.read, report.written, len(report.skipped)) == (51, 50, 1)
        assert result.skipped[0].line == 12 and "malformed CSV record" in result.skipped[0].reason
        assert "11" in {p.id for p in result.papers}

    def test_empty_year_cell_does_not_warn(self, tmp_path):
        path = write(tmp_path, "y.csv", "abstract,year\nAn abstract.,\n")
        result = read_papers([path])
        assert result.papers[0].year is None and result.warnings == []


class TestRecordValidation:
    """M5: values that broke the load later are rejected per record, with file:line and reason."""

    def test_long_id_and_bad_years(self, tmp_path):
        path = jsonl(tmp_path, {"id": "x" * 10_000, "abstract": "one"}, {"abstract": "two", "year": 1e30},
                     {"abstract": "three", "year": True}, {"abstract": "four", "year": 3000},
                     {"abstract": "five", "year": "2023"}, {"abstract": "six", "id": ["a"]})
        result = read_papers([path])
        assert [(p.abstract, p.year) for p in result.papers] == [("five", 2023)]
        assert [(s.line, s.reason) for s in result.skipped] == [
            (1, "id is 10,000 characters, over the 256 limit"),
            (2, "year 1e+30 is outside 1900-2100"),
            (3, "year True is not an integer"),
            (4, "year 3000 is outside 1900-2100"),
            (6, "'id' is list, not text"),
        ]

    def test_huge_integer_is_a_skipped_record(self, tmp_path):
        path = write(tmp_path, "n.jsonl", '{"abstract": "a", "year": ' + "9" * 5000 + '}\n{"abstract": "b"}\n')
        result = read_papers([path])
        assert [p.abstract for p in result.papers] == ["b"] and result.skipped[0].line == 1

    def test_max_chars_range(self, tmp_path):
        path = jsonl(tmp_path, {"abstract": "a"})
        with pytest.raises(InputError, match="max_chars 2000000 is outside"):
            read_papers([path], max_chars=2_000_000)


class TestDuplicates:
    def test_distinct_explicit_ids_are_kept_as_aliases(self, tmp_path):
        path = jsonl(tmp_path, {"id": "p1", "abstract": "Same text.", "keywords": ["rl", "robots"]},
                     {"id": "p2", "abstract": "same  TEXT."}, {"abstract": "same text."})
        result = read_papers([path])
        assert [(p.id, p.aliases) for p in result.papers] == [("p1", ("p2",))]
        assert "id 'p2' is kept as an alias of that paper" in result.skipped[0].reason
        assert "alias" not in result.skipped[1].reason
        graph = build_graph([Extraction(result.papers[0], "label", ())])
        node = graph.nodes["paper:p1"]
        assert node["aliases"] == ["p2"] and node["keywords"] == ["rl", "robots"]


class TestFolders:
    def test_subfolders_are_read_in_sorted_order(self, tmp_path):
        write(tmp_path, "b.jsonl", json.dumps({"abstract": "b"}) + "\n")
        write(tmp_path, "a/z.jsonl", json.dumps({"abstract": "az"}) + "\n")
        write(tmp_path, ".hidden/x.jsonl", json.dumps({"abstract": "hidden"}) + "\n")
        write(tmp_path, "notes.md", "ignored")
        assert [p.abstract for p in read_papers([tmp_path]).papers] == ["az", "b"]

    def test_broken_symlinks_and_fifos_are_reported(self, tmp_path):
        write(tmp_path, "ok.jsonl", json.dumps({"abstract": "ok"}) + "\n")
        os.symlink(tmp_path / "gone.jsonl", tmp_path / "broken.jsonl")
        os.mkfifo(tmp_path / "pipe.txt")
        result = read_papers([tmp_path])
        assert [p.abstract for p in result.papers] == ["ok"]
        assert any("broken.jsonl: skipped: broken symbolic link" in w for w in result.warnings)
        assert any("pipe.txt: skipped: not a regular file (a FIFO)" in w for w in result.warnings)

    def test_a_fifo_given_directly_is_an_error_not_a_hang(self, tmp_path):
        fifo = tmp_path / "pipe.jsonl"
        os.mkfifo(fifo)
        code = f"from paperkg.extract.read.readers import read_papers; read_papers([{str(fifo)!r}])"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert "not a regular file (a FIFO)" in done.stderr
        with pytest.raises(InputError, match="broken symbolic link"):
            os.symlink(tmp_path / "gone.csv", tmp_path / "link.csv")
            list(iter_input_files([tmp_path / "link.csv"]))
