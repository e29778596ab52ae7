"""What a build folder records about the build that made it, so that ``paperkg add`` and
``paperkg remove`` can make it again with papers more or fewer.

The record is the manifest's ``build`` key (``paperkg-manifest.json``, beside the list of the
set's files, which it does not touch): every input file as it was read (the path as the graph's
``source`` names it, the absolute path, size and sha256), the ids left out of each file, the
options that change the output (``top_k``, ``use_model``, ``max_chars``, ``html``, ``min_confidence``), the
extraction store (relative to the folder when inside it) and the paper count. ``add`` and
``remove`` rebuild from it through the same :func:`paperkg.build`, so their result is a fresh
build of the same inputs byte for byte; an input that changed or vanished since is a one-line
:class:`~paperkg.errors.BuildFolderError` naming it, never a silently different graph.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from paperkg.errors import BuildFolderError
from paperkg.graph.export_set import MANIFEST, _sha256, read_manifest  # _sha256: the manifest's file digest

KEY = "build"


@dataclass(frozen=True)
class InputFile:
    """One input file of a build: ``path`` as read (the papers' ``source``), where it is."""

    path: str
    absolute: str
    bytes: int
    sha256: str
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class BuildRecord:
    """A build's inputs and output-changing options (see the module docstring)."""

    inputs: tuple[InputFile, ...]
    cwd: str
    top_k: int
    use_model: bool
    max_chars: int
    papers: int
    store: str | None = None
    html: bool = True
    min_confidence: float = 0.0

    @classmethod
    def of(cls, files: Sequence[Path], excluded: Iterable[tuple[str, str]], *, top_k: int, use_model: bool,
           max_chars: int, papers: int, store: str | Path | None, min_confidence: float = 0.0) -> "BuildRecord":
        """The record of a build that read ``files`` (in order) leaving out ``excluded``."""
        removed: dict[str, list[str]] = {}
        for source, paper_id in excluded:
            removed.setdefault(source, []).append(paper_id)
        inputs = tuple(InputFile(str(path), os.path.abspath(path), *_digest(Path(path)),
                                 tuple(sorted(removed.get(str(path), ())))) for path in files)
        return cls(inputs, os.getcwd(), top_k, use_model, max_chars, papers,
                   None if store is None or str(store) == ":memory:" else os.path.abspath(store),
                   min_confidence=min_confidence)

    def to_json(self, out_dir: str | Path, *, html: bool) -> dict:
        """The manifest's ``build`` value for the set written into ``out_dir``."""
        store = self.store
        if store is not None and Path(store).is_relative_to(os.path.abspath(out_dir)):
            store = os.path.relpath(store, os.path.abspath(out_dir))  # the folder can move
        return {"inputs": [{"path": f.path, "absolute": f.absolute, "bytes": f.bytes, "sha256": f.sha256,
                            "removed": list(f.removed)} for f in self.inputs],
                "cwd": self.cwd, "top_k": self.top_k, "use_model": self.use_model, "max_chars": self.max_chars,
                "html": html, "store": store, "papers": self.papers, "min_confidence": self.min_confidence}

    @classmethod
    def from_manifest(cls, manifest: dict, out_dir: str | Path) -> "BuildRecord | None":
        """The record in a manifest read from ``out_dir`` (``None`` when it holds none)."""
        data = manifest.get(KEY)
        if not isinstance(data, dict):
            return None
        try:
            inputs = tuple(InputFile(str(f["path"]), str(f["absolute"]), int(f["bytes"]), str(f["sha256"]),
                                     tuple(str(i) for i in f.get("removed", ()))) for f in data["inputs"])
            store = data.get("store")
            if store is not None:
                store = os.path.join(os.path.abspath(out_dir), str(store))
            return cls(inputs, str(data["cwd"]), int(data["top_k"]), bool(data["use_model"]), int(data["max_chars"]),
                       int(data["papers"]), store, bool(data.get("html", True)),
                       # Builds before confidences kept every entity.
                       float(data.get("min_confidence", 0.0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise BuildFolderError(f"{Path(out_dir) / MANIFEST}: its build record is unreadable "
                                   f"({type(exc).__name__}: {exc}); make the build afresh with paperkg build") from exc

    def read_path(self, item: InputFile) -> str:
        """Where to read ``item`` from now: as before when it can be (so every paper keeps its
        ``source``), else by its absolute path (a relative path, from another working folder)."""
        return item.path if os.path.isabs(item.path) or os.getcwd() == self.cwd else item.absolute

    def exclusions(self) -> list[tuple[str, str]]:
        """The ``(file as read now, paper id)`` pairs to leave out again."""
        return [(str(Path(self.read_path(f))), paper_id) for f in self.inputs for paper_id in f.removed]

    def check(self, out_dir: str | Path) -> None:
        """A :class:`BuildFolderError` naming the first input that changed or vanished since."""
        for item in self.inputs:
            path = Path(item.absolute)
            if not path.is_file():
                raise BuildFolderError(f"{item.path}: an input of the build in {out_dir} is gone; put it back, "
                                       f"or make the build afresh with paperkg build")
            if path.stat().st_size != item.bytes or _sha256(path) != item.sha256:
                raise BuildFolderError(f"{item.path}: changed since the build in {out_dir} (an input of it: "
                                       f"its sha256 differs); restore it, or make the build afresh with paperkg build")

    def same_inputs(self, other: "BuildRecord") -> bool:
        return [f.absolute for f in self.inputs] == [f.absolute for f in other.inputs] and \
            not any(f.removed for f in self.inputs)

    def describe(self) -> str:
        """``40 papers from a.jsonl`` (more files: ``from a.jsonl, b.jsonl and 3 more files``)."""
        names = [f.path for f in self.inputs]
        where = ", ".join(names[:2]) + (f" and {len(names) - 2} more files" if len(names) > 2 else "")
        return f"{self.papers} paper{'s' if self.papers != 1 else ''} from {where}"


def recorded(out_dir: str | Path) -> BuildRecord:
    """The record of the build in ``out_dir``, its inputs checked (unchanged, present): a
    :class:`BuildFolderError` when there is no build there, or it records none."""
    manifest = read_manifest(out_dir)
    if not manifest:
        raise BuildFolderError(f"{out_dir}: no paperkg build here (no {MANIFEST}); make one with paperkg build")
    record = BuildRecord.from_manifest(manifest, out_dir)
    if record is None:
        raise BuildFolderError(f"{out_dir}: its {MANIFEST} records no inputs (an older paperkg, or kg.export of a "
                               f"loaded graph); make the build afresh with paperkg build")
    record.check(out_dir)
    return record


def previous_build(out_dir: str | Path) -> BuildRecord | None:
    """The record of the build in ``out_dir`` if it holds a readable one, unchecked."""
    try:
        return BuildRecord.from_manifest(read_manifest(out_dir), out_dir)
    except BuildFolderError:
        return None


def replacing(previous: BuildRecord | None, new: BuildRecord | None) -> str | None:
    """The line ``paperkg build`` prints when it replaces a build of other inputs in its folder."""
    if previous is None or new is None or previous.same_inputs(new):
        return None
    return f"replacing the build of {previous.describe()} with {new.describe()}"


def _digest(path: Path) -> tuple[int, str]:
    return path.stat().st_size, _sha256(path)
