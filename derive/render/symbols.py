"""Unicode text of the course into LaTeX and Markdown: the symbol table, and prose that mixes
words with formulas (`n_k/N · 1/n_k = 1/N, since n_k ≥ 1`)."""

from __future__ import annotations

import re

from derive.graph.notation import COMBINING_ACCENTS, GREEK_LATEX
from derive.render.layout import breakable

MATH = {
    **GREEK_LATEX, "Σ": r"\sum", "∇": r"\nabla", "ŷ": r"\hat{y}", "ḡ": r"\bar{g}", "∞": r"\infty",
    "⁻": "^{-}", "ᵗ": "^{t}", "√": r"\surd", "⁰": "^{0}", "¹": "^{1}", "⁴": "^{4}",
    "⁵": "^{5}", "⁶": "^{6}", "⁷": "^{7}", "⁸": "^{8}", "⁹": "^{9}", "·": r"\cdot",
    "×": r"\times", "−": "-",
    "≥": r"\geq", "≤": r"\leq", "≠": r"\neq", "≈": r"\approx", "∈": r"\in", "∓": r"\mp",
    "±": r"\pm", "‖": r"\|", "⇒": r"\Rightarrow", "→": r"\to", "…": r"\ldots", "ℝ": r"\mathbb{R}",
    "²": "^{2}", "³": "^{3}", "½": r"\tfrac{1}{2}", "∂": r"\partial",
    "✓": r"\checkmark", "✗": r"\times", "←": r"\leftarrow",
    "₀": "_{0}", "₁": "_{1}", "₂": "_{2}", "₃": "_{3}", "ₖ": "_{k}", "′": "'",
    "ᵀ": r"^{\top}", "⊙": r"\odot",
}
_TEXT_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&",
                 "#": r"\#", "%": r"\%", "~": r"\textasciitilde{}", "^": r"\^{}", "_": r"\_"}
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
ACCENTED = re.compile(r"(\w)([" + "".join(COMBINING_ACCENTS) + "])")
"""A letter written with a combining accent: x̂, g̃, x̄ (g + U+0303 has no precomposed form)."""


def accent_latex(m: re.Match) -> str:
    """An `ACCENTED` match in LaTeX math: g̃ → \\tilde{g}, θ̂ → \\hat{\\theta}."""
    return f"{COMBINING_ACCENTS[m.group(2)]}{{{MATH.get(m.group(1), m.group(1))}}}"


_MATHY = re.compile(r"[_^=<>+/|]|[" + "".join(MATH) + r"]|\d")


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


_SUP, _SUB = "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵗ", "₀₁₂₃₄₅₆₇₈₉ₖ"
_SUP_MAP = str.maketrans(_SUP, "0123456789-t")
_SUB_MAP = str.maketrans(_SUB, "0123456789k")
_GLUE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789})")


def _glued(before: str) -> bool:
    """Whether a word in a formula needs a space before it: after a letter, digit or closing
    brace, but not after a command such as \\cdot."""
    before = before.rstrip()
    return bool(before) and before[-1] in _GLUE and not re.search(r"\\[A-Za-z]+$", before)


def math_symbols(text: str) -> str:
    """A formula written with Unicode symbols, in LaTeX math."""
    names: list[str] = []

    def hold(m):  # identifiers such as state_bytes are code, kept out of the rules below
        if not is_identifier(m.group(0)):
            return m.group(0)
        names.append(m.group(0))
        return f"\x00{len(names) - 1}\x00"
    text = re.sub(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]*)+", hold, text)
    text = ACCENTED.sub(accent_latex, text)
    # a run of superscripts or subscripts is one exponent or index: 2³⁰ → 2^{30}
    text = re.sub(f"[{_SUP}]+", lambda m: "^{" + m.group(0).translate(_SUP_MAP) + "}", text)
    text = re.sub(f"[{_SUB}]+", lambda m: "_{" + m.group(0).translate(_SUB_MAP) + "}", text)
    out = []
    for ch in text:
        rep = MATH.get(ch)
        if rep is None:
            out.append(ch)
        else:
            # a command followed by a letter needs a space: \eta x, not \etax
            out.append(rep + (" " if rep[-1].isalpha() else ""))
    latex = "".join(out).replace("  ", " ").strip()
    # multi-letter subscripts are names: θ_old → \theta_{\mathrm{old}}
    latex = re.sub(r"\s*_([A-Za-z][A-Za-z0-9]+)", r"_{\\mathrm{\1}}", latex)
    # words inside a formula are text: clip(g) → \text{clip}(g), "with tokens" keeps its space
    latex = re.sub(r"(?<![\\A-Za-z{])([A-Za-z]{3,}(?: [A-Za-z]+)*)",
                   lambda m: ("\\ " if _glued(latex[:m.start()]) else "")
                   + rf"\text{{{m.group(1)}}}", latex)
    return re.sub("\x00(\\d+)\x00",
                  lambda m: r"\texttt{" + names[int(m.group(1))].replace("_", r"\_") + "}", latex)


def escape_text(text: str) -> str:
    """The course's plain words safe in LaTeX text mode (a formula symbol becomes inline math).
    An author's text goes through `derive.render.escape.escape_latex` instead."""
    out = []
    for n, piece in enumerate(re.split(r"(\w[" + "".join(COMBINING_ACCENTS) + "])", text)):
        if n % 2:
            out.append(f"${math_symbols(piece)}$")
            continue
        for ch in piece:
            if ch in _TEXT_SPECIAL:
                out.append(_TEXT_SPECIAL[ch])
            elif ch in MATH:
                out.append(f"${MATH[ch]}$")
            else:
                out.append(ch)
    return "".join(out)


_STRONG = re.compile(r"[_^=<>+/|]|[" + "".join(k for k in MATH if k not in "…") + r"]")
_WEAK = re.compile(r"^(?:[0-9]+|[b-zB-HJ-Z]|…)$")


def _split(token: str) -> tuple[str, str, str]:
    """(leading brackets, core, trailing punctuation): a bracket counts as punctuation only
    when the token does not close (or open) it itself."""
    lead = ""
    while token[len(lead):len(lead) + 1] in ("(", "[") and token[len(lead):] and \
            token.count(")" if token[len(lead)] == "(" else "]") < \
            token.count(token[len(lead)]):
        lead += token[len(lead)]
    end = len(token)
    while end > len(lead) and token[end - 1] in ",.;:)]":
        ch = token[end - 1]
        if ch in ")]":
            opener = "(" if ch == ")" else "["
            if token[:end].count(opener) >= token[:end].count(ch):
                break
        end -= 1
    return lead, token[len(lead):end], token[end:]


_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$")


def is_identifier(word: str) -> bool:
    """A name such as `mean_of_means` or `b_gradient` (code), not a formula such as `w_new`."""
    if re.match(r"^[A-Za-z][A-Za-z0-9_.]+_$", word):
        return True  # a method name such as unscale_ or clip_grad_norm_
    if not _IDENT.match(word):
        return False
    parts = word.split("_")
    return len(parts) >= 3 or any(len(p) >= 4 for p in parts)


def _kinds(words: list[str]) -> list[bool]:
    """Which words are formulas: those with a formula symbol, and numbers or single letters
    standing next to one."""
    strong = [bool(_STRONG.search(_split(w)[1])) and not _CJK.search(w)
              and not is_identifier(_split(w)[1]) for w in words]
    weak = [bool(_WEAK.match(_split(w)[1])) for w in words]
    out = list(strong)
    for i, w in enumerate(weak):
        if w and ((i > 0 and strong[i - 1]) or (i + 1 < len(words) and strong[i + 1])):
            out[i] = True
    return out


def _prose(text: str, math, plain, code) -> str:
    """Prose → output: `code spans` as code, formula runs as math, the rest as words."""
    pieces = re.split(r"`([^`]+)`", text)
    if len(pieces) > 1:
        out = []
        for n, piece in enumerate(pieces):
            if n % 2:
                out.append(code(piece))
            elif piece.strip():
                lead = " " if piece[:1].isspace() else ""
                tail = " " if piece[-1:].isspace() else ""
                out.append(lead + _prose(piece, math, plain, code) + tail)
            else:
                out.append(piece)
        return "".join(out)
    words = text.split()
    kinds = _kinds(words)
    out, group = [], []

    def flush():
        if group:
            lead, inner, trail = _split(" ".join(group))
            out.append(plain(lead) + math(math_symbols(inner)) + plain(trail))
            group.clear()

    for word, is_math in zip(words, kinds):
        if is_math:
            group.append(word)
        else:
            flush()
            lead, core, trail = _split(word)
            if is_identifier(core):
                out.append(plain(lead) + code(core) + plain(trail))
            else:
                out.append(plain(word))
    flush()
    return " ".join(out)


def prose_latex(text: str, cjk: bool = True) -> str:
    """Prose with formulas: formula runs in $…$, words escaped; without `cjk` (pdfLaTeX),
    runs of Chinese text are replaced by (…), which the Chinese export shows in full."""
    if not cjk:
        text = _CJK.sub("(…)", text)
    return _prose(text, lambda m: f"${m}$", lambda w: breakable(escape_text(w)),
                  lambda c: rf"\texttt{{{breakable(escape_text(c))}}}")


def prose_markdown(text: str) -> str:
    """Prose with formulas for Markdown + KaTeX: formula runs in $…$, words as they are."""
    return _prose(text, lambda m: f"${m}$", lambda w: w.replace("*", r"\*").replace("_", r"\_"),
                  lambda c: f"`{c}`")
