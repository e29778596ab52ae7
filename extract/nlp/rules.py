"""Cue rules as plain functions: name-likeness, proposal cues, roles and types from head words.

All functions take strings (a sentence and offsets into it), so they are tested without spaCy.
"""

from __future__ import annotations

import re
from functools import lru_cache

from paperkg.extract.nlp.normalize import GENERIC_HEADS, VAGUE_MODIFIERS

PROPOSAL_VERB = re.compile(
    r"\b(?:propose[sd]?|introduce[sd]?|present(?:s|ed)?|develop(?:s|ed)?|design(?:s|ed)?|"
    r"contribute[sd]?|put(?:s)? forward|devise[sd]?|formulate[sd]?|establish(?:es|ed)?|release[sd]?|"
    r"construct(?:s|ed)?|create[sd]?|build(?:s)?|curate[sd]?|collect(?:s|ed)?)\b",
    re.I,
)
PROPOSER = re.compile(r"\b(?:we|this (?:paper|work|study|article)|our (?:work|paper))\b", re.I)
NAMING_CUE = re.compile(r"\b(?:called|named|dubbed|termed|coined|entitled|namely)\s*$", re.I)
OWN_CUE = re.compile(r"\b(?:our|the proposed|our proposed|our new|our novel)\s+(?:[\w\-]+,?\s+){0,3}$", re.I)
# Words that end the object of "we propose ...": what follows them is not the new thing.
OBJECT_BOUNDARY = re.compile(
    r"\b(?:that|which|who|whose|to|by|based|using|via|with|on|from|where|while|through|of|"
    r"leveraging|utilizing|exploiting|inspired|built|upon|over|than|against|for|in|under|into|"
    r"and (?:show|demonstrate|prove|evaluate|apply|use|compare))\b|[;:]",
    re.I,
)
USE_CUE = re.compile(
    r"\b(?:we|our|us|experiment\w*|evaluat\w*|benchmark\w*|outperform\w*|compar\w*|using|use[sd]?|"
    r"based on|build\w* (?:on|upon)|appl(?:y|ies|ied)|leverag\w*|adopt\w*|train(?:ed|ing)? on|"
    r"fine-?tun\w*|achiev\w*|results?|demonstrat\w*|empirical\w*|test(?:ed|s)?|extend\w*|"
    r"surpass\w*|state-of-the-art|baselines?|datasets?|tasks?)\b",
    re.I,
)

_HEAD_TYPES: dict[str, str] = {}
for _word in "dataset datasets corpus corpora collection".split():
    _HEAD_TYPES[_word] = "Dataset"
for _word in "benchmark benchmarks suite bench leaderboard environment environments arena".split():
    _HEAD_TYPES[_word] = "Benchmark"
for _word in (
    "accuracy precision recall f1 f1-score auc auroc fid bleu rouge perplexity error rate score "
    "distance divergence regret psnr ssim lpips mse rmse mae iou map ece"
).split():
    _HEAD_TYPES[_word] = "Metric"
for _word in (
    "detection classification segmentation generation recognition prediction forecasting "
    "estimation translation answering retrieval summarization reasoning planning control "
    "localization tracking synthesis completion captioning parsing recommendation "
    "identification discovery imputation reconstruction extraction understanding "
    "navigation manipulation editing matching alignment verification"
).split():
    _HEAD_TYPES[_word] = "Task"

_NAME_TOKEN = re.compile(r"[^\s,;:()\[\]\"]+")
_CONNECTOR = {"of", "for", "and", "the", "with", "in", "on", "to", "via", "&"}
#: A coined name is never longer; bounding the look-ahead keeps every rule linear in the text.
_MAX_NAME_CHARS = 300
_AFTER_NAME = re.compile(r"\s*(?:[,(.:]|$)")
_FOLLOWING_WORD = re.compile(r"\s+([a-z][\w\-]*)")
_OWN_WORD = re.compile(r"\b(?:our|novel|new)\b", re.I)


def type_from_head(name: str) -> str | None:
    """The type a name's head word implies, or None when the head says nothing.

    >>> type_from_head("MLAgentBench suite"), type_from_head("online change point detection")
    ('Benchmark', 'Task')
    >>> type_from_head("Token-level Direct Preference Optimization") is None
    True
    """
    words = name.lower().replace("-", " ").split()
    if not words:
        return None
    head = words[-1].strip(".,;:()")
    if head in _HEAD_TYPES:
        return _HEAD_TYPES[head]
    if head.endswith("bench") and len(head) > 5:
        return "Benchmark"
    if len(words) >= 2 and words[-2] in ("success", "error", "win", "hit") and head == "rate":
        return "Metric"
    return None


@lru_cache(maxsize=1 << 16)  # pure, and asked per mention and per word by roles and confidence
def is_name_like(word: str) -> bool:
    """A coined name: mixed case inside the word, an acronym, or letters with digits or symbols.

    >>> [is_name_like(w) for w in ["HarmonyDream", "EE-LLM", "TDPO", "AbX", "νPI", "∞-Diff", "Transformer", "we"]]
    [True, True, True, True, True, True, False, False]
    """
    letters = [c for c in word if c.isalpha()]
    if len(letters) < 2:
        return False
    uppers = sum(c.isupper() for c in letters)
    if uppers >= 2:
        return True
    if uppers == 1 and not letters[0].isupper():
        return True  # lower-then-upper, e.g. "νPI" or "iPhone"
    return uppers >= 1 and any(c.isdigit() or (not c.isascii() and not c.isalpha()) for c in word)


def is_title_word(word: str) -> bool:
    return bool(word) and (word[0].isupper() or is_name_like(word))


def named_after(text: str, start: int) -> tuple[int, int] | None:
    """The coined name starting at ``start``: a name-like token or a Title Case run.

    >>> text = "a framework called Fusion Frames to"
    >>> s, e = named_after(text, 19); text[s:e]
    'Fusion Frames'
    >>> text = "we introduce EE-LLM, a framework"
    >>> s, e = named_after(text, 13); text[s:e]
    'EE-LLM'
    """
    tokens = list(_NAME_TOKEN.finditer(text, start, start + _MAX_NAME_CHARS))
    if not tokens or text[start:tokens[0].start()].strip(" *`\"'“"):
        return None
    first = tokens[0]
    word = first.group().strip("*`\"'“”.")
    if not word or not is_title_word(word) or word.lower() in VAGUE_MODIFIERS:
        return None
    end = first.start() + len(first.group().rstrip("*`\"'”."))
    # Extend across a Title Case run ("Invariant Nested View Transformer"), allowing "of"/"for".
    index = 1
    while index < len(tokens):
        token = tokens[index]
        gap = text[end : token.start()]
        if gap.strip():
            break
        raw = token.group()
        clean = raw.strip("*`\"'“”.")
        if clean.lower() in _CONNECTOR and index + 1 < len(tokens) and is_title_word(tokens[index + 1].group()):
            index += 1
            continue
        if not clean or not is_title_word(clean):
            break
        end = token.start() + len(raw.rstrip("*`\"'”."))
        index += 1
    return (first.start() + (len(first.group()) - len(first.group().lstrip("*`\"'“"))), end)


@lru_cache(maxsize=256)
def proposal_object_start(sentence: str) -> int | None:
    """Where the object of "we propose/introduce/present ..." starts in ``sentence``, or None.

    >>> s = "In this paper, we propose a novel approach, HarmonyDream, which adjusts weights."
    >>> s[proposal_object_start(s):][:20]
    ' a novel approach, H'
    >>> proposal_object_start("Prior work proposed X.") is None
    True
    """
    for verb in PROPOSAL_VERB.finditer(sentence):
        proposer = None
        # Only a proposer ending within 40 characters counts, so look no further back (linear).
        for proposer in PROPOSER.finditer(sentence, max(0, verb.start() - 80), verb.start()):
            pass
        if proposer is None or verb.start() - proposer.end() > 40:
            continue
        return verb.end()
    return None


def in_proposal_object(sentence: str, start: int) -> bool:
    """True when offset ``start`` lies in the object of the sentence's proposal verb.

    >>> s = "We propose LESR, a novel approach that utilizes LLM to generate code."
    >>> in_proposal_object(s, s.index("LESR")), in_proposal_object(s, s.index("LLM"))
    (True, False)
    >>> s = "We introduce RVI-SAC, an extension of Soft Actor-Critic (SAC), to the setting."
    >>> in_proposal_object(s, s.index("RVI")), in_proposal_object(s, s.index("Soft"))
    (True, False)
    """
    object_start = proposal_object_start(sentence)
    if object_start is None or start < object_start or start - object_start > 120:
        return False
    return not OBJECT_BOUNDARY.search(sentence[object_start:start])


def role_for(sentence: str, start: int, end: int, *, origin: str = "") -> str:
    """``proposed``, ``used`` or ``mentioned`` for the mention ``sentence[start:end]``.

    >>> s = "We evaluate on MuJoCo and outperform SAC."
    >>> role_for(s, 15, 21)
    'used'
    >>> role_for("Diffusion models have shown great promise.", 0, 16)
    'mentioned'
    >>> role_for("Our HarmonyDream improves results.", 4, 16)
    'proposed'
    """
    if origin == "proposal":
        return "proposed"
    if in_proposal_object(sentence, start):
        return "proposed"
    if OWN_CUE.search(sentence[max(0, start - 60) : start]):
        return "proposed"
    if NAMING_CUE.search(sentence[max(0, start - 12) : start]) and PROPOSER.search(sentence[:start]):
        return "proposed"
    if _has_use_cue(sentence):
        return "used"
    return "mentioned"


@lru_cache(maxsize=256)
def _has_use_cue(sentence: str) -> bool:
    # Asked once per mention, answered once per sentence: one long sentence stays linear.
    return bool(USE_CUE.search(sentence))


def proposal_spans(sentence: str) -> list[tuple[int, int]]:
    """Coined names the sentence proposes: after the proposal verb or a naming cue.

    >>> s = "To address this, we propose a simple yet effective approach, HarmonyDream, which adjusts."
    >>> [s[a:b] for a, b in proposal_spans(s)]
    ['HarmonyDream']
    >>> s = "We present EE-LLM, a framework for early-exit large language models (LLMs)."
    >>> [s[a:b] for a, b in proposal_spans(s)]
    ['EE-LLM']
    >>> s = "we propose a paradigm called Implicit Neural Teaching (INT) that treats"
    >>> [s[a:b] for a, b in proposal_spans(s)]
    ['INT', 'Implicit Neural Teaching']
    """
    spans: list[tuple[int, int]] = []
    object_start = proposal_object_start(sentence)
    if object_start is not None:
        boundary = OBJECT_BOUNDARY.search(sentence, object_start)
        stop = boundary.start() if boundary else len(sentence)
        lead = re.match(r"\s*(?:the\s+)?", sentence[object_start:])
        found = named_after(sentence, object_start + lead.end())
        if found and _AFTER_NAME.match(sentence, found[1]):
            spans.append(found)  # "we introduce the Hare & Tortoise, ..."
        for token in _NAME_TOKEN.finditer(sentence, object_start, stop):
            word = token.group().strip("*`\"'“”.")
            if is_name_like(word) and word.lower() not in GENERIC_HEADS:
                found = named_after(sentence, token.start())
                following = _FOLLOWING_WORD.match(sentence, found[1]) if found else None
                # "an LLM-assisted pipeline": a coined word used as a modifier is not the new thing.
                if found and found not in spans and not (following and following.group(1) not in GENERIC_HEADS):
                    spans.append(found)
                break
    proposer, own = PROPOSER.search(sentence), _OWN_WORD.search(sentence)
    for cue in re.finditer(r"\b(?:called|named|dubbed|termed|coined)\s+", sentence):
        # The first match in the sentence says whether any comes before the cue (one search, not one per cue).
        if not (proposer and proposer.end() <= cue.start()) and not (own and own.end() <= cue.start()):
            continue
        found = named_after(sentence, cue.end())
        if found and found not in spans:
            spans.append(found)
    return spans
