"""Name normalization: canonical keys, span trimming and the generic-word filter.

Plain functions over strings, so they are tested (with hypothesis) without spaCy.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache

from paperkg.extract.nlp.markup import clean_name

#: Words that are never an entity on their own (the issue's list plus their near kin).
GENERIC_HEADS = frozenset(
    """
    method methods model models framework frameworks approach approaches network networks
    algorithm algorithms task tasks dataset datasets benchmark benchmarks technique techniques
    scheme schemes strategy strategies system systems paradigm paradigms architecture architectures
    module modules mechanism mechanisms pipeline pipelines procedure procedures process processes
    solution solutions tool tools problem problems setting settings performance result results
    experiment experiments analysis analyses work works baseline baselines variant variants
    design designs formulation formulations objective objectives idea ideas insight insights
    data corpus corpora suite suites metric metrics measure measures score scores component components
    application applications domain domains function functions loss losses version versions
    technology technologies system-level way ways challenge challenges issue issues property properties
    theory theories study studies evaluation evaluations improvement improvements
    image images text texts video videos sample samples example examples input inputs
    output outputs feature features label labels parameter parameters
    complexity robustness scalability efficiency effectiveness inference optimization
    training learning prediction predictions
    """.split()
)

#: Vague modifiers that are trimmed from the edges of a span ("a novel framework" -> "framework").
VAGUE_MODIFIERS = frozenset(
    """
    a an the this that these those our their its his her my your we us it they them
    novel new proposed existing prior previous standard conventional traditional typical
    state-of-the-art sota baseline various different several many multiple popular recent current
    simple efficient effective robust general generic classical modern strong powerful scalable
    unified first key main such other same both each all any some most more less few
    further additional original corresponding respective specific particular certain
    well-known widely-used commonly-used so-called overall entire whole given underlying
    real-world real synthetic public large-scale small-scale diverse extensive challenging
    """.split()
)

#: A span made only of these is empty of content ("our method", "the proposed approach").
_NON_CONTENT = GENERIC_HEADS | VAGUE_MODIFIERS | frozenset(
    "of for and or in on to with via by from as at is are be based using".split()
)

_DASHES = re.compile(r"[\u2010-\u2015\u2212\ufe58\ufe63\uff0d]")
_SEPARATORS = re.compile(r"[\s_\-/]+")
_LETTER_DIGIT = re.compile(r"(?<=[a-z]) (?=\d)")
# A match starts only where a whitespace run starts: tried from inside a run, "\\s*" rescanned the
# rest of the run at every position (80,000 spaces: 38 s); the leftmost match is the same.
_PARENTHETICAL = re.compile(r"(?<!\s)\s*\([^()]*\)")
_EDGE_PUNCT = ".,;:!?\"'`*()[]{}<>“”‘’«»"
#: Keys longer than this keep their first characters and a digest of the whole (:func:`bound_key`):
#: Neo4j indexes the key, and refuses an indexed value over ~8 KB for the whole load.
MAX_KEY_CHARS = 200
#: What :func:`bound_key` appends: a space, ``#`` and 16 hex digits (no rule of normalize_key
#: changes it, so a bounded key is its own key).
_DIGEST_TAIL = re.compile(r" #[0-9a-f]{16}\Z")
_TOKEN = re.compile(r"\S+")
_KEEP_S = ("ss", "us", "is", "ics", "as", "ous")
#: Words that end in "s" but are no plurals.
_NOT_PLURAL = frozenset("news series species lens bias gas chaos atlas canvas thesis basis axis ethics this its".split())
#: Trailing head words that add nothing to the name before them ("ImageNet dataset").
GENERIC_TAILS = frozenset(
    "method algorithm framework approach technique setting problem paradigm task dataset benchmark".split()
)

# British -> American spellings, as whole words: stems that take -ise/-isation, doubled -ll-,
# -our, -tre and a few single words.
_ISE_STEMS = (
    "optim normal regular general token quant parameter parametr visual summar character categor random minim "
    "maxim initial util recogn organ standard discret vector factor personal amort marginal binar linear special "
    "symmetr stabil central decentral local real synthes prior capital memor author digit custom harmon modern "
    "neutral penal polar popular serial steril emphas hypothes sanit critic crystall generali industrial "
    "anonym canonical contextual conceptual formal global internal legal lexical mobil monet neural operational "
    "optimal rational regional ritual tokenis vapor victim stylis"
).split()
_ISE_SUFFIXES = {"ise": "ize", "ises": "izes", "ised": "ized", "ising": "izing", "iser": "izer", "isers": "izers",
                 "isation": "ization", "isations": "izations", "isable": "izable"}
_LL_STEMS = "model label travel signal tunnel cancel channel level fuel funnel counsel jewel barrel shovel".split()
_OUR_STEMS = "behavi col neighb fav flav harb hon lab rum vap hum arm odor".split()
_WORDS = {
    "centre": "center", "centres": "centers", "centred": "centered", "fibre": "fiber", "metre": "meter",
    "litre": "liter", "theatre": "theater", "spectre": "specter", "analyse": "analyze", "analysed": "analyzed",
    "analysing": "analyzing", "catalyse": "catalyze", "paralyse": "paralyze", "grey": "gray",
    "programme": "program", "defence": "defense", "licence": "license", "offence": "offense",
    "catalogue": "catalog", "judgement": "judgment", "ageing": "aging", "artefact": "artifact",
    "artefacts": "artifacts", "aluminium": "aluminum", "manoeuvre": "maneuver", "sceptical": "skeptical",
}
for _stem in _ISE_STEMS:
    for _british, _american in _ISE_SUFFIXES.items():
        _WORDS.setdefault(_stem + _british, _stem + _american)
for _stem in _LL_STEMS:
    for _suffix in ("ed", "ing", "er", "ers"):
        _WORDS[_stem + "l" + _suffix] = _stem + _suffix
for _stem in _OUR_STEMS:
    for _suffix in ("our", "ours", "oured", "ouring", "oural"):
        _WORDS[_stem + _suffix] = _stem + _suffix.replace("our", "or", 1)


def singularize(word: str) -> str:
    """A light, idempotent English singular for one word of a name.

    >>> [singularize(w) for w in ["models", "policies", "classes", "llms", "ifs", "dynamics", "loss", "news"]]
    ['model', 'policy', 'class', 'llm', 'if', 'dynamics', 'loss', 'news']
    """
    if word in _NOT_PLURAL:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("sses"):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(_KEEP_S):
        return word[:-1]
    return word


def americanize(word: str) -> str:
    """The American spelling of a lower-case word (British -ise, -ll-, -our, -tre forms).

    >>> [americanize(w) for w in ["optimisation", "modelling", "behaviour", "centre", "supervised", "noise"]]
    ['optimization', 'modeling', 'behavior', 'center', 'supervised', 'noise']
    """
    return _WORDS.get(word, word)


def strip_parentheticals(name: str) -> str:
    """A name without its parenthesized parts.

    >>> strip_parentheticals("coordinate descent (CD)")
    'coordinate descent'
    """
    return _PARENTHETICAL.sub("", name)


def variant_key(key: str) -> str:
    """The key with spaces removed: keys that differ only in spacing or hyphens name one thing.

    >>> variant_key(normalize_key("Hotpot QA")) == variant_key(normalize_key("HotpotQA"))
    True
    >>> variant_key(normalize_key("pre-trained models")) == variant_key(normalize_key("pretrained model"))
    True
    """
    return key.replace(" ", "")


def generic_head(key: str) -> str | None:
    """The key without a trailing generic head word, or None when there is none to drop.

    >>> generic_head("imagenet dataset"), generic_head("reinforcement learning framework"), generic_head("mujoco")
    ('imagenet', 'reinforcement learning', None)
    >>> generic_head("benchmark") is None
    True
    """
    words = key.split(" ")
    if len(words) < 2 or words[-1] not in GENERIC_TAILS:
        return None
    head = " ".join(words[:-1])
    return None if is_generic(head) else head


@lru_cache(maxsize=1 << 16)  # pure, and asked for the same names across stages and abstracts
def normalize_key(name: str) -> str:
    """The canonical key of a name: case, hyphen, spacing, plural, spelling, markup and article
    variants unify.

    >>> normalize_key("Atari 100K") == normalize_key("Atari-100k")
    True
    >>> normalize_key("the Large Language Models")
    'large language model'
    >>> normalize_key("Soft Actor-Critic"), normalize_key("ResNet-50"), normalize_key("GPT 4")
    ('soft actor critic', 'resnet50', 'gpt4')
    >>> normalize_key("latent diffusion model") == normalize_key("diffusion model")
    False
    >>> normalize_key("Soft Actor-Critic (SAC)")
    'soft actor critic'
    >>> normalize_key("Markov Decision Processes"), normalize_key("graphs neural networks"), normalize_key("Optimisation")
    ('markov decision process', 'graph neural network', 'optimization')
    """
    return bound_key(_fixed_point(name))


def _fixed_point(text: str) -> str:
    # Each step can expose work for another ("00.S" -> "00." -> "00"), so run to a fixed point.
    while True:
        step = _normalize_once(text)
        if step == text:
            return step
        text = step


def bound_key(key: str) -> str:
    """``key`` when it has at most :data:`MAX_KEY_CHARS` characters, else its first ones (their
    own key) and 16 hex digits of BLAKE2b over the whole: distinct long names keep distinct keys,
    every index stays small, and the entity's name is kept in full beside it.

    >>> long = normalize_key("We propose " + "Zq" * 4500 + "Net")
    >>> len(long), long[:12], long == bound_key(long) == normalize_key(long)
    (218, 'we propose z', True)
    >>> long == normalize_key("We propose " + "Zq" * 4501 + "Net")
    False
    """
    if len(key) <= MAX_KEY_CHARS or (len(key) <= MAX_KEY_CHARS + 18 and _DIGEST_TAIL.search(key)):
        return key
    digest = hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{_fixed_point(key[:MAX_KEY_CHARS])} #{digest}"


def _normalize_once(name: str) -> str:
    # "Soft Actor-Critic (SAC)" names the same thing as "Soft Actor-Critic".
    text = _PARENTHETICAL.sub(" ", name) if _PARENTHETICAL.sub("", name).strip() else name
    text = unicodedata.normalize("NFKC", clean_name(text))
    text = _DASHES.sub("-", text)
    text = unicodedata.normalize("NFKC", text.casefold())
    text = _SEPARATORS.sub(" ", text).strip(" " + _EDGE_PUNCT)
    words = text.split(" ")
    while len(words) > 1 and words[0] in ("the", "a", "an"):
        words = words[1:]
    words = [singularize(americanize(word)) for word in words]
    text = " ".join(words)
    return _LETTER_DIGIT.sub("", text).strip(" " + _EDGE_PUNCT)


def is_generic(name: str) -> bool:
    """True when a name carries no content of its own: only generic words and vague modifiers.

    >>> is_generic("the proposed method"), is_generic("Framework"), is_generic("diffusion model")
    (True, True, False)
    """
    words = [w.strip(_EDGE_PUNCT) for w in _DASHES.sub("-", name).casefold().split()]
    words = [w for w in words if w]
    return not words or all(w in _NON_CONTENT for w in words)


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``text[start:end]`` past leading articles/vague words and edge punctuation.

    Trailing vague words stay (they are rare and "X et al." style tails are not entities anyway).

    >>> text = "We propose a novel framework, HarmonyDream."
    >>> s, e = trim_span(text, 11, 43); text[s:e]
    'novel framework, HarmonyDream'
    >>> s, e = trim_span(text, 30, 43); text[s:e]
    'HarmonyDream'
    >>> text = "the Soft Actor-Critic (SAC))."
    >>> s, e = trim_span(text, 0, len(text)); text[s:e]
    'Soft Actor-Critic (SAC)'
    """
    while start < end and (text[start].isspace() or text[start] in _EDGE_PUNCT):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _EDGE_PUNCT):
        closing = {")": "(", "]": "["}.get(text[end - 1])
        if closing and text.count(closing, start, end) >= text.count(text[end - 1], start, end):
            break  # balanced: "Soft Actor-Critic (SAC)" keeps its ")", "X)" loses it
        end -= 1
    while True:
        match = _TOKEN.match(text, start)
        if not match or match.end() >= end:
            break
        word = match.group().casefold()
        if word in ("a", "an", "the", "our", "their", "its", "this", "these", "those", "that"):
            start = match.end()
            while start < end and text[start].isspace():
                start += 1
            continue
        break
    return start, end


def strip_vague_prefix(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop leading vague modifiers ("novel", "proposed") but never the last word.

    >>> text = "the proposed novel contrastive learning algorithm"
    >>> s, e = strip_vague_prefix(text, 0, len(text)); text[s:e]
    'contrastive learning algorithm'
    """
    while True:
        match = _TOKEN.match(text, start)
        if not match or match.end() >= end:
            return start, end
        if match.group().casefold().strip(_EDGE_PUNCT) not in VAGUE_MODIFIERS:
            return start, end
        start = match.end()
        while start < end and text[start].isspace():
            start += 1
