"""Training the role model of :mod:`paperkg.extract.resolve.roles` on paper-level gold.

A multinomial logistic regression by full-batch gradient descent: deterministic, numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy

from paperkg.atomic import atomic_write_text
from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.read.gold import read_paper_gold
from paperkg.extract.resolve.roles import PaperContext, RoleModel, entity_features, known_keys
from paperkg.types import ROLES


def softmax_weights(
    features: numpy.ndarray, targets: numpy.ndarray, *, l2: float, steps: int, rate: float, balance: float
) -> numpy.ndarray:
    """Multinomial logistic regression by full-batch gradient descent (deterministic):
    ``targets`` is one-hot (rows × classes); returns classes × features weights. ``balance`` > 0
    weighs rare classes more."""
    n = len(targets)
    class_weight = (n / (targets.shape[1] * numpy.maximum(targets.sum(axis=0), 1.0))) ** balance
    sample_weight = targets @ class_weight
    weights = numpy.zeros((targets.shape[1], features.shape[1]))
    for _ in range(steps):
        scores = features @ weights.T
        scores -= scores.max(axis=1, keepdims=True)
        probs = numpy.exp(scores)
        probs /= probs.sum(axis=1, keepdims=True)
        grad = ((probs - targets) * sample_weight[:, None]).T @ features / n + l2 * weights / n
        weights -= rate * grad
    return weights


def fit(
    x: Sequence[Sequence[float]], y: Sequence[str], *, l2: float = 0.1, steps: int = 3000, rate: float = 0.5, balance: float = 0.3
) -> RoleModel:
    """The role model of labelled feature rows (balance 0.3 was best on 5-fold cross-validation on train)."""
    targets = numpy.zeros((len(y), len(ROLES)))
    targets[numpy.arange(len(y)), [ROLES.index(label) for label in y]] = 1.0
    weights = softmax_weights(numpy.asarray(x, dtype=float), targets, l2=l2, steps=steps, rate=rate, balance=balance)
    return RoleModel(weights=tuple(tuple(round(float(v), 6) for v in row) for row in weights))


def gold_examples(gold) -> tuple[list[list[float]], list[str]]:
    """Features and roles of every gold entity of paper-level gold papers."""
    known = known_keys()
    x, y = [], []
    for gp in gold:
        context = PaperContext.of(gp.paper.abstract, gp.paper.title)
        for entity in gp.entities:
            x.append(
                entity_features(
                    context, entity.mentions, name=entity.name, type_=entity.type,
                    known=normalize_key(entity.name) in known,
                    acronym_defined=any(f"({a})" in gp.paper.abstract for a in entity.aliases),
                )
            )
            y.append(entity.role)
    return x, y


def train_roles(gold_path: Path, output: Path) -> RoleModel:
    """Fit the role model on a paper-level gold file and write it to ``output`` (JSON)."""
    x, y = gold_examples(read_paper_gold(gold_path))
    model = fit(x, y)
    atomic_write_text(Path(output), model.to_json() + "\n")
    return model
