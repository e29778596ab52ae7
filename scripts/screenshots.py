"""Regenerate the docs' pictures (docs/*.png) from the current code, in headless Chromium.

    python scripts/screenshots.py [--data ../shared/data] [--out docs/] [--only example]

``example-topic-map.png`` and ``example-panel.png`` from ``examples/abstracts.txt``;
``icml2024-topic-map.png`` and ``icml2024-panel.png`` from ``corpus/icml2024.jsonl`` (a build
with the trained model, a few minutes on 2 cores). Each is the explorer's topic map as it opens,
then its largest topic opened with a "why linked" panel: the pictures ``bench/bench_html.py
--screenshots`` takes, without the timings. Needs Debian's ``chromium`` (``apt-get install
chromium``) and the test extras (Playwright).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bench_html import Browser, screenshots  # noqa: E402  (one way to take them, shared with the bench)

import paperkg  # noqa: E402

PICTURES = {"example": lambda data: [ROOT / "examples" / "abstracts.txt"],
            "icml2024": lambda data: [data / "corpus" / "icml2024.jsonl"]}
TITLES = {"example": "paperkg explorer: examples/abstracts.txt", "icml2024": "paperkg explorer: icml2024"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--only", choices=sorted(PICTURES), action="append", help="only these pictures")
    args = parser.parse_args()
    browser = Browser()
    try:
        for prefix in args.only or list(PICTURES):
            inputs = PICTURES[prefix](args.data)
            if not all(path.exists() for path in inputs):
                sys.exit(f"screenshots: {prefix} needs {', '.join(map(str, inputs))}")
            kg = paperkg.build(inputs, progress=False)
            screenshots(kg.graph, args.out, browser, prefix=prefix, title=TITLES[prefix])
    finally:
        browser.close()


if __name__ == "__main__":
    main()
