"""Fill the figures of README.md and docs/*.md from the results files in bench/results/.

    python scripts/render_figures.py           # rewrite the pages whose figures changed
    python scripts/render_figures.py --check   # exit 1 if a page differs from its rendering

Two kinds of marks, both invisible on GitHub:

* ``0.758<!--=quality.paperkg_dev.core_recall:.3f-->``: the number before the mark is the
  figure at that path of a results file (file name, then keys of its ``figures``), formatted
  with the optional format spec (default: ints with thousands commas, floats as recorded).
* ``<!-- figures:runs -->`` ... ``<!-- /figures -->``: a table of every results file (what,
  commit, date, machine load, command), regenerated whole.

Rendering is idempotent: a rendered page renders to itself (``tests/test_docs.py`` checks the
committed pages are rendered). The same module finds the figures a page quotes, for the test
that fails when a page quotes a figure no results file holds.
"""

from __future__ import annotations

import argparse
import re
import sys
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from recording import load_results  # noqa: E402  (bench/ is scripts, not a package)

from paperkg.atomic import atomic_write_text  # noqa: E402

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"(-?\d[\d,]*(?:\.\d+)?)<!--=([^:>\s]+)(?::([^>\s]*))?-->")
BLOCK = re.compile(r"(<!-- figures:(\w+) -->\n).*?(<!-- /figures -->)", re.S)

#: A figure: a number with decimals, thousands commas or a unit of measure.
UNITS = r"%|×|x\b|ms\b|s\b|MB\b|GB\b|KB\b|abstracts/s|nodes/s|rels/s|CPU[ -]s\b|links\b|results\b|papers\b|entities\b"
FIGURE = re.compile(rf"(?<![\w.\-/#])(\d{{1,3}}(?:,\d{{3}})+|\d+)(\.\d+)?(?:\s?({UNITS}))?")
#: Not figures: software versions (Python ≥ 3.10, spaCy 3.8, Neo4j 5.26, Java 17). Code (commands,
#: example output, the doctested API block) and quotations of abstracts ("an FID of 2.57") are
#: skipped before figures are looked for: they are not measurements of paperkg.
NOT_FIGURES = re.compile(r"(?:Python ≥|Python|spaCy|Neo4j|Java|version|v|CC BY|CC BY-SA)\s*$")
#: Settings the pages state, not measurements: the default and the ceiling of --max-chars
#: (spaCy's own limit), and the document-frequency cap of the text links' terms (papers).
SETTINGS = {"20,000", "1,000,000", "120"}


def lookup(results: dict, path: str):
    name, *keys = path.split(".")
    value, parent = results[name]["figures"], None
    for key in keys:
        parent, value = value, value[int(key)] if isinstance(value, list) else value[key]
    return exact(parent) if keys and keys[-1] == "value" and exact(parent) is not None else value


def exact(score) -> Decimal | None:
    """hits / total of an evaluation score, unrounded: its ``value`` is already rounded to 4
    places, and rounding that again to 3 can miss (234 / 335 = 0.69851 -> 0.6985 -> 0.698)."""
    if isinstance(score, dict) and isinstance(score.get("hits"), int) and score.get("total"):
        return Decimal(score["hits"]) / Decimal(score["total"])
    return None


def show(value, spec: str | None) -> str:
    if spec:  # as recorded_values rounds: the decimal as written, half to even (0.1905 -> 0.190)
        return format(value if isinstance(value, Decimal) else Decimal(repr(value)), spec)
    return f"{value:,}" if isinstance(value, int) else str(value)


def runs_table(results: dict) -> str:
    rows = ["| results file | commit | measured | cores, load | command |", "|---|---|---|---|---|"]
    for name, data in results.items():
        machine = data.get("machine") or {}
        load = machine.get("load_average")
        where = f"{machine.get('cores', '?')}, {load[0]}" if load else "–"
        how = f"`{data['command']}`" if machine else "not re-run: see the file's `source`"
        rows.append(f"| `{name}.json` | {data['commit'][:7]} | {data['measured'][:10]} | {where} | {how} |")
    return "\n".join(rows) + "\n"


def render(text: str, results: dict) -> str:
    """The page with every marked figure and block filled from ``results``."""
    text = MARK.sub(lambda m: f"{show(lookup(results, m.group(2)), m.group(3))}<!--={m.group(2)}"
                              f"{':' + m.group(3) if m.group(3) else ''}-->", text)
    return BLOCK.sub(lambda m: m.group(1) + {"runs": runs_table}[m.group(2)](results) + m.group(3), text)


def prose(text: str) -> str:
    """The page without code, quotations and figure blocks, line breaks kept (for line numbers)."""
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    for pattern in (r"```.*?```", BLOCK.pattern, r"`[^`]{0,400}?`", r'"[^"\n]*"', r"“[^”\n]*”", r"<!--.*?-->"):
        text = re.sub(pattern, blank, text, flags=re.S)
    return text


def quoted_figures(text: str) -> list[tuple[int, str]]:
    """(line, figure as written) for every figure the page's prose and tables quote."""
    found = []
    for line_no, line in enumerate(prose(text).splitlines(), 1):
        for m in FIGURE.finditer(line):
            if not (m.group(2) or m.group(3) or "," in m.group(1)) or NOT_FIGURES.search(line[:m.start()]):
                continue
            found.append((line_no, m.group(1) + (m.group(2) or "")))
    return found


def recorded_values(results: dict) -> set[str]:
    """Every number of every results file as recorded or with one decimal fewer, and ×100 for
    shares: a page may quote a recorded 155.7 as 156, or a recorded 0.268 as 26.8%. Scores
    recorded as hits / total may be quoted at any precision."""
    shown: set[str] = set()

    def walk(value):
        if exact(value) is not None:
            shown.update(plain(round(exact(value) * k, d)) for k in (1, 100) for d in range(5))
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            for number in (Decimal(repr(value)), Decimal(repr(value)) * 100):
                # as recorded, or one decimal fewer: a looser rounding would let most small
                # integers match some recorded value, and the check would pass anything
                places = max(0, -number.as_tuple().exponent)
                shown.update(plain(round(number, d)) for d in {places, max(0, places - 1)})

    for data in results.values():
        walk(data["figures"])
    return shown


def unrecorded(text: str, results: dict, values: set[str] | None = None) -> list[tuple[int, str]]:
    """The figures of ``text`` that no results file holds."""
    values = recorded_values(results) if values is None else values
    return [(line, figure) for line, figure in quoted_figures(text)
            if figure not in SETTINGS and plain(Decimal(figure.replace(",", ""))) not in values]


def plain(number: Decimal) -> str:
    """A number without trailing zeros, so that a page's 0.930 is a recorded 0.93."""
    text = format(number, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report the pages that are not rendered")
    args = parser.parse_args()
    results, stale = load_results(), []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        rendered = render(text, results)
        if rendered != text:
            stale.append(str(page.relative_to(ROOT)))
            if not args.check:
                atomic_write_text(page, rendered)
    print(("not rendered: " if args.check else "rendered: ") + (", ".join(stale) or "nothing to change"))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
