"""Markup (LaTeX, markdown, HTML) in abstracts: blanked for reading, removed from names.

The NLP pipeline reads the masked text (:func:`mask_markup`), so every offset it yields still
indexes the abstract exactly as read: markup characters become spaces instead of being
deleted. Entity names are written without markup (:func:`clean_name`).
"""

from __future__ import annotations

import re
from functools import lru_cache

# Inline and display math stop at the next opener too: a scan from each of 20,000 "\\(" to the
# end of the text was quadratic (6 s at 40k characters).
_MATH = re.compile(r"\$\$.+?\$\$|\$[^$\n]{1,300}?\$|\\\((?:(?!\\[()]).)+?\\\)|\\\[(?:(?!\\[\[\]]).)+?\\\]", re.S)
# \textit{X} and friends keep X; the command and the braces go.
_LATEX_WRAPPER = re.compile(r"\\(?:text(?:it|bf|tt|sc|rm|sf)?|emph|mathrm|mathbf|mathcal|mathit|url|href)\s*\{([^{}]*)\}")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]{0,200})?/?>")
_MARKDOWN = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])|`+|(?m:^#+ )")
_TEX_QUOTES = re.compile(r"``|''|\\(?=[%&#])")
_MATH_SYNTAX = re.compile(r"[$^_{}\\]")
_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
    "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ",
    "Omega": "Ω", "infty": "∞", "ell": "ℓ", "times": "×", "star": "*", "dagger": "†", "pm": "±",
}
_COMMAND_NAME = re.compile(r"\\([A-Za-z]+)\*?\s*")
_SPACES = re.compile(r"\s+")


def _blank(match: re.Match) -> str:
    return " " * (match.end() - match.start())


def _blank_wrapper(match: re.Match) -> str:
    inner_start = match.start(1) - match.start()
    inner = match.group(1)
    whole = match.group(0)
    return " " * inner_start + inner + " " * (len(whole) - inner_start - len(inner))


def _mask_math(match: re.Match) -> str:
    # Math often holds a name or part of one ("$\\textit{DAEFR}$", "$G$-CNN", "$\\infty$-Diff"):
    # its clean content stays, pushed against the word it is glued to, the rest is blanked.
    whole, content = match.group(0), _clean_math(match)
    after = match.string[match.end() : match.end() + 1]
    if after and (after.isalnum() or after == "-"):
        return content.rjust(len(whole))
    return content.ljust(len(whole))


def mask_markup(text: str) -> str:
    """Replace markup with spaces, keeping the length and every other character in place.

    >>> mask_markup("we propose **FedBAT** in <b>X</b>")
    'we propose   FedBAT   in    X    '
    >>> len(mask_markup("a $x$ b")) == len("a $x$ b")
    True
    >>> mask_markup(r"named $\\textit{DAEFR}$, $G$-CNN, $\\infty$-Diff, EI$^2$ and")
    'named DAEFR           ,   G-CNN,        ∞-Diff, EI2    and'
    """
    masked = _MATH.sub(_mask_math, text)
    masked = _LATEX_WRAPPER.sub(_blank_wrapper, masked)
    masked = _LATEX_COMMAND.sub(_blank, masked)
    masked = _HTML_TAG.sub(_blank, masked)
    masked = _MARKDOWN.sub(_blank, masked)
    masked = _TEX_QUOTES.sub(_blank, masked)
    return masked


def _clean_math(match: re.Match) -> str:
    # Spaces in math are layout ("$3 \\mathrm{D}$" is 3D); in a \\text{...} wrapper they are words.
    inner, out, last = match.group(0), [], 0
    for wrapped in _LATEX_WRAPPER.finditer(inner):
        out.append(_bare_math(inner[last : wrapped.start()]))
        out.append(wrapped.group(1))
        last = wrapped.end()
    out.append(_bare_math(inner[last:]))
    return "".join(out)


def _bare_math(text: str) -> str:
    text = _COMMAND_NAME.sub(lambda m: _SYMBOLS.get(m.group(1), ""), text)
    text = _MATH_SYNTAX.sub("", text)
    # A long "math" segment is usually prose between two stray dollar signs: keep its spaces.
    return _SPACES.sub("", text) if len(text) <= 24 else text


# Cached: an abstract repeats its names, and hostile input repeats one name thousands of times.
@lru_cache(maxsize=8192)
def clean_name(surface: str) -> str:
    """A mention's text without markup, for entity names and keys (offsets keep the raw text).

    >>> clean_name("M**etamorphic **Agg**regation")
    'Metamorphic Aggregation'
    >>> clean_name(r"$\\infty$-Diff"), clean_name(r"$\\textit{Dynamic Prompt Learning}$"), clean_name("$G$-CNNs")
    ('∞-Diff', 'Dynamic Prompt Learning', 'G-CNNs')
    >>> clean_name(r"\\textbf{H}omogeneous \\textbf{M}arkov"), clean_name("<i>FedBAT</i>"), clean_name(r"DFO($\\lambda$)")
    ('Homogeneous Markov', 'FedBAT', 'DFO(λ)')
    """
    text = _MATH.sub(_clean_math, surface)
    text = _LATEX_WRAPPER.sub(lambda m: m.group(1), text)
    text = _COMMAND_NAME.sub(lambda m: _SYMBOLS.get(m.group(1), ""), text)
    text = _HTML_TAG.sub("", text)
    text = _MARKDOWN.sub("", text)
    text = _TEX_QUOTES.sub("", text).replace("$", "")
    return _SPACES.sub(" ", text).strip()


def widen_to_markup(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen ``text[start:end]`` so that it never starts or ends inside a math segment or a
    LaTeX wrapper: a name read from masked math ("∞-Diff") then spans its whole markup.

    >>> text = r"This paper introduces $\\infty$-Diff, a model"
    >>> s, e = widen_to_markup(text, 29, 35); text[s:e]
    '$\\\\infty$-Diff'
    """
    for pattern in (_MATH, _LATEX_WRAPPER):
        for match in pattern.finditer(text, max(0, start - 300), min(len(text), end + 300)):
            if match.end() - match.start() > 40:
                continue  # long "math" is prose between stray dollar signs, not part of a name
            if match.start() < start < match.end() or (match.start() < end < match.end()):
                if match.start() < end and start < match.end():
                    start, end = min(start, match.start()), max(end, match.end())
    return start, end
