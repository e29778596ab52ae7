"""The candidate filter: trim cut boundaries, then reject what is not an entity.

Plain functions over strings. Each rule was measured on ``paperkg_train.jsonl`` (predicted
entities it removes that match gold vs. that do not); see ``extract/model/MODEL_CARD.md``.
A name the gazetteer knows is never rejected (the pipeline checks that before calling here).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

from paperkg.extract.nlp.markup import clean_name, widen_to_markup
from paperkg.extract.nlp.rules import is_name_like

#: Words that never end a name ("TENG-Euler and", "basis presents a") nor start one.
FUNCTION_WORDS = frozenset(
    """
    a an the of for and or nor but to in on at by with via from as into onto over under than then
    that which who whom whose this these those is are was were be been being has have had do does
    did can could may might must shall should will would it its their our we they them such
    while when where whereas if so both either neither each per versus vs without within upon
    """.split()
)
#: Verbs that end a cut span ("approximate maximum-weight basis presents").
_VERB_TAIL = frozenset(
    """
    presents present shows show achieves achieve enables enable improves improve uses use
    outperforms outperform provides provide allows allow requires require yields yield leads lead
    learns learn performs perform makes make remains remain results result reduces reduce
    generates generate captures capture produces produce exhibits exhibit offers offer
    suffers suffer fails fail relies rely depends depend replacing using leveraging
    achieving enabling improving providing based driven guided aware inspired
    """.split()
)
#: Lower-case heads that make a descriptive phrase, not a name ("3D data", "medical settings").
DESCRIPTIVE_HEADS = frozenset(
    """
    data setting settings environment environments scenario scenarios condition conditions
    manner way ways regime regimes case cases situation situations fashion
    level levels stage stages aspect aspects factor factors type types kind kinds form forms
    capability capabilities ability abilities
    behavior behaviors behaviour behaviours component components part parts
    knowledge world instance instances sample samples side
    """.split()
)
#: "X-based" and kin: only X is the mention (the guideline's span rule).
_MODIFIER_SUFFIX = re.compile(r"-(?:based|driven|guided|aware|inspired|generated|powered|assisted|like|style)$", re.I)
_WORD = re.compile(r"\S+")
_LETTER_RUN = re.compile(r"[^\W\d_]{2,}")
_CODE_NAME = re.compile(r"[A-Z][A-Za-z0-9\-]+")  # "S3", "M3G": letters and digits, no math
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_URL = re.compile(r"(?:https?://|www\.)\S+|\S*github\.com/\S+")


def _words(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text, start, end)]


def _bare(word: str) -> str:
    """The word as compared with the word lists; an acronym ("IT", "HAVE") matches none."""
    word = word.strip(".,;:!?\"'`“”")
    return word if len(word) > 1 and word.isupper() else word.casefold()


def balanced(name: str) -> bool:
    """True when every bracket in ``name`` is closed in order.

    >>> balanced("Soft Actor-Critic (SAC)"), balanced("Semi-dual JKO (S-JKO"), balanced("a ) b (")
    (True, False, False)
    """
    stack: list[str] = []
    for char in name:
        if char in _BRACKETS:
            stack.append(_BRACKETS[char])
        elif char in _BRACKETS.values():
            if not stack or stack.pop() != char:
                return False
    return not stack


def on_raw_text(text: str, rows: Iterable[tuple]) -> tuple[tuple, ...]:
    """Mention rows found on the masked abstract, made right for the raw ``text``: each span
    widened over markup it cuts (:func:`~paperkg.extract.nlp.markup.widen_to_markup`), and rows
    dropped whose raw name leaves a bracket unclosed (the filter read masked text; LaTeX can
    still leave one). The client applies this before the extraction store, which has the text.

    >>> text = r"This paper introduces $\\infty$-Diff, a model of $(x$ and y"
    >>> rows = [(29, 35, "Method", "proposed"), (49, 51, "Method", "used")]
    >>> [text[row[0] : row[1]] for row in on_raw_text(text, rows)]
    ['$\\\\infty$-Diff']
    """
    widened = ((*widen_to_markup(text, row[0], row[1]), *row[2:]) for row in rows)
    return tuple(row for row in widened if balanced(clean_name(text[row[0] : row[1]])))


def trim_candidate(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``text[start:end]`` past cut boundaries: function words and verbs at the edges,
    an unclosed bracket and what follows it, and an "-based"-style suffix.

    >>> text = "TENG-Euler and approximate maximum-weight basis presents a Semi-dual JKO (S-JKO"
    >>> [text[a:b] for a, b in (trim_candidate(text, 0, 14), trim_candidate(text, 15, 58), trim_candidate(text, 59, 79))]
    ['TENG-Euler', 'approximate maximum-weight basis', 'Semi-dual JKO']
    >>> text = "code: https://github.com/pan-x-c/EE-LLM"
    >>> s, e = trim_candidate(text, 6, len(text)); text[s:e]
    'EE-LLM'
    >>> text = "a GNN-based model"
    >>> s, e = trim_candidate(text, 2, 11); text[s:e]
    'GNN'
    """
    # A code URL names the entity in its last path segment ("github.com/pan-x-c/EE-LLM").
    url = _URL.match(text, start, end)
    if url:
        segment = text[start:end].rstrip("/")
        last = segment.rsplit("/", 1)[-1]
        last = last[:-4] if last.endswith(".git") else last
        if last:
            start = start + segment.rfind("/") + 1
            end = start + len(last)
        return start, end
    # An unclosed bracket: cut before it ("JKO (S-JKO" -> "JKO"), or after a stray closer.
    segment = text[start:end]
    if not balanced(segment):
        opening = max(segment.rfind(c) for c in _BRACKETS)
        closing = max(segment.rfind(c) for c in _BRACKETS.values())
        if opening > closing and text[start : start + opening].strip():
            end = start + len(segment[:opening].rstrip())
        elif closing >= 0 and not balanced(segment[: closing + 1]):
            start = start + closing + 1
    changed = True
    while changed:
        changed = False
        words = _words(text, start, end)
        if len(words) > 1 and (_bare(text[slice(*words[-1])]) in FUNCTION_WORDS | _VERB_TAIL):
            end = words[-2][1]
            changed = True
        elif len(words) > 1 and _bare(text[slice(*words[0])]) in FUNCTION_WORDS:
            start = words[1][0]
            changed = True
    while end > start and text[end - 1] in ".,;:":
        end -= 1
    match = _MODIFIER_SUFFIX.search(text, start, end)
    if match and match.end() == end and match.start() > start and is_name_like(text[start : match.start()].split()[-1]):
        end = match.start()  # "GNN-based" -> "GNN"; "model-based" stays
    return start, end


#: Field names the guideline never annotates on their own.
_FIELD_NAMES = frozenset({"machine learning"})


#: Names that are never an entity, whatever list holds them: modifiers on their own (the noun
#: phrase they modify decides: "zero-shot classification", not "zero-shot"), hardware, vendors
#: and code hosts, venues from citations, file formats, and LaTeX residue ("dot" from ``\ldots``). The train
#: gold annotates none of them as a name.
NON_ENTITY_NAMES = frozenset(
    """
    zero-shot few-shot one-shot many-shot out-of-distribution in-distribution self-supervised semi-supervised
    weakly-supervised multi-agent single-agent vision-language fine-grained coarse-grained multimodal
    multi-modal cross-modal cross-lingual multilingual large-scale long-tailed open-vocabulary training-free
    data-driven task-agnostic model-agnostic
    cpu cpus gpu gpus tpu tpus nvidia intel amd github gitlab a100 h100 v100 cuda
    soda neurips icml iclr cvpr iccv eccv acl emnlp naacl aaai ijcai kdd stoc focs colt arxiv
    corl uai aistats icra iros wacv coling sigir wsdm miccai interspeech icassp
    csv tsv json jsonl xml pdf html
    dot dots ldots cdots cdot
    """.split()
)


#: A web address as abstracts give code and data ("https://github.com/x/RethinkTinyLM"): the
#: repository and account names in it are no mentions.
_URL = re.compile(r"(?:https?://|www\.)[^\s)\]}>,;]+|\b(?:github|gitlab|huggingface|bitbucket)\.(?:com|co|io|org)/[^\s)\]}>,;]+", re.I)


def outside_urls(text: str, candidates: list[tuple]) -> list[tuple]:
    """The candidates ``(start, end, ...)`` that overlap no web address of ``text``.

    >>> text = "Code: https://github.com/lab/RethinkTinyLM. We use SAC."
    >>> [text[c[0]:c[1]] for c in outside_urls(text, [(29, 42, "Method"), (51, 54, "Method")])]
    ['SAC']
    """
    urls = [m.span() for m in _URL.finditer(text)]
    if not urls:
        return candidates
    starts = [start for start, _ in urls]
    kept = []
    for candidate in candidates:
        index = bisect_right(starts, candidate[1] - 1) - 1
        if index < 0 or urls[index][1] <= candidate[0]:
            kept.append(candidate)
    return kept


def is_non_entity(name: str) -> bool:
    """True for a name of :data:`NON_ENTITY_NAMES` (case, spaces and hyphens aside).

    >>> [is_non_entity(n) for n in ["zero-shot", "Zero shot", "NVIDIA", "dot", "zero-shot learning", "GPT-4"]]
    [True, True, True, True, False, False]
    """
    return "-".join(name.casefold().replace("-", " ").split()) in NON_ENTITY_NAMES


def reject_reason(name: str) -> str | None:
    """Why ``name`` is not an entity, or None when it may be one.

    >>> [reject_reason(n) for n in ["harnessing uncertainty", "medical and environmental settings",
    ...  "unsupervised manner", "graph data", "O(ε-1/2)", "TENG-Euler and", "JKO (S-JKO", "Machine learning"]]
    ['descriptive', 'descriptive head', 'descriptive head', 'descriptive head', 'no word', 'function word', 'unbalanced', 'field']
    >>> [reject_reason(n) for n in ["contrastive learning", "ImageNet data", "Soft Actor-Critic (SAC)", "∞-Diff"]]
    [None, None, None, None]
    """
    words = name.split()
    if not words or not (_LETTER_RUN.search(name) or _CODE_NAME.fullmatch(name)):
        return "no word"
    if not balanced(name):
        return "unbalanced"
    bare = [_bare(w) for w in words]
    if bare[-1] in FUNCTION_WORDS or bare[0] in FUNCTION_WORDS or bare[-1] in _VERB_TAIL:
        return "function word"
    if " ".join(bare).casefold() in _FIELD_NAMES:
        return "field"
    lower = name == name.lower()
    if lower and len(words) > 1 and bare[-1] in DESCRIPTIVE_HEADS:
        return "descriptive head"
    if lower and len(words) > 2 and any(b in ("and", "or") for b in bare[1:-1]):
        return "coordination"
    if lower and len(words) > 1 and bare[0] in _DESCRIPTIVE_GERUNDS:
        return "descriptive"
    if lower and len(words) > 5:
        return "too long"
    return None


#: Gerunds that open a description, not a name ("harnessing uncertainty").
_DESCRIPTIVE_GERUNDS = frozenset(
    """
    harnessing leveraging using utilizing exploiting analyzing analysing ensuring shifting aligning
    improving enhancing achieving enabling addressing providing capturing reducing incorporating
    integrating mitigating allowing making combining exploring understanding studying
    investigating evaluating applying bridging overcoming tackling handling obtaining
    """.split()
)
