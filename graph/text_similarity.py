"""TF-IDF similarity of two papers' abstracts: the second signal of a link, beside shared entities.

Pure functions over texts and scipy sparse matrices: :func:`term_forms` cuts an abstract into its
content words and their adjacent pairs; :func:`tfidf_rows` turns a list of texts into unit-length
rows over hashed term columns (sublinear term frequency x IDF); :func:`neighbour_pairs` proposes each paper's most similar
papers in row blocks, through terms of bounded document frequency only (a term in d papers
proposes d^2 pairs; common terms still count in the cosine of the pairs others propose), so the
products stay sparse at 100k papers; :func:`pair_cosines` scores given pairs on the full rows.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from scipy import sparse
from spacy.lang.en.stop_words import STOP_WORDS

from paperkg.forks import fork_ranges

BLOCK_ROWS = 1024
#: Texts parsed, and pairs scored, per task of a forked process.
PARSE_CHUNK = 4096
PAIR_CHUNK = 1 << 17
#: Hashed term columns (2^22): collisions are rare enough to leave cosines unchanged.
COLUMNS = 1 << 22
#: Mixes a word pair's two codes into one (a Knuth multiplicative constant).
PAIR_MIX = np.uint64(2654435761)
#: A term in more papers than this proposes no pairs (it still counts in their cosine).
PROPOSE_MAX_PAPERS = 120
#: Words every abstract uses: they say nothing about what two papers share.
ABSTRACT_WORDS = frozenset(
    "propose proposed proposes paper papers approach approaches method methods result results show shows shown "
    "novel new demonstrate demonstrates experiment experiments experimental performance work existing state art "
    "based using use used present presents study framework significantly significant outperform outperforms "
    "achieve achieves improve improves improved improvement task tasks problem problems model models datasets "
    "dataset furthermore moreover however propose introduce introduces address addresses".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*")


@lru_cache(maxsize=1 << 18)
def _content_stem(word: str) -> str | None:
    """The stem of a lower-cased content word (None for a stop or boilerplate word): plural and
    -ing/-ed endings folded, so "networks" meets "network" (no full stemmer: names such as
    "MuJoCo" pass lower-cased but whole). Cached: an abstract's words are mostly common ones."""
    if len(word) < 3 or word in STOP_WORDS or word in ABSTRACT_WORDS:
        return None
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: len(word) - len(suffix)] + keep
    return word


@lru_cache(maxsize=1 << 18)
def _word_code(word: str) -> int:
    """The crc32 of a lower-cased word's stem; 0 for a stop or boilerplate word."""
    stem = _content_stem(word)
    return 0 if stem is None else zlib.crc32(stem.encode("utf-8")) or 1


@lru_cache(maxsize=1)
def _parse(text: str) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The lower-cased words, their codes, and one column per term occurrence: each content
    word, then each pair of content words side by side (the pair's column mixes the two codes,
    so no pair string is built). The last text's parse is kept: a paper's links come one after
    another, and each names the shared words as that paper writes them."""
    words = _WORD.findall(text.lower())
    codes = np.fromiter(map(_word_code, words), dtype=np.uint64, count=len(words))
    kept = codes > 0
    pair = kept[:-1] & kept[1:]
    columns = np.concatenate([codes[kept], codes[:-1][pair] * PAIR_MIX + codes[1:][pair]]) & np.uint64(COLUMNS - 1)
    return words, kept, pair, columns.astype(np.int64)


def term_forms(text: str, only: np.ndarray | None = None) -> list[tuple[int, str]]:
    """(column, form as written, lower-cased) of each term of ``text``: its content words (light
    stemming, no stop or boilerplate words) and each pair of content words side by side; with
    ``only`` (columns), the first occurrence of each of those columns alone (the forms of the
    others are never built).

    >>> [form for _, form in term_forms("We propose sparse attention for long sequences.")]
    ['sparse', 'attention', 'long', 'sequences', 'sparse attention', 'long sequences']
    >>> [form for _, form in term_forms("Sparse attention, sparse heads.", only=term_forms("sparse")[0][:1])]
    ['sparse']
    """
    words, kept, pair, columns = _parse(text)
    positions = np.arange(len(columns))
    if only is not None:
        hit = np.flatnonzero(np.isin(columns, only))
        positions = np.sort(hit[np.unique(columns[hit], return_index=True)[1]])
    # Where each term starts among the words: the content words, then the pairs' first words.
    at, singles = np.flatnonzero(kept).tolist() + np.flatnonzero(pair).tolist(), int(kept.sum())
    forms = [words[at[i]] if i < singles else f"{words[at[i]]} {words[at[i] + 1]}" for i in positions.tolist()]
    return list(zip(columns[positions].tolist(), forms))


def paper_text(attrs: dict) -> str:
    """The text a paper's similarity is computed on: its title twice (it names the topic in few
    words; on the 300 judged pairs twice lifted the RELATED share of the links by 2-4 points)
    and its abstract."""
    title = str(attrs.get("title") or "")
    return f"{title}. {title}. {attrs.get('abstract') or ''}" if title else str(attrs.get("abstract") or "")


class PaperTexts(Sequence[str]):
    """The :func:`paper_text` of each of ``papers`` (node ids of ``graph``), made when asked: a
    list of them would hold a second copy of every abstract (~160 MB at 95k papers) through the
    link and community stages.

    >>> import networkx as nx
    >>> g = nx.DiGraph()
    >>> g.add_node("paper:a", title="SAC", abstract="Soft actor-critic.")
    >>> texts = PaperTexts(g, ["paper:a"])
    >>> len(texts), texts[0], texts[0:1]
    (1, 'SAC. SAC. Soft actor-critic.', ['SAC. SAC. Soft actor-critic.'])
    """

    def __init__(self, graph, papers: Sequence[str]):
        self._nodes, self._papers = graph.nodes, papers

    def __len__(self) -> int:
        return len(self._papers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [paper_text(self._nodes[paper]) for paper in self._papers[index]]
        return paper_text(self._nodes[self._papers[index]])


def tfidf_rows(texts: Sequence[str], processes: int = 1) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Unit-length TF-IDF rows of ``texts`` over hashed term columns (terms in one text only
    drop out), and each column's document frequency. Hashing keeps no vocabulary: at 100k
    abstracts their millions of word pairs would cost more memory than the graph. The texts
    are parsed in ``processes`` forked processes.

    >>> rows, df = tfidf_rows(["sparse attention", "sparse attention heads", "graph coloring"])
    >>> sorted(df[df > 1].tolist()), round(float((rows[0] @ rows[1].T).toarray()[0, 0]), 3), rows[2].nnz
    ([2, 2, 2], 1.0, 0)
    """
    def counts(start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        found = [np.unique(_parse(text)[3], return_counts=True) for text in texts[start:stop]]
        return (np.array([len(column) for column, _ in found], dtype=np.int64),
                np.concatenate([np.zeros(0, dtype=np.int32), *(column.astype(np.int32) for column, _ in found)]),
                np.concatenate([np.zeros(0, dtype=np.int32), *(count.astype(np.int32) for _, count in found)]))

    # In place, a chunk of texts at a time: the terms' columns and weights are the one large copy
    # (the sparse operations' copies, and a list of small arrays per text, took 2.2x the rows'
    # memory at 95k papers, the link stage's peak), and the chunks' counts come in 32 bits. The
    # weights are those the sparse products gave: the same multiplications, each row's squares
    # summed in the same order, and each row's columns last to first, as diags(1 / norms) @
    # matrix leaves them.
    chunks = list(fork_ranges(counts, len(texts), PARSE_CHUNK, processes, what="the texts' terms"))
    lengths = np.concatenate([np.zeros(0, dtype=np.int64), *(chunk[0] for chunk in chunks)])
    n, total = len(lengths), int(lengths.sum())
    cols, weights = np.empty(total, dtype=np.int32), np.empty(total)
    at, bounds = 0, []
    while chunks:
        chunk_lengths, chunk_cols, chunk_counts = chunks.pop(0)
        cols[at:at + len(chunk_cols)] = chunk_cols
        weights[at:at + len(chunk_cols)] = 1.0 + np.log(chunk_counts)
        bounds.append((len(chunk_lengths), at, at + len(chunk_cols)))
        at += len(chunk_cols)
    df = np.bincount(cols, minlength=COLUMNS)
    idf = np.where(df > 1, np.log((1 + n) / (1 + df)) + 1.0, 0.0)
    indptr, row, written = np.zeros(n + 1, dtype=np.int64), 0, 0
    for rows_in_chunk, start, stop in bounds:
        chunk_weights = weights[start:stop] * idf[cols[start:stop]]
        kept = chunk_weights != 0
        chunk_cols, chunk_weights = cols[start:stop][kept], chunk_weights[kept]
        row_of = np.repeat(np.arange(rows_in_chunk), lengths[row:row + rows_in_chunk])[kept]
        sizes = np.bincount(row_of, minlength=rows_in_chunk)
        local = np.concatenate([[0], np.cumsum(sizes)])
        squares = sparse.csr_matrix((chunk_weights * chunk_weights, chunk_cols, local), shape=(rows_in_chunk, COLUMNS))
        norms = np.sqrt(np.asarray(squares.sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        chunk_weights *= (1.0 / norms)[row_of]
        reverse = local[row_of] + local[row_of + 1] - 1 - np.arange(len(row_of))
        cols[written:written + len(reverse)] = chunk_cols[reverse]
        weights[written:written + len(reverse)] = chunk_weights[reverse]
        indptr[row + 1:row + rows_in_chunk + 1] = written + local[1:]
        row, written = row + rows_in_chunk, written + len(reverse)
    cols.resize(written, refcheck=False)
    weights.resize(written, refcheck=False)
    # 32-bit row bounds as scipy picks them, until the terms outgrow them.
    bounds_type = np.int32 if written < 2**31 else np.int64
    return sparse.csr_matrix((weights, cols, indptr.astype(bounds_type)), shape=(n, COLUMNS)), df


def neighbour_pairs(rows: sparse.csr_matrix, df: np.ndarray, *, per_row: int,
                    processes: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``per_row`` most similar other rows by the cosine over its terms in at most
    :data:`PROPOSE_MAX_PAPERS` papers, as (smaller, larger) index arrays, each pair once; blocks
    of rows in ``processes`` forked processes.

    >>> rows, df = tfidf_rows(["sparse attention", "sparse attention heads", "graph coloring", "graph coloring bound"])
    >>> [pair.tolist() for pair in neighbour_pairs(rows, df, per_row=1)]
    [[0, 2], [1, 3]]
    """
    picked = rows[:, np.flatnonzero((df > 1) & (df <= PROPOSE_MAX_PAPERS))].tocsr()
    picked_t = picked.T.tocsc()

    def block_pairs(start: int, stop: int) -> np.ndarray:
        block = (picked[start:stop] @ picked_t).tocoo()
        keep = (block.row + start != block.col) & (block.data > 0)
        r, c, v = block.row[keep] + start, block.col[keep], np.round(block.data[keep], 12)
        first = row_top(r, c, v, per_row)
        return np.stack([np.minimum(r[first], c[first]), np.maximum(r[first], c[first])], axis=1)

    found = list(fork_ranges(block_pairs, rows.shape[0], BLOCK_ROWS, processes, what="the text neighbours"))
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = unique_pairs(np.concatenate(found))
    return pairs[:, 0], pairs[:, 1]


def unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """The distinct rows of a (k, 2) array of index pairs, sorted, as ``np.unique(pairs, axis=0)``
    gives them, from one unique of the pairs as single integers (the row-wise unique sorted
    millions of candidate pairs at 95k papers, 4 s of the link stage).

    >>> unique_pairs(np.array([[2, 0], [0, 5], [2, 0], [0, 1]])).tolist()
    [[0, 1], [0, 5], [2, 0]]
    """
    if not len(pairs):
        return np.zeros((0, 2), dtype=np.int64)
    width = int(pairs[:, 1].max()) + 1
    codes = np.unique(pairs[:, 0].astype(np.int64) * width + pairs[:, 1])
    return np.stack([codes // width, codes % width], axis=1)


def row_top(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, k: int) -> np.ndarray:
    """Which entries are among their row's ``k`` largest ``values`` (ties: the smaller column
    first), for entries grouped by row (``rows`` sorted, a column at most once per row).

    A partition per long row, not one sort of the whole block: a block of 1,024 rows holds ~600k
    entries at 95k papers, and sorting them all by (row, value, column) took three quarters of
    the text neighbours' CPU.

    >>> row_top(np.array([0, 0, 0, 1]), np.array([5, 3, 4, 2]), np.array([0.2, 0.9, 0.2, 0.1]), 2).tolist()
    [False, True, True, True]
    """
    keep = np.ones(len(rows), dtype=bool)
    if len(rows) <= k:
        return keep
    starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
    ends = np.append(starts[1:], len(rows))
    for start, end in zip(*(bound[ends - starts > k].tolist() for bound in (starts, ends))):
        segment = values[start:end]
        kth = np.partition(segment, len(segment) - k)[len(segment) - k]
        above, ties = np.flatnonzero(segment > kth), np.flatnonzero(segment == kth)
        ties = ties[np.argsort(cols[start:end][ties], kind="stable")[:k - len(above)]]
        keep[start:end] = False
        keep[start + above] = True
        keep[start + ties] = True
    return keep


def pair_cosines(rows: sparse.csr_matrix, lefts: np.ndarray, rights: np.ndarray, processes: int = 1) -> np.ndarray:
    """The full TF-IDF cosine of each (left, right) pair of rows, rounded to 6 places.

    >>> rows, _ = tfidf_rows(["sparse attention", "sparse attention heads", "graph coloring", "graph coloring"])
    >>> pair_cosines(rows, np.array([0, 0]), np.array([1, 2])).tolist()
    [1.0, 0.0]
    """
    return np.round(pair_dots(rows, lefts, rights, processes), 6)


def pair_dots(rows: sparse.csr_matrix, lefts: np.ndarray, rights: np.ndarray, processes: int = 1) -> np.ndarray:
    """The dot product of each (left, right) pair of rows, in chunks of pairs in ``processes``
    forked processes (each pair's sum is its own: the chunks change no figure).

    >>> rows, _ = tfidf_rows(["sparse attention", "sparse attention heads", "graph coloring"])
    >>> pair_dots(rows, np.array([0, 1]), np.array([1, 2])).round(3).tolist()
    [1.0, 0.0]
    """
    def dots(start: int, stop: int) -> np.ndarray:
        return np.asarray(rows[lefts[start:stop]].multiply(rows[rights[start:stop]]).sum(axis=1)).ravel()

    return np.concatenate([np.zeros(0), *fork_ranges(dots, len(lefts), PAIR_CHUNK, processes, what="the pair scores")])


def shared_terms(rows: sparse.csr_matrix, left: int, right: int, text_left: str, k: int = 5) -> list[str]:
    """The ``k`` terms that weigh most in the cosine of rows ``left`` and ``right`` (a text
    link's evidence, ties in alphabetical order), as ``text_left`` (the text of row ``left``) writes them.

    >>> texts = ["sparse attention", "sparse attention heads", "graph coloring"]
    >>> rows, _ = tfidf_rows(texts)
    >>> shared_terms(rows, 0, 1, texts[0])
    ['attention', 'sparse', 'sparse attention']
    """
    # On the two rows' index slices: a row product of the 2^22-column matrix costs ~50 ms.
    (a, a_data), (b, b_data) = ((rows.indices[rows.indptr[r]:rows.indptr[r + 1]],
                                 rows.data[rows.indptr[r]:rows.indptr[r + 1]]) for r in (left, right))
    common, in_a, in_b = np.intersect1d(a, b, assume_unique=True, return_indices=True)
    weight = dict(zip(common.tolist(), (a_data[in_a] * b_data[in_b]).tolist()))
    forms = dict(term_forms(text_left, only=common))
    scored = sorted((-round(weight[column], 12), form) for column, form in forms.items())
    return [form for _, form in scored[:k]]
