"""Paper-paper links a researcher would follow: similar text and shared specific entities.

Two signals, both scipy sparse products in row blocks (never the bipartite projection):

- the TF-IDF cosine of the two abstracts (:mod:`paperkg.graph.text_similarity`);
- entity evidence. Each entity has a *link value*: its IDF times its specificity
  (:func:`specificity`), so an umbrella term ("machine learning", "accuracy", a lower-case family
  found in many papers) counts for little and a named dataset, method or benchmark counts fully.
  A pair has evidence with two shared specific (non-umbrella) entities, or one shared named
  entity that is rare (in at most :func:`rare_limit` papers), or one central to both papers.
  Each shared entity's contribution is its term of the cosine of the two papers' unit vectors of
  link values.

:func:`paper_links` says which pairs link and with what kind (``both``, ``text``,
``entities``); links are accepted strongest first while both papers have fewer than ``top_k``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import Iterator

import networkx as nx
import numpy as np
from scipy import sparse

from paperkg.extract.nlp.normalize import normalize_key
from paperkg.extract.nlp.rules import is_name_like
from paperkg.forks import fork_ranges
from paperkg.graph import text_similarity
from paperkg.types import Link

BLOCK_ROWS = 1024
MAX_SHARED = 10
#: A link's text cosine is at least this (below it two abstracts share little but field words).
TEXT_MIN = 0.1
#: A pair with entity evidence links when it is among one paper's this many nearest by text.
ENTITY_NEIGHBOURS = 2
#: Text candidates proposed per paper before the full cosines rank them.
TEXT_CANDIDATES = 15
#: Shared words a text link names.
TERMS_SHOWN = 5
#: Links whose shared words, and titles whose keys, a forked process finds per task.
TERMS_CHUNK = TITLE_CHUNK = 4096
#: Entities named in a link's one-line ``reason``.
REASON_ENTITIES = 3

#: Field words: they say what area a paper is in, never what two papers share.
UMBRELLA_TERMS = frozenset(
    normalize_key(term)
    for term in (
        "machine learning", "deep learning", "neural network", "deep neural network", "artificial intelligence",
        "AI", "ML", "DNN", "NN",
        "supervised learning", "unsupervised learning", "learning", "optimization", "sampling", "accuracy",
        "classification", "regression", "prediction", "generalization", "training", "inference", "performance",
        "efficiency", "robustness", "data", "model", "algorithm", "neural net", "deep model", "deep network",
        "machine learning model", "deep learning model", "neural network model", "AI model", "AI system",
        "computer vision", "natural language processing", "NLP", "decision making", "error", "loss",
    )
)
#: Acronyms of fields and families: "AI models" or "LLM agents" are no proper names.
GENERIC_ACRONYMS = frozenset(
    "ai ml llm llms dnn dnns nn nns rl drl nlp cv gpu gpus cpu api apis gnn gnns cnn cnns rnn rnns vlm vlms mllm mllms "
    "lm lms iot gan gans vae vaes sota qa".split()
)
#: An unnamed entity in more than this share of the papers is a broad family ("diffusion
#: model"): it counts for little, and is evidence only where it is central to both papers.
FAMILY_SHARE = 0.01
FAMILY_MIN_PAPERS = 10
#: A named entity in at most this share of the papers (and at least RARE_MIN_PAPERS) is rare.
RARE_SHARE = 0.01
RARE_MIN_PAPERS = 5
#: Entities in more papers than this share (at least UBIQUITY_MIN_PAPERS, at most
#: UBIQUITY_MAX_PAPERS) add weight to pairs but propose none: the cap that keeps the block
#: products sparse (an entity in d papers alone proposes d^2 pairs).
UBIQUITY_SHARE = 0.02
UBIQUITY_MIN_PAPERS = 100
UBIQUITY_MAX_PAPERS = 500
#: Specificity factors: named entities count fully, descriptive phrases half, families and
#: field words little.
NAMED, DESCRIPTIVE, FAMILY, UMBRELLA = 1.0, 0.5, 0.2, 0.05
METRIC_FACTOR = 0.5


def is_named(attrs: dict) -> bool:
    """A proper name: a coined or acronym word, a Title Case multi-word name, a capitalized
    dataset or benchmark, in the entity's name or in one of its written forms ("soft
    actor-critic", written "SAC" by its papers). (A known-list id alone is no proof: PwC lists
    families such as "Graph Neural Network" too.) On the 300 judged ICML 2024 pairs, counting
    the written forms raised the RELATED share of the linked pairs from 0.244 to 0.268, took
    UNRELATED links from 16 to 13 and papers without a link from 690 to 502.

    >>> is_named({"name": "MuJoCo"}), is_named({"name": "Soft Actor-Critic"}), is_named({"name": "diffusion model"})
    (True, True, False)
    >>> is_named({"name": "Transformer"}), is_named({"name": "AI models"})
    (False, False)
    >>> is_named({"name": "Atari 100K"}), is_named({"name": "Atari", "type": "Benchmark"})
    (True, True)
    >>> is_named({"name": "soft actor-critic", "aliases": ["SAC"]}), is_named({"name": "large language model", "aliases": ["LLM"]})
    (True, False)
    """
    name = str(attrs.get("name") or attrs.get("key") or "")
    return any(_proper_name(form, attrs.get("type")) for form in (name, *(attrs.get("aliases") or ())))


def _proper_name(name: str, type: str | None) -> bool:
    words = [w.strip("()-,") for w in name.split()]
    words = [w for w in words if w and w.casefold() not in GENERIC_ACRONYMS]
    if any(is_name_like(word) for word in words):
        return True
    capitals = [w for w in words if w[0].isupper() or (any(c.isdigit() for c in w) and any(c.isupper() for c in w))]
    if type in ("Dataset", "Benchmark") and len(capitals) == len(words) == 1:
        return True  # "Atari", "Procgen"
    return len(capitals) >= 2


def ubiquity_limit(n_papers: int) -> float:
    """Paper count above which an entity proposes no pairs itself (the cap on the products)."""
    return max(UBIQUITY_MIN_PAPERS, min(UBIQUITY_SHARE * n_papers, UBIQUITY_MAX_PAPERS))


def family_limit(n_papers: int) -> float:
    """Paper count above which an unnamed entity is a broad family."""
    return max(FAMILY_MIN_PAPERS, FAMILY_SHARE * n_papers)


def rare_limit(n_papers: int) -> float:
    """Paper count up to which a named entity is rare enough to link two papers on its own."""
    return max(RARE_MIN_PAPERS, RARE_SHARE * n_papers)


def is_umbrella(attrs: dict) -> bool:
    """A field word of :data:`UMBRELLA_TERMS` ("machine learning", "accuracy", "RL").

    >>> is_umbrella({"key": "machine learning", "name": "machine learning"}), is_umbrella({"name": "Deep Learning"})
    (True, True)
    >>> is_umbrella({"key": "mujoco", "name": "MuJoCo"})
    False
    """
    key = attrs.get("key")
    return (key if key is not None else normalize_key(str(attrs.get("name") or ""))) in UMBRELLA_TERMS


def is_family(attrs: dict, papers: int, n_papers: int) -> bool:
    """A broad family: an unnamed entity in many papers ("diffusion model", "graph neural network").

    >>> is_family({"name": "diffusion model"}, 50, 1000), is_family({"name": "MuJoCo"}, 400, 1000)
    (True, False)
    """
    return not is_named(attrs) and papers > family_limit(n_papers)


def specificity(attrs: dict, papers: int, n_papers: int) -> float:
    """How much sharing this entity says about two papers, before IDF (0.025 to 1).

    >>> specificity({"key": "mujoco", "name": "MuJoCo", "type": "Benchmark"}, 40, 2000)
    1.0
    >>> specificity({"key": "accuracy", "name": "accuracy", "type": "Metric"}, 900, 2000)
    0.025
    """
    if is_umbrella(attrs):
        factor = UMBRELLA
    elif is_named(attrs):
        factor = NAMED
    elif is_family(attrs, papers, n_papers):
        factor = FAMILY
    else:
        factor = DESCRIPTIVE
    return factor * (METRIC_FACTOR if attrs.get("type") == "Metric" else 1.0)


def is_central(edge: dict, keys: list[str] | tuple[str, ...], title_key: str | None) -> bool:
    """The entity is what the paper is about: it proposes it, names it twice, or its title names
    it (``keys``: the entity's key and alias keys; ``title_key``: the normalized title).

    >>> is_central({"role": "used", "count": 1}, ["large language model", "llm"], normalize_key("Taming LLMs"))
    True
    >>> is_central({"role": "mentioned", "count": 1}, ["diffusion model"], None)
    False
    """
    if edge.get("role") == "proposed" or int(edge.get("count") or 1) >= 2:
        return True
    if not title_key:
        return False
    padded = f" {title_key} "
    return any(len(key) > 2 and f" {key} " in padded for key in keys)


def _incidence(graph: nx.DiGraph,
               processes: int = 1) -> tuple[list[str], list[str], sparse.csr_matrix, sparse.csr_matrix]:
    """The papers and entities (node ids, sorted), the paper-entity incidence matrix and the
    matrix of the pairs where the entity is central; the titles' keys in ``processes`` forked
    processes (normalizing 95k titles took 8 s)."""
    papers = sorted(n for n, kind in graph.nodes(data="kind") if kind == "Paper")
    entities = sorted(n for n, kind in graph.nodes(data="kind") if kind == "Entity")
    column = {node: index for index, node in enumerate(entities)}
    titles = [graph.nodes[paper].get("title") for paper in papers]

    def keys(start: int, stop: int) -> list[str | None]:
        return [normalize_key(title) if title else None for title in titles[start:stop]]

    title_keys = chain.from_iterable(fork_ranges(keys, len(titles), TITLE_CHUNK, processes, what="the titles' keys"))
    rows, cols, central = [], [], []
    for row, (paper, title_key) in enumerate(zip(papers, list(title_keys))):
        for _, target, data in graph.out_edges(paper, data=True):
            if data.get("kind") == "HAS":
                rows.append(row)
                cols.append(column[target])
                attrs = graph.nodes[target]
                keys = attrs.get("alias_keys") or [attrs.get("key") or target.split(":", 1)[1]]
                central.append(1.0 if is_central(data, keys, title_key) else 0.0)
    shape = (len(papers), len(entities))
    matrix = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
    core = sparse.csr_matrix((np.asarray(central, dtype=np.float64), (rows, cols)), shape=shape)
    for m in (matrix, core):
        m.sum_duplicates()
        m.data = np.minimum(m.data, 1.0)
        m.eliminate_zeros()
    return papers, entities, matrix, core


def idf_weights(matrix: sparse.csr_matrix) -> np.ndarray:
    """log(N / df) per entity; entities in one paper only get 0, as they link nothing."""
    n_papers = matrix.shape[0]
    df = np.asarray(matrix.sum(axis=0)).ravel()
    with np.errstate(divide="ignore"):
        idf = np.where(df > 1, np.log(n_papers / np.maximum(df, 1)), 0.0)
    return idf


@dataclass(frozen=True)
class LinkValues:
    """Per entity column: paper count, link value, and its evidence class: ``specific`` (two of
    them link), ``rare_named`` (one links), ``family`` (a broad family), ``core`` (one links where it is
    central to both papers)."""

    df: np.ndarray
    value: np.ndarray
    specific: np.ndarray
    rare_named: np.ndarray
    family: np.ndarray
    core: np.ndarray


def link_values(graph: nx.DiGraph, entities: list[str], matrix: sparse.csr_matrix) -> LinkValues:
    """The link value (IDF x specificity) and evidence class of every entity column."""
    n_papers = matrix.shape[0]
    df = np.asarray(matrix.sum(axis=0)).ravel().astype(np.int64)
    idf = idf_weights(matrix)
    factor = np.zeros(len(entities))
    specific = np.zeros(len(entities), dtype=bool)
    rare_named = np.zeros(len(entities), dtype=bool)
    family = np.zeros(len(entities), dtype=bool)
    core = np.zeros(len(entities), dtype=bool)
    limit = rare_limit(n_papers)
    for col in np.flatnonzero(idf > 0).tolist():  # entities of one paper (most of them) link nothing
        node = entities[col]
        attrs = {"key": node.split(":", 1)[1], **graph.nodes[node]}
        papers, named = int(df[col]), is_named(attrs)
        if is_umbrella(attrs):
            factor[col] = UMBRELLA
        else:
            family[col] = not named and papers > family_limit(n_papers)
            factor[col] = NAMED if named else FAMILY if family[col] else DESCRIPTIVE
            specific[col] = not family[col]
            rare_named[col] = papers <= limit and named
            # A metric, or one plain word ("alignment"), central to two papers still says little.
            core[col] = attrs.get("type") != "Metric" and (named or len(str(attrs.get("name") or "").split()) > 1)
        if attrs.get("type") == "Metric":
            factor[col] *= METRIC_FACTOR
    return LinkValues(df=df, value=idf * factor, specific=specific, rare_named=rare_named, family=family, core=core)


def _entity_candidates(graph: nx.DiGraph, papers: list[str], entities: list[str], matrix: sparse.csr_matrix,
                       central: sparse.csr_matrix, top_k: int,
                       processes: int = 1) -> tuple[sparse.csr_matrix, LinkValues, np.ndarray]:
    """The unit link-value rows of the papers, the entity columns' values, and the pairs with
    entity evidence (each paper's ``2 * top_k`` strongest, left < right, as the sorted distinct
    numbers ``left * len(papers) + right``); blocks of rows in ``processes`` forked processes."""
    values = link_values(graph, entities, matrix)
    # A paper's own central entities weigh fully, its passing mentions half.
    weighted = (matrix + central).multiply(values.value / 2).tocsr()
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1)).ravel())
    norms[norms == 0] = 1.0
    unit = (sparse.diags(1.0 / norms) @ weighted).tocsr()
    unit.eliminate_zeros()
    # The cap: an entity in more than ubiquity_limit() papers proposes no pairs (its products
    # would be dense); it adds its share of the weight to the pairs that other evidence proposes.
    common = values.df > ubiquity_limit(len(papers))
    low, high = np.flatnonzero(~common), np.flatnonzero(common)
    unit_low, unit_high = unit[:, low].tocsr(), unit[:, high].tocsr()
    unit_low_t = unit_low.T.tocsc()

    def columns(source: sparse.csr_matrix, wanted: np.ndarray) -> tuple[sparse.csr_matrix, sparse.csc_matrix]:
        picked = source[:, np.flatnonzero(wanted & ~common)].tocsr()
        return picked, picked.T.tocsc()

    specific, specific_t = columns(matrix, values.specific)
    rare, rare_t = columns(matrix, values.rare_named)
    core, core_t = columns(central, values.core)
    family, family_t = columns(matrix, values.core & values.family)
    family_central, family_central_t = columns(central, values.core & values.family)

    def block_pairs(block_start: int, block_stop: int) -> np.ndarray:
        rows = slice(block_start, block_stop)
        # Evidence counts 1 for a rare named entity or one central to both papers, 1/2 for another
        # specific entity or for a broad family central to one of the two; a link needs 1.
        both = core[rows] @ core_t
        one = family_central[rows] @ family_t + family[rows] @ family_central_t - 2 * (family_central[rows] @ family_central_t)
        evidence = (rare[rows] @ rare_t) + both + 0.5 * (specific[rows] @ specific_t) + 0.5 * one
        block = (unit_low[rows] @ unit_low_t).multiply(evidence >= 1).tocoo()
        keep = (block.row + block_start != block.col) & (block.data > 0)
        block_rows, block_cols, vals = block.row[keep] + block_start, block.col[keep], block.data[keep]
        if len(high) and len(vals):
            vals = vals + text_similarity.pair_dots(unit_high, block_rows, block_cols)
        # Each row's 2 * top_k strongest (ties by the other paper).
        first = text_similarity.row_top(block_rows, block_cols, np.round(vals, 12), 2 * top_k)
        rows_kept, cols_kept = block_rows[first], block_cols[first]
        return np.minimum(rows_kept, cols_kept).astype(np.int64) * len(papers) + np.maximum(rows_kept, cols_kept)

    proposed = fork_ranges(block_pairs, len(papers), BLOCK_ROWS, processes, what="the entity evidence")
    return unit, values, np.unique(np.concatenate([np.zeros(0, dtype=np.int64), *proposed]))


def neighbour_ranks(lefts: np.ndarray, rights: np.ndarray, scores: np.ndarray, n: int) -> np.ndarray:
    """For each pair, its better rank (0 = nearest) in the two papers' lists of candidates by
    score (ties by the other paper).

    >>> neighbour_ranks(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([0.9, 0.5, 0.2]), 3).tolist()
    [0, 0, 1]
    """
    if len(lefts) == 0:
        return np.zeros(0, dtype=np.int64)
    # 32-bit papers and positions, each temporary dropped once used, each row's first position
    # carried forward rather than searched for: the same order, and at 95k papers this step (the
    # link stage's peak) adds ~120 MB to what the stage holds, ~250 MB in 64 bits with a search.
    index = np.int32 if max(n, 2 * len(lefts)) < 2**31 else np.int64
    rows = np.concatenate([lefts, rights]).astype(index)
    by_score = np.concatenate([scores, scores])
    np.negative(by_score, out=by_score)
    order = np.lexsort((np.concatenate([rights, lefts]).astype(index), by_score, rows))
    del by_score
    sorted_rows = rows[order]
    del rows
    rank = np.arange(len(order), dtype=index)
    first = np.empty(len(order), dtype=bool)
    first[0] = True
    np.not_equal(sorted_rows[1:], sorted_rows[:-1], out=first[1:])
    del sorted_rows
    starts = np.where(first, rank, 0).astype(index, copy=False)
    del first
    np.maximum.accumulate(starts, out=starts)
    rank -= starts
    del starts
    position = np.empty(len(order), dtype=index)
    position[order] = rank
    return np.minimum(position[: len(lefts)], position[len(lefts):])


def paper_links(graph: nx.DiGraph, *, top_k: int = 20, processes: int = 1) -> Iterator[Link]:
    """Links to the papers a researcher would call related, at most ``top_k`` per paper; the
    texts, the candidate pairs and the links' shared words in ``processes`` forked processes
    (the same links as in one).

    Two signals: the TF-IDF cosine of the two abstracts (:mod:`paperkg.graph.text_similarity`)
    and shared specific entities (the evidence rules above). A pair links when it is one
    paper's nearest text neighbour (kind ``text``, or ``both`` when it also has entity
    evidence), or when it has entity evidence and is among one paper's
    :data:`ENTITY_NEIGHBOURS` nearest (``both``); its cosine must reach :data:`TEXT_MIN`. A
    pair of papers without text links on entity evidence alone (``entities``). On the 300 judged
    ICML 2024 pairs (``pairs_train.jsonl``) entity evidence alone linked 123 judged pairs, 27%
    RELATED, 33 of the 60 RELATED pairs, and left 19% of papers unlinked; the two signals link
    76, 51% RELATED, 39 of 60, and leave 0.8% unlinked. The weight is the cosine (of the text,
    else of the entity vectors); ``evidence`` holds each shared entity's term of the entity
    cosine, ``terms`` the shared words that weigh most in the text cosine.

    >>> g = nx.DiGraph()
    >>> texts = {"a": "Soft actor-critic on MuJoCo locomotion", "b": "Soft actor-critic for MuJoCo control",
    ...          "c": "Graph coloring bounds", "d": "Graph coloring with local search", "e": "Image compression"}
    >>> for p, text in texts.items():
    ...     g.add_node("paper:" + p, kind="Paper", abstract=text)
    >>> for p in "ab":
    ...     g.add_node("entity:sac", kind="Entity", name="SAC", type="Method")
    ...     g.add_edge("paper:" + p, "entity:sac", kind="HAS", role="used", count=1)
    >>> [(l.source, l.target, l.kind, l.shared, l.terms[:2]) for l in paper_links(g)]
    [('paper:a', 'paper:b', 'both', ('sac',), ('actor-critic', 'mujoco')), ('paper:c', 'paper:d', 'text', (), ('coloring', 'graph'))]
    """
    if top_k < 1:
        return
    papers, entities, matrix, central = _incidence(graph, processes)
    if not papers:
        return
    unit, values, entity_codes = _entity_candidates(graph, papers, entities, matrix, central, top_k, processes)
    # Each array goes once used: the links are a few of millions of candidate pairs (at 95k
    # papers the stage's peak over the graph fell from +550 to +350 MB).
    del matrix, central
    texts = text_similarity.PaperTexts(graph, papers)
    rows, df = text_similarity.tfidf_rows(texts, processes)
    has_text = np.diff(rows.indptr) > 0
    # A pair as one number, left * papers + right: sorted, it is the pairs' (left, right) order,
    # as unique_pairs would give them without its (k, 2) copies.
    n = len(papers)
    text_lefts, text_rights = text_similarity.neighbour_pairs(rows, df, per_row=TEXT_CANDIDATES, processes=processes)
    del df
    codes = np.unique(np.concatenate([entity_codes, text_lefts * n + text_rights]))
    del text_lefts, text_rights
    if len(codes) == 0:
        return
    lefts, rights = np.divmod(codes, n)
    # Every entity pair is among the sorted candidates: a binary search finds each one's place.
    with_entities = np.zeros(len(codes), dtype=bool)
    with_entities[np.searchsorted(codes, entity_codes)] = True
    del entity_codes, codes
    cosines = text_similarity.pair_cosines(rows, lefts, rights, processes)
    ranks = neighbour_ranks(lefts, rights, cosines, len(papers))
    textless = ~(has_text[lefts] & has_text[rights])
    # The entity cosine weighs only the pairs without text (the others weigh their text cosine).
    entity_weights = np.zeros(len(lefts))
    entity_weights[textless] = np.round(text_similarity.pair_dots(unit, lefts[textless], rights[textless], processes), 12)
    keep = np.where(textless, with_entities & (entity_weights > 0),
                    (cosines >= TEXT_MIN) & ((ranks < 1) | (with_entities & (ranks < ENTITY_NEIGHBOURS))))
    del ranks
    strength = np.where(textless[keep], entity_weights[keep], cosines[keep])
    del cosines, entity_weights
    kinds = np.where(textless[keep], "entities", np.where(with_entities[keep], "both", "text"))
    del textless, with_entities
    lefts, rights = lefts[keep], rights[keep]
    del keep
    # A paper many others choose (a broad survey) would collect far more than top_k: links are
    # accepted strongest first while both ends have room.
    order = np.lexsort((rights, lefts, -strength))
    degree = [0] * len(papers)
    accepted = []
    for index in order.tolist():
        left, right = int(lefts[index]), int(rights[index])
        if degree[left] < top_k and degree[right] < top_k:
            degree[left] += 1
            degree[right] += 1
            accepted.append(index)
    accepted.sort(key=lambda i: (int(lefts[i]), int(rights[i])))

    def words(start: int, stop: int) -> list[tuple[str, ...]]:
        return [() if kinds[i] == "entities" else tuple(
            text_similarity.shared_terms(rows, int(lefts[i]), int(rights[i]), texts[int(lefts[i])], k=TERMS_SHOWN))
            for i in accepted[start:stop]]

    terms = chain.from_iterable(fork_ranges(words, len(accepted), TERMS_CHUNK, processes, what="the links' shared words"))
    static: dict[int, dict] = {}
    for index, shared_words in zip(accepted, list(terms)):
        left, right, kind = int(lefts[index]), int(rights[index]), str(kinds[index])
        a, b = _row_values(unit, left), _row_values(unit, right)
        contrib = sorted(((-round(a[c] * b[c], 12), entities[c], c) for c in a.keys() & b.keys()))
        evidence = []
        for negative, _, col in contrib[:MAX_SHARED]:
            if col not in static:
                static[col] = _evidence(graph, entities[col], int(values.df[col]))
            evidence.append({**static[col], "contribution": round(-negative, 6)})
        yield Link(
            source=papers[left],
            target=papers[right],
            weight=round(float(strength[index]), 6),
            shared=tuple(item["key"] for item in evidence),
            evidence=tuple(evidence),
            reason=link_reason(evidence, shared_words),
            kind=kind,
            terms=shared_words,
        )


def _row_values(unit: sparse.csr_matrix, row: int) -> dict[int, float]:
    start, end = unit.indptr[row], unit.indptr[row + 1]
    return dict(zip(unit.indices[start:end].tolist(), unit.data[start:end].tolist()))


def _evidence(graph: nx.DiGraph, node: str, papers: int) -> dict:
    attrs = graph.nodes[node]
    key = attrs.get("key") or node.split(":", 1)[1]
    return {"key": key, "name": attrs.get("name") or key, "type": attrs.get("type"), "papers": papers}


def link_reason(evidence: tuple[dict, ...] | list[dict], terms: tuple[str, ...] | list[str] = ()) -> str:
    """One line naming the strongest shared entities and the shared words.

    >>> link_reason([{"name": "MuJoCo", "type": "Benchmark", "papers": 15}, {"name": "SAC", "type": "Method", "papers": 9}])
    'shared: MuJoCo (benchmark, 15 papers), SAC (method, 9 papers)'
    >>> link_reason([], ["graph coloring", "local search"])
    'similar text: graph coloring, local search'
    """
    parts = [f"{item['name']} ({str(item.get('type') or 'entity').lower()}, {item['papers']} papers)"
             for item in list(evidence)[:REASON_ENTITIES]]
    more = len(evidence) - REASON_ENTITIES
    lines = ["shared: " + ", ".join(parts) + (f" and {more} more" if more > 0 else "")] if parts else []
    if terms:
        lines.append("similar text: " + ", ".join(list(terms)[:REASON_ENTITIES]))
    return "; ".join(lines)


def add_links(graph: nx.DiGraph, *, top_k: int = 20, copy: bool = True, processes: int = 1) -> nx.DiGraph:
    """A copy of ``graph`` whose RELATED_TO edges are recomputed from the papers' text and
    entity edges (``copy=False``: ``graph`` itself, as the build does: a copy of 95k papers' graph costs
    hundreds of MB); ``processes`` as for :func:`paper_links`."""
    linked = graph.copy() if copy else graph
    # Over the adjacency dicts: the edge view's generator took seconds at 95k papers.
    linked.remove_edges_from([(u, v) for u, targets in linked.adjacency() for v, data in targets.items()
                              if data.get("kind") == "RELATED_TO"])
    words: dict[str, str] = {}  # one object per shared word: each link's are new strings
    for link in paper_links(linked, top_k=top_k, processes=processes):
        linked.add_edge(link.source, link.target, kind="RELATED_TO", weight=link.weight, shared=list(link.shared),
                        evidence=[dict(item) for item in link.evidence], reason=link.reason, link_kind=link.kind,
                        terms=[words.setdefault(word, word) for word in link.terms])
    linked.graph["top_k"] = top_k
    return linked
