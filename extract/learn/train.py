"""Train paperkg's statistical NER (METHOD / TASK / DATASET / METRIC) from the gold JSONL files.

``train_model(gold_dir, output_dir)`` reads the train splits named in ``ner.cfg`` (SciERC and
CS-NER/FTD), turns them into spaCy training examples, trains the ``ner`` component described
by ``ner.cfg`` with spaCy's training API (``Language.update``), picks the checkpoint that scores
best on the dev splits (mean micro exact-span F1, scored by :mod:`paperkg.extract.evaluate.spans`)
and writes the pipeline (``spacy.blank("en")`` tokenizer + ``ner``) to ``output_dir``.

How the gold becomes training data (``[paperkg]`` section of ``ner.cfg``):

* SciERC's nested/overlapping spans cannot be held by a NER: the shorter (inner) one is dropped.
* SciERC ``OTHER`` spans (OtherScientificTerm, Generic) can be trained as a fifth label
  (``train_other``) to sharpen boundaries. The shipped component then predicts ``OTHER``
  spans; users must drop them.
* CS-NER annotates only METHOD and TASK. Its datasets/metrics are unannotated, so calling
  every other token "outside" teaches the model to miss them. With
  ``csner_unannotated = "missing"`` a teacher trained on SciERC alone tags the CS-NER train
  texts first, and the spans it calls DATASET/METRIC/OTHER are marked *missing* (no loss),
  unless they overlap a CS-NER gold span.

Nothing here downloads anything; the result depends only on the gold files, ``ner.cfg`` and
``seed``.
"""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import spacy
from spacy.language import Language
from spacy.training import Example
from spacy.training.initialize import load_vectors_into_model
from spacy.util import fix_random_seed, load_model_from_config, registry
from thinc.api import Config

from paperkg.errors import InputError
from paperkg.extract.evaluate.spans import EvaluationReport, score
from paperkg.extract.learn.examples import make_example, predict_spans, read_gold_file
from paperkg.extract.nlp.pipeline import PACKAGED_MODEL_DIR
from paperkg.extract.read.gold import SCORED_LABELS, GoldDoc, annotated_labels, is_paper_level
from paperkg.extract.read.readers import read_papers

#: Where the package's own trained pipeline lives (and where ``paperkg train`` writes it).
DEFAULT_MODEL_DIR: Path = PACKAGED_MODEL_DIR
#: The training config shipped next to this module.
DEFAULT_CONFIG: Path = Path(__file__).parent / "ner.cfg"
#: Label the model may predict besides the scored ones; never reported as an entity.
OTHER_LABEL = "OTHER"

_DEFAULT_OPTIONS: dict[str, Any] = {
    "train_files": ["scierc_train.jsonl", "csner-ftd_train.jsonl"],
    "dev_files": ["scierc_dev.jsonl", "csner-ftd_dev.jsonl"],
    "train_other": True,
    "csner_unannotated": "missing",
    "teacher_steps": 1500,
    "full_repeat": 1,
    "train_repeat": [],
    "select_files": [],
    "section_limit": 0,
    "vectors_words": 20000,
    "vectors_dim": 64,
    "vectors_epochs": 5,
    "distant_file": "",
    "distant_repeat": 1,
    "pretrain_epochs": 0,
    "pretrain_files": ["iclr2024.jsonl", "icml2024.jsonl", "neurips2023.jsonl"],
    "pretrain_include_train": True,
    "pretrain_batch_docs": 16,
    "pretrain_hidden": 300,
    "pretrain_dropout": 0.2,
    "pretrain_learn_rate": 0.001,
}
_UNANNOTATED_MODES = ("outside", "missing", "pseudo", "positive", "drop")


def default_gold_dir() -> Path:
    """``../shared/data/gold`` relative to the repository root (the source checkout)."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gold"


@dataclass(frozen=True)
class DevScore:
    """Model-alone scores on one dev file (exact-span micro and per type)."""

    file: str
    precision: float
    recall: float
    f1: float
    overlap_f1: float
    per_type: tuple[tuple[str, float, float, float], ...]  # (label, P, R, F1)

    @classmethod
    def from_report(cls, name: str, report: EvaluationReport) -> DevScore:
        micro = report.exact.micro
        return cls(
            file=name,
            precision=micro.precision,
            recall=micro.recall,
            f1=micro.f1,
            overlap_f1=report.overlap.micro.f1,
            per_type=tuple((s.label, s.precision, s.recall, s.f1) for s in report.exact.per_type),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "overlap_f1": round(self.overlap_f1, 4),
            "per_type": {
                lab: {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}
                for lab, p, r, f in self.per_type
            },
        }


@dataclass(frozen=True)
class TrainReport:
    """What :func:`train_model` did: where the model went, how good, how long, how big."""

    output_dir: Path
    seed: int
    steps: int
    best_step: int
    train_docs: int
    dev: tuple[DevScore, ...]
    seconds: float
    size_bytes: int
    labels: tuple[str, ...]

    @property
    def dev_f1(self) -> dict[str, float]:
        return {d.file: d.f1 for d in self.dev}

    def __str__(self) -> str:
        lines = [
            f"Trained NER written to {self.output_dir} ({self.size_bytes / 1e6:.1f} MB, "
            f"{self.seconds / 60:.1f} min, seed {self.seed}, best step {self.best_step} of "
            f"{self.steps}, {self.train_docs} train docs)",
            f"{'dev file':<22} {'label':<8} {'P':>6} {'R':>6} {'F1':>6}",
        ]
        for dev in self.dev:
            for label, p, r, f in dev.per_type:
                lines.append(f"{dev.file:<22} {label:<8} {p:>6.3f} {r:>6.3f} {f:>6.3f}")
            lines.append(
                f"{dev.file:<22} {'micro':<8} {dev.precision:>6.3f} {dev.recall:>6.3f} "
                f"{dev.f1:>6.3f}  (overlap F1 {dev.overlap_f1:.3f})"
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "output_dir": str(self.output_dir),
            "seed": self.seed,
            "steps": self.steps,
            "best_step": self.best_step,
            "train_docs": self.train_docs,
            "dev": [d.to_dict() for d in self.dev],
            "seconds": round(self.seconds, 1),
            "size_bytes": self.size_bytes,
            "labels": list(self.labels),
        }


# --------------------------------------------------------------------------------------------
# Training
# --------------------------------------------------------------------------------------------


def _load_config(config_path: Path, overrides: dict[str, Any] | None) -> tuple[Config, dict]:
    if not config_path.is_file():
        raise InputError(f"{config_path}: training config not found")
    try:
        config = Config().from_disk(config_path, overrides=dict(overrides or {}))
    except Exception as exc:  # noqa: BLE001 - thinc raises several error types here
        raise InputError(f"{config_path}: cannot read the training config: {exc}") from exc
    options = dict(_DEFAULT_OPTIONS)
    options.update(dict(config.pop("paperkg", {})))
    if options["csner_unannotated"] not in _UNANNOTATED_MODES:
        raise InputError(
            f"{config_path}: [paperkg] csner_unannotated must be one of {_UNANNOTATED_MODES}"
        )
    return config, options


class _Trainer:
    """One training run of the config's pipeline on a list of examples."""

    def __init__(self, config: Config, seed: int, log) -> None:
        fix_random_seed(seed)
        self.seed = seed
        self.log = log
        self.nlp = load_model_from_config(config, auto_fill=True, validate=True)
        vectors = config["initialize"].get("vectors")
        if vectors:
            # nlp.initialize() does not read [initialize] vectors (spacy train's init_nlp does).
            if not (Path(vectors) / "vocab").is_dir():
                raise InputError(f"{vectors}: no vectors there (run 'paperkg train' to build them)")
            load_vectors_into_model(self.nlp, vectors)
        training = config["training"]
        resolved = registry.resolve(
            {"optimizer": training["optimizer"], "batcher": training["batcher"]}
        )
        self.optimizer = resolved["optimizer"]
        self.batcher = resolved["batcher"]
        self.dropout = float(training["dropout"])
        self.eval_frequency = int(training["eval_frequency"])
        self.patience = int(training["patience"])

    def fit(
        self,
        examples: list[Example],
        max_steps: int,
        evaluate=None,
        init_tok2vec: bytes | None = None,
    ) -> tuple[int, int, float]:
        """Train for at most ``max_steps`` updates; with ``evaluate`` (callback returning a
        score), keep the best-scoring averaged weights and stop after ``patience`` steps
        without improvement. Returns ``(steps, best_step, best_score)``."""
        nlp, optimizer = self.nlp, self.optimizer
        fix_random_seed(self.seed)
        nlp.initialize(lambda: examples, sgd=optimizer)
        if init_tok2vec is not None:
            _inner_tok2vec(nlp).from_bytes(init_tok2vec)
        rng = random.Random(self.seed)
        order = list(examples)
        ner = nlp.get_pipe("ner")
        best = (-1.0, 0, None)  # score, step, weights
        step = 0
        losses: dict[str, float] = {}
        while step < max_steps:
            rng.shuffle(order)
            for batch in self.batcher(order):
                nlp.update(batch, drop=self.dropout, sgd=optimizer, losses=losses)
                step += 1
                if evaluate is not None and (step % self.eval_frequency == 0 or step == max_steps):
                    with nlp.use_params(optimizer.averages):
                        value, info = evaluate(nlp)
                        if value > best[0]:
                            best = (value, step, ner.model.to_bytes())
                    self.log(
                        f"step {step:>5}  loss {losses.get('ner', 0.0):9.1f}  {info}"
                        + ("  *" if best[1] == step else "")
                    )
                    losses = {}
                    if step - best[1] >= self.patience:
                        max_steps = step
                if step >= max_steps:
                    break
        if best[2] is not None:
            ner.model.from_bytes(best[2])
        elif optimizer.averages:
            with nlp.use_params(optimizer.averages):
                weights = ner.model.to_bytes()
            ner.model.from_bytes(weights)
        return step, best[1] or step, best[0]


def _inner_tok2vec(nlp: Language):
    """The NER's own Tok2Vec (embed >> encode) inside the parser model's tok2vec chain."""
    return nlp.get_pipe("ner").model.get_ref("tok2vec").layers[0]


def pretrain_tok2vec(
    config: Config, texts: Sequence[str], options: dict[str, Any], seed: int, log
) -> bytes:
    """spaCy-style character-cloze pretraining (``spacy pretrain`` with the characters
    objective) of the NER's inner tok2vec on raw texts; returns the averaged weights."""
    from spacy.training.pretrain import make_update
    from thinc.api import set_dropout_rate

    fix_random_seed(seed)
    nlp = load_model_from_config(config, auto_fill=True, validate=True)
    nlp.get_pipe("ner").add_label("METHOD")
    nlp.initialize()
    tok2vec = _inner_tok2vec(nlp)
    resolved = registry.resolve(
        {
            "objective": {
                "@architectures": "spacy.PretrainCharacters.v1",
                "maxout_pieces": 3,
                "hidden_size": int(options["pretrain_hidden"]),
                "n_characters": 4,
            },
            "optimizer": {
                "@optimizers": "Adam.v1",
                "learn_rate": float(options["pretrain_learn_rate"]),
                "use_averages": True,
            },
        }
    )
    model = resolved["objective"](nlp.vocab, tok2vec)
    model.initialize(X=[nlp.make_doc("Give it a doc to infer shapes")])
    set_dropout_rate(model, float(options["pretrain_dropout"]))
    optimizer = resolved["optimizer"]
    docs = list(nlp.tokenizer.pipe(texts))
    rng = random.Random(seed)
    size = int(options["pretrain_batch_docs"])
    for epoch in range(int(options["pretrain_epochs"])):
        rng.shuffle(docs)
        loss = 0.0
        for i in range(0, len(docs), size):
            loss += make_update(model, docs[i : i + size], optimizer, model.attrs["loss"])
        log(f"pretrain epoch {epoch + 1}: loss {loss:.0f} on {len(docs)} texts")
    with model.use_params(optimizer.averages):
        return tok2vec.to_bytes()


def _dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _check_output_dir(output_dir: Path) -> None:
    if output_dir.exists():
        if not output_dir.is_dir():
            raise InputError(f"{output_dir}: output path exists and is not a directory")
        contents = {p.name for p in output_dir.iterdir()}
        if contents and not {"config.cfg", "meta.json"} <= contents:
            raise InputError(
                f"{output_dir}: directory is not empty and does not hold a spaCy pipeline; "
                "refusing to overwrite it"
            )


def _install(nlp: Language, output_dir: Path) -> None:
    """Write ``nlp`` to ``output_dir``, replacing a previous pipeline there (never other data)."""
    _check_output_dir(output_dir)
    output_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".ner-", dir=output_dir.parent))
    # The vectors live in the pipeline's vocab; the folder they were read from is a temporary
    # one of this machine, which the shipped config must not name.
    nlp.config["initialize"]["vectors"] = None
    nlp.config["paths"]["vectors"] = None
    try:
        nlp.to_disk(staging)
        if output_dir.exists():
            shutil.rmtree(output_dir)
        staging.rename(output_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def train_model(
    gold_dir: Path,
    output_dir: Path = DEFAULT_MODEL_DIR,
    *,
    seed: int = 0,
    max_steps: int | None = None,
    config_path: Path | None = None,
    overrides: dict[str, Any] | None = None,
    limit: int | None = None,
    corpus_dir: Path | None = None,
    progress: bool = True,
    confidence: bool = True,
) -> TrainReport:
    """Train the NER on the train splits under ``gold_dir`` and write it to ``output_dir``.

    ``max_steps`` overrides ``[training] max_steps`` of the config; ``overrides`` maps dotted
    config keys to values (``"components.ner.model.tok2vec.encode.width": 64``; keys
    ``"paperkg.*"`` set the gold-handling options); ``limit`` keeps only the first N documents
    of every train/dev file (smoke tests). ``corpus_dir`` holds the unlabelled abstracts for
    tok2vec pretraining (default: ``gold_dir/../corpus``). With ``progress`` the dev scores are logged to stderr.
    With ``confidence``, two more NERs are trained on the halves of the paper-level train file for
    the confidence model's out-of-fold rows (:mod:`paperkg.extract.learn.confidence`).

    Raises :class:`InputError` when a gold file or the config is missing, and
    :class:`EvaluationError` (naming file and line) when a gold line is malformed.
    """
    started = time.perf_counter()
    gold_dir = Path(gold_dir)
    config_path = Path(config_path) if config_path else DEFAULT_CONFIG
    if not gold_dir.is_dir():
        raise InputError(f"{gold_dir}: gold directory not found")
    output_dir = Path(output_dir)
    _check_output_dir(output_dir)
    config, options = _load_config(config_path, overrides)
    if max_steps is not None:
        config["training"]["max_steps"] = int(max_steps)
    steps_budget = int(config["training"]["max_steps"])

    def log(message: str) -> None:
        if progress:
            print(f"[paperkg train {time.perf_counter() - started:6.0f}s] {message}", file=sys.stderr, flush=True)

    sections = int(options["section_limit"])
    train_sets = [(name, read_gold_file(gold_dir, name, limit, sections)) for name in options["train_files"]]
    dev_sets = [(name, read_gold_file(gold_dir, name, limit)) for name in options["dev_files"]]
    train_other = bool(options["train_other"])
    mode = options["csner_unannotated"]

    def file_labels(docs: list[GoldDoc]) -> set[str]:
        labels = set(annotated_labels(docs))
        if train_other and any(e.label == OTHER_LABEL for d in docs for e in d.entities):
            labels.add(OTHER_LABEL)
        return labels

    all_labels = set().union(*(file_labels(docs) for _, docs in train_sets))
    full = [(n, d) for n, d in train_sets if file_labels(d) == all_labels]
    partial = [(n, d) for n, d in train_sets if file_labels(d) != all_labels]
    if not full:
        raise InputError("no train file annotates every label; cannot train a complete NER")

    init_tok2vec = None
    if int(options["pretrain_epochs"]) > 0:
        corpus = Path(corpus_dir) if corpus_dir else gold_dir.parent / "corpus"
        texts = [p.abstract for p in read_papers([corpus / name for name in options["pretrain_files"]]).papers]
        if options["pretrain_include_train"]:
            texts += [d.text for _, docs in train_sets for d in docs]
        if limit:
            texts = texts[:limit]
        log(f"pretraining the tok2vec on {len(texts)} texts")
        init_tok2vec = pretrain_tok2vec(config, texts, options, seed, log)

    uses_vectors = bool(config["components"]["ner"]["model"]["tok2vec"]["embed"].get("include_static_vectors"))
    vectors_tmp = None
    if uses_vectors and not config["initialize"].get("vectors"):
        from paperkg.extract.learn.vectors import train_vectors

        vectors_tmp = tempfile.mkdtemp(prefix=".vectors-", dir=output_dir.parent if output_dir.parent.is_dir() else None)
        log(f"training word vectors on {gold_dir.parent / 'unlabeled'} and {gold_dir.parent / 'corpus'}")
        log(str(train_vectors(
            gold_dir.parent, Path(vectors_tmp), dim=int(options["vectors_dim"]), max_words=int(options["vectors_words"]),
            epochs=int(options["vectors_epochs"]), seed=seed, limit=limit,
        )))
        config["initialize"]["vectors"] = vectors_tmp
    blank = spacy.blank(config["nlp"]["lang"])
    if config["initialize"].get("vectors"):
        load_vectors_into_model(blank, config["initialize"]["vectors"])  # examples' docs carry the vectors
    repeats = dict(zip(options["train_files"], options["train_repeat"]))
    examples = [
        make_example(blank, doc, all_labels) for name, docs in full for _ in range(int(repeats.get(name, 1))) for doc in docs
    ]
    examples *= max(1, int(options["full_repeat"]))
    log(f"{len(examples)} fully annotated train docs ({', '.join(n for n, _ in full)})")
    if options["distant_file"]:
        from paperkg.extract.learn.distant import distant_example, read_distant

        distant = read_distant(Path(options["distant_file"]))
        examples += [distant_example(blank, r["text"], r["spans"]) for r in distant] * max(1, int(options["distant_repeat"]))
        log(f"{len(distant)} partially labelled unlabeled abstracts ({options['distant_file']})")

    if partial and mode != "drop":
        if mode in ("outside", "positive"):
            default = "outside" if mode == "outside" else "missing"
            for _, docs in partial:
                examples += [
                    make_example(blank, doc, file_labels(docs), default=default) for doc in docs
                ]
        else:
            teacher_steps = min(int(options["teacher_steps"]), steps_budget)
            log(f"teacher: {teacher_steps} steps on the fully annotated files")
            teacher = _Trainer(config, seed, log)
            teacher.fit(list(examples), teacher_steps, init_tok2vec=init_tok2vec)
            for name, docs in partial:
                known = file_labels(docs)
                guesses = predict_spans(
                    teacher.nlp, [d.text for d in docs], labels=all_labels - known
                )
                n_spans = sum(map(len, guesses))
                log(f"teacher: {n_spans} {'/'.join(sorted(all_labels - known))} spans in {name} "
                    f"marked {'missing' if mode == 'missing' else 'as entities'}")
                for doc, spans in zip(docs, guesses):
                    if mode == "missing":
                        examples.append(make_example(blank, doc, known, missing=spans))
                    else:
                        examples.append(make_example(blank, doc, known, extra=spans))
            del teacher

    dev_texts = [[d.text for d in docs] for _, docs in dev_sets]

    select = set(options["select_files"]) or {name for name, _ in dev_sets}

    def evaluate(nlp: Language) -> tuple[float, str]:
        f1s = []
        for (name, docs), texts in zip(dev_sets, dev_texts):
            report = score(docs, predict_spans(nlp, texts))
            f1s.append(report.exact.micro.f1)
        info = "  ".join(f"{n.split('_')[0]} F1 {f:.3f}" for (n, _), f in zip(dev_sets, f1s))
        chosen = [f for (n, _), f in zip(dev_sets, f1s) if n in select]
        return sum(chosen) / len(chosen), info

    trainer = _Trainer(config, seed, log)
    log(f"training on {len(examples)} docs, labels {sorted(all_labels)}, max {steps_budget} steps")
    steps, best_step, _ = trainer.fit(examples, steps_budget, evaluate, init_tok2vec)
    nlp = trainer.nlp

    dev_scores = []
    for (name, docs), texts in zip(dev_sets, dev_texts):
        report = score(docs, predict_spans(nlp, texts), source=name)
        dev_scores.append(DevScore.from_report(name, report))
    seconds = time.perf_counter() - started
    nlp.meta.update(
        {
            "name": "paperkg_ner",
            "version": "0.1.0",
            "description": "paperkg NER for ML abstracts: METHOD, TASK, DATASET, METRIC "
            f"(OTHER, if any, is dropped). Trained on {', '.join(options['train_files'])}.",
            "license": "research use (SciERC has no explicit licence)",
            "labels_scored": list(SCORED_LABELS),
            "performance": {d.file: d.to_dict() for d in dev_scores},
            "paperkg_training": {
                "seed": seed,
                "steps": steps,
                "best_step": best_step,
                "seconds": round(seconds, 1),
                "options": {k: options[k] for k in sorted(options)},
                "train_docs": len(examples),
            },
        }
    )
    _install(nlp, output_dir)
    if vectors_tmp:
        shutil.rmtree(vectors_tmp, ignore_errors=True)
    paper_files = [name for name in options["train_files"] if is_paper_level(gold_dir / name)]
    if paper_files:
        from paperkg.extract.learn.roles import train_roles
        from paperkg.extract.resolve.roles import ROLES_FILE

        train_roles(gold_dir / paper_files[0], output_dir / ROLES_FILE)
        log(f"role model trained on {paper_files[0]} -> {output_dir / ROLES_FILE}")
        if confidence:
            from paperkg.extract.learn.confidence import train_confidence

            # The folds reuse this model's word vectors and settings, and make no confidence model of their own.
            fold_overrides = {**(overrides or {}), "initialize.vectors": str(output_dir)}
            train_confidence(gold_dir, paper_files[0], output_dir, seed=seed, log=log, train_ner=lambda gold, out: train_model(
                gold, out, seed=seed, max_steps=max_steps, config_path=config_path, overrides=fold_overrides,
                limit=limit, corpus_dir=corpus_dir, progress=progress, confidence=False))
    report = TrainReport(
        output_dir=output_dir,
        seed=seed,
        steps=steps,
        best_step=best_step,
        train_docs=len(examples),
        dev=tuple(dev_scores),
        seconds=seconds,
        size_bytes=_dir_size(output_dir),
        labels=tuple(sorted(all_labels)),
    )
    log(
        f"done: best step {best_step}/{steps}, "
        + ", ".join(f"{d.file} F1 {d.f1:.3f}" for d in dev_scores)
        + f", {report.size_bytes / 1e6:.1f} MB in {seconds:.0f}s -> {output_dir}"
    )
    return report


__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_MODEL_DIR",
    "DevScore",
    "TrainReport",
    "default_gold_dir",
    "train_model",
]
