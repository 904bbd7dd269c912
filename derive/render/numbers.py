"""How every output shows a number: one settings object (`Style`) and the functions every
renderer calls. Nothing else in derive decides digits, decimals, fractions or brackets.

The rules, from `STYLE`:

- An exact value is shown as an integer, as a decimal when a rational's decimal ends within
  `terminating` places (1.2, 0.72), as a fraction otherwise (\\frac{14}{3}), and as SymPy's
  closed form for an irrational value (\\sqrt{2}). A closed form longer than `large`
  characters (Adam's nested surds) is shown by its decimal, marked ≈.
- After ≈, every value is rounded half away from zero to `places` digits after the point
  (4.666667, √2 ≈ 1.414214), its digits certified for an irrational value; an irrational
  value of 10^15 or more in scientific notation whose mantissa has at most `places` places
  (1.414214 \\times 10^{30}).
- A decimal column (answer keys, `check` reports, JSON) is good to `significant` significant
  digits: exact when the decimal ends within them, else rounded half away from zero.
- Lists are bracketed, nested lists keep every level: [1, [2, 3]].
- A tensor (a given or a quantity of the tensor language) is a matrix in LaTeX: a matrix
  \\begin{bmatrix} a & b \\\\ c & d \\end{bmatrix}, a vector a column, as the course writes
  x = (2, 1)ᵀ and W x (torch's 1-D tensor, added to every row of a batch as a bias is); more
  than two dimensions a bracketed list of matrices. Its numbers are shown as any number is.

Each document states the rule it uses once (`rounding_rule`, `key_rounding_rule`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from derive import limits
from derive.exercises.check import quantity_key
from derive.exercises.errors import ExerciseNotSupported
from derive.exercises.reader import Written
from derive.kernel.dag import tree_size
from derive.kernel.exact import (
    MAX_TEXT_DIGITS,
    certified_parts,
    decimal_str,
    exact_str,
    fixed_str,
    scientific_str,
    terminating_places,
    to_expr,
)
from derive.kernel.reader import NotWritable, reader_latex, reader_text
from derive.render.labels import words


@dataclass(frozen=True)
class Style:
    """The settings of number display (one object; documents state the rule from it)."""

    places: int = 6
    """Digits after the point of a rational's decimal after ≈ (the course prints 4.666667)."""
    terminating: int = 6
    """A rational whose decimal ends within this many places is shown as that decimal (exact);
    otherwise as a fraction."""
    significant: int = 15
    """Significant digits of a decimal column (keys, reports, JSON)."""
    large: int = 60
    """A closed form longer than this (as text) is shown by its decimal."""
    readable: int = 6
    """A fraction with more digits than this above or below is shown to students by its
    decimal only (`readable_latex`)."""
    scientific: int = 15
    """From 10 to this power on, a decimal after ≈ is written in scientific notation."""
    brackets: tuple[str, str] = ("[", "]")
    """A list in text, every level of a nested list."""
    latex_brackets: tuple[str, str] = (r"\left[", r"\right]")
    """A list in LaTeX."""


STYLE = Style()
"""The settings every output uses."""


def _is_list(value) -> bool:
    return isinstance(value, (list, tuple))


# ------------------------------------------------------------------------------ the bound

def _digits(value) -> int:
    """About how many digits the longest integer of an exact value has (numerator or
    denominator; estimated from bit lengths, never converted). A closed form too long to show
    (`is_large`) is shown by its decimal and counts 0."""
    if _is_list(value):
        return max((_digits(v) for v in value), default=0)
    e = to_expr(value)
    if e.is_Rational:
        return int(max(int(e.p).bit_length(), int(e.q).bit_length()) * 0.30103)
    if tree_size(e, STYLE.large) > STYLE.large:
        return 0
    return max((_digits(a) for a in e.atoms(sp.Rational)), default=0)


def writable(report):
    """The report, when every exact value it shows (its quantities, its claims' expected
    values) has at most MAX_TEXT_DIGITS digits; else ExerciseNotSupported naming the file, the
    exercise, the quantity and the bound. One rule for every format (text, md, tex, html,
    JSON), checked before anything is written."""
    ex = report.exercise
    shown = [(quantity_key(ex, name), v) for name, v in report.values.items()]
    shown += [(f"claims.{c.name}", c.expected) for c in report.claims
              if c.expected is not None and c.name not in report.values]
    for key, v in shown:
        digits = _digits(v)
        if digits > MAX_TEXT_DIGITS:
            raise ExerciseNotSupported(
                ex.path, ex.id, key, f"its exact value has about {digits:,} digits, past the "
                f"{MAX_TEXT_DIGITS:,} digits derive writes in any format",
                "give fewer steps or smaller givens (`derive check` still checks its claims)")
    return report


# ------------------------------------------------------------------------------------ text

def exact_text(value, budget=None) -> object:
    """`"5"`, `"-14/3"` (an irrational value in SymPy's form: the JSON's machine field), or a
    (nested) list of them; with `budget` (a `derive.kernel.dag.TextBudget`) every text is
    charged to it."""
    if _is_list(value):
        return [exact_text(v, budget) for v in value]
    return exact_str(value, budget)


def reader_value(value) -> object:
    """An exact value as a reader of the course writes it, or a (nested) list of them: a
    rational as `exact_text` writes it (-14/3, what a claim may write), a closed form in the
    reader form of derive/graph/reader.py (√2/2, e^(1/2)/(…) − 1); None for a closed form the
    reader form cannot write (then only its decimal is shown). Bounded values only: `flat`
    asks first whether the value is too long to show."""
    if _is_list(value):
        return [reader_value(v) for v in value]
    e = to_expr(value)
    if e.is_Rational:
        return exact_str(e)
    try:
        return reader_text(e)
    except NotWritable:
        return None


def decimal_text(value, style: Style = STYLE) -> object:
    """A decimal good to `style.significant` significant digits, or a (nested) list of them."""
    if _is_list(value):
        return [decimal_text(v, style) for v in value]
    return decimal_str(value, style.significant)


def bracketed(texts, style: Style = STYLE) -> str:
    """Nested lists of strings as one line: [a, [b, c]]."""
    if _is_list(texts):
        left, right = style.brackets
        return left + ", ".join(bracketed(t, style) for t in texts) + right
    return texts


def decimal_line(value, style: Style = STYLE) -> str:
    """A value's decimal on one line (a list bracketed): the decimal column of a key."""
    return bracketed(decimal_text(value, style), style)


def is_large(value, style: Style = STYLE) -> bool:
    """Whether a closed form is too long to show (then its decimal is shown, after ≈)."""
    if _is_list(value):
        return any(is_large(v, style) for v in value)

    e = to_expr(value)
    if e.is_Rational:
        return False
    if tree_size(e, style.large) > style.large:  # never printed to find out: a DAG of steps
        return True
    return len(sp.sstr(e)) > style.large


def flat(value, style: Style = STYLE) -> str:
    """One line of text: exact in the reader form (`reader_value`), with its decimal when the
    two differ; only the decimal, after ≈, for a long closed form, and for a value with more
    than `limits.SHOWN_DIGITS` digits (with its digit count: never 4,000 digits on a line)."""
    d = decimal_line(value, style)
    if is_large(value, style):
        return f"≈ {d}"
    if (digits := _digits(value)) > MAX_TEXT_DIGITS:
        return f"≈ {d} (exact: about {digits:,} digits, past the {MAX_TEXT_DIGITS:,} written)"
    if digits > limits.SHOWN_DIGITS:  # its decimal in scientific notation: no long run of digits
        short = bracketed(_scientific(value, style), style)
        return f"≈ {short} (exact: about {digits:,} digits, in --format json)"
    shown = reader_value(value)
    if _has_none(shown):
        return f"≈ {d}"
    e = bracketed(shown, style)
    return e if e == d else f"{e} ≈ {d}"


def _scientific(value, style: Style) -> object:
    """The decimal of each value with more than `limits.SHOWN_DIGITS` digits in scientific
    notation (its certified leading digits), the others' as `decimal_text` writes them."""
    if _is_list(value):
        return [_scientific(v, style) for v in value]
    if _digits(value) <= limits.SHOWN_DIGITS:
        return decimal_str(value, style.significant)
    return scientific_str(*certified_parts(to_expr(value), style.significant))


def _has_none(texts) -> bool:
    return any(_has_none(t) for t in texts) if _is_list(texts) else texts is None


def rounded_text(value, style: Style = STYLE) -> str:
    """A rational's decimal: exact when it ends within `style.terminating` places, else rounded
    half away from zero to `style.places` places."""
    v = sp.Rational(value)
    places = terminating_places(v)
    if places is not None and places <= style.terminating:
        return fixed_str(v, places)
    return fixed_str(v, style.places)


def places_decimal(value, style: Style = STYLE) -> str:
    """The decimal of an exact real value after ≈: rounded half away from zero to
    `style.places` digits after the point (fewer when an irrational value is too near a tie to
    certify them); an irrational value of 10^`style.scientific` or more, or one that would
    round to 0 (exp(-60)), in scientific notation whose mantissa has at most `style.places`
    places."""
    e = to_expr(value)
    if e.is_Rational:
        return fixed_str(e, style.places)
    m, x = certified_parts(e, 3)
    exponent = x + len(str(abs(m))) - 1
    if m == 0:
        return fixed_str(sp.Integer(0), style.places)
    if exponent >= style.scientific or exponent + 1 + style.places < 1:  # huge, or 0 at 6 places
        return scientific_str(*certified_parts(e, style.places + 1))
    m, x = certified_parts(e, exponent + 1 + style.places)
    return str(m * 10**x) if x >= 0 else fixed_str(sp.Rational(m, 10**-x), -x)


def approx_decimal(value, style: Style = STYLE) -> str | None:
    """The decimal shown after ≈ (`places_decimal`), or None when the exact value is already
    a short decimal."""
    e = to_expr(value)
    if e.is_Rational:
        places = terminating_places(e)
        if places is not None and places <= style.terminating:
            return None
    return places_decimal(e, style)


# ----------------------------------------------------------------------------------- LaTeX

def number_latex(value, decimals: bool = True, style: Style = STYLE) -> str:
    """One exact number in LaTeX: an integer, a terminating decimal (when `decimals`), a
    fraction (-\\frac{14}{3}), or a closed form in the reader form (derive/graph/reader.py:
    \\frac{e^{1/2}}{e^{-5/4} + e^{1/2} + e^{2}} - 1; SymPy's LaTeX only for a function the
    reader form has no writing for)."""
    v = to_expr(value)
    if v.is_Integer:
        return str(int(v))
    if v.is_Rational:
        places = terminating_places(v)
        if decimals and places is not None and places <= style.terminating:
            return fixed_str(v, places)
        return ("-" if v < 0 else "") + rf"\frac{{{abs(v.p)}}}{{{v.q}}}"
    try:
        return reader_latex(v)
    except NotWritable:
        return sp.latex(v)


def latex_decimal(text: str) -> str:
    """A decimal from decimal_str in LaTeX: `1.142e26` as `1.142 \\times 10^{26}`."""
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    return rf"{mantissa} \times 10^{{{exponent}}}"


_WRITTEN = re.compile(r"([+-]?)(\d+(?:\.\d+)?|\.\d+)(?:[eE]([+-]?\d{1,4}))?")
"""A number as an author writes it in a file: a decimal, in e-notation or not."""


def written_latex(text: str, value) -> str:
    """A given number in LaTeX as the author wrote it, where `text` is exactly `value`: a
    decimal by its digits (1.6689308125, not 26702893/16000000); e-notation as a power of ten,
    1e-8 as 10^{-8} and 2.5e-3 as 2.5 \\times 10^{-3}. Anything else (1/3, a text that is not
    `value`) is the exact value (`exact_latex`)."""
    m, e = _WRITTEN.fullmatch(text.strip()), to_expr(value)
    if m is None or not e.is_Rational or Fraction(m.group(0)) != Fraction(int(e.p), int(e.q)):
        return exact_latex(value)
    sign, mantissa, exponent = "-" if m.group(1) == "-" else "", m.group(2), m.group(3)
    mantissa = "0" + mantissa if mantissa.startswith(".") else mantissa
    if exponent is None:
        return sign + mantissa
    power = f"10^{{{int(exponent)}}}"
    return sign + (power if Fraction(mantissa) == 1 else rf"{mantissa} \times {power}")


def _latex_list(parts, style: Style) -> str:
    left, right = style.latex_brackets
    return left + ", ".join(parts) + right


def given_latex(raw, value, style: Style = STYLE) -> str:
    """A given value (a number or nested lists) in LaTeX, each number as the file writes it
    (`written_latex`) where the file's entry `raw` has the value's shape; otherwise exact."""
    if isinstance(raw, Written):
        return written_latex(raw.text, value)
    if isinstance(raw, dict) and "rows" in raw:  # records = { columns = […], rows = […] }
        raw = raw["rows"]
    if _is_list(raw) and _is_list(value) and len(raw) == len(value):
        return _latex_list([given_latex(r, v, style) for r, v in zip(raw, value)], style)
    return exact_latex(value, style)


def matrix_latex(texts) -> str:
    """Nested lists of LaTeX numbers as a matrix: a list of rows a bmatrix, a list of
    numbers a column (the course's x = (2, 1)ᵀ), deeper a bracketed list of matrices."""
    if not _is_list(texts) or not texts:
        return str(texts)
    if not any(_is_list(t) for t in texts):
        return r"\begin{bmatrix} " + r" \\ ".join(texts) + r" \end{bmatrix}"
    if all(_is_list(t) and t and not any(_is_list(x) for x in t) for t in texts):
        rows = (" & ".join(row) for row in texts)
        return r"\begin{bmatrix} " + r" \\ ".join(rows) + r" \end{bmatrix}"
    return _latex_list([matrix_latex(t) for t in texts], STYLE)


def _nested(fn, value):
    return [_nested(fn, v) for v in value] if _is_list(value) else fn(value)


def _leaves(value) -> list:
    return [x for v in value for x in _leaves(v)] if _is_list(value) else [value]


def given_matrix_latex(raw, value, style: Style = STYLE) -> str:
    """A tensor given as a matrix (a vector a column), each number as the file writes it."""
    if _is_list(raw) and _is_list(value) and len(raw) == len(value):
        def texts(r, v):
            if _is_list(r) and _is_list(v) and len(r) == len(v):
                return [texts(a, b) for a, b in zip(r, v)]
            return given_latex(r, v, style)
        return matrix_latex(texts(raw, value))
    return exact_matrix_latex(value, style)


def exact_matrix_latex(value, style: Style = STYLE) -> str:
    """A tensor's exact value as a matrix (an answer key's exact column): `exact_latex` of
    each entry, a large closed form by its decimal after ≈."""
    return matrix_latex(_nested(lambda v: exact_latex(v, style), value))


def tensor_result_latex(value, style: Style = STYLE) -> str:
    """A tensor's value as a derivation shows it, one matrix per form: the exact matrix when
    every entry is rational (then ≈ the matrix of decimals, if one does not end within
    `style.terminating` places); ≈ the matrix of decimals when an entry is irrational (a
    softmax's exponentials), its short decimals exact inside it."""
    leaves = [to_expr(v) for v in _leaves(value)]

    def approx(v):
        text = approx_decimal(v, style)
        return exact_latex(v, style) if text is None else latex_decimal(text)
    decimals = matrix_latex(_nested(approx, value))
    if all(e.is_Rational for e in leaves):
        exact = exact_matrix_latex(value, style)
        return exact if exact == decimals else rf"{exact} \approx {decimals}"
    return rf"\approx {decimals}"


def exact_latex(value, style: Style = STYLE) -> str:
    """An exact value (or a nested list) in LaTeX: fractions, never decimals that hide a
    fraction; a large closed form by its decimal, marked ≈."""
    if _is_list(value):
        return _latex_list([exact_latex(x, style) for x in value], style)
    e = to_expr(value)
    if is_large(e, style):
        return rf"\approx {latex_decimal(places_decimal(e, style))}"
    return number_latex(e, style=style)


def exact_plain(value, style: Style = STYLE) -> str:
    """`exact_latex` in plain text, for a key rendered as text (the terminal, a notebook's
    text): the same integers, short decimals and fractions, a closed form in the reader form
    (e^(1/2)/(…) − 1), a large one by its decimal after ≈."""
    if _is_list(value):
        return bracketed([exact_plain(x, style) for x in value], style)
    e = to_expr(value)
    if is_large(e, style):
        return f"≈ {places_decimal(e, style)}"
    if e.is_Rational:
        places = terminating_places(e)
        return (fixed_str(e, places) if places is not None and places <= style.terminating
                else exact_str(e))
    shown = reader_value(e)
    return shown if shown is not None else f"≈ {places_decimal(e, style)}"


def _approx_body(value, style: Style) -> str | None:
    if _is_list(value):
        parts = [_approx_body(x, style) for x in value]
        if all(p is None for p in parts):
            return None
        return _latex_list([p or exact_latex(x, style) for p, x in zip(parts, value)], style)
    text = approx_decimal(value, style)
    return None if text is None else latex_decimal(text)


def approx_latex(value, style: Style = STYLE) -> str | None:
    """`\\approx 4.666667` for a value whose decimal does not end within `style.terminating`
    places (a list shows every element, exact where it already is a short decimal); None when
    every number is already a short decimal."""
    body = _approx_body(value, style)
    return None if body is None else rf"\approx {body}"


def result_latex(value, style: Style = STYLE) -> str:
    """A result as a derivation shows it: exact, then its decimal after ≈ where it differs."""
    approx = None if is_large(value, style) else approx_latex(value, style)
    return exact_latex(value, style) + (" " + approx if approx else "")


def is_readable(value, style: Style = STYLE) -> bool:
    """Whether every rational of a value reads as a student reads a number: an integer, a
    decimal that ends within `style.terminating` places, or a fraction of at most
    `style.readable` digits above and below (14/3, not 259200001440000002/160000000800000001)."""
    if _is_list(value):
        return all(is_readable(v, style) for v in value)
    e = to_expr(value)
    if not e.is_Rational:
        return True  # a closed form (√2) is read as written, a long one by its decimal
    places = terminating_places(e)
    if places is not None and places <= style.terminating:
        return True
    if max(abs(e.p), e.q).bit_length() > 4 * style.readable:  # never printed to find out
        return False
    return max(len(str(abs(e.p))), len(str(e.q))) <= style.readable


def readable_latex(value, style: Style = STYLE) -> str:
    """A result as a student's working shows it: `result_latex` where every fraction is short
    (`is_readable`), else only its decimal after ≈ (≈ 1.620000), rounded as the page states
    once; the exact fraction stays in the answer key."""
    if is_readable(value, style):
        return result_latex(value, style)
    if _is_list(value):
        return rf"\approx {_latex_list([_decimal_latex(v, style) for v in value], style)}"
    return rf"\approx {_decimal_latex(value, style)}"


def _decimal_latex(value, style: Style) -> str:
    if _is_list(value):
        return _latex_list([_decimal_latex(v, style) for v in value], style)
    text = approx_decimal(value, style)
    return exact_latex(value, style) if text is None else latex_decimal(text)


def latex_text(value) -> str:
    """The value in SymPy's LaTeX (the JSON key's `latex`; a list as a bracketed row)."""
    if _is_list(value):
        return _latex_list([latex_text(v) for v in value], STYLE)
    e = to_expr(value)
    if not e.is_Rational and is_large(e):  # a DAG of many steps: its certified decimal
        return rf"\approx {latex_decimal(decimal_str(e, STYLE.significant))}"
    return sp.latex(value)


# ------------------------------------------------------------------------------ the rule

def rounding_rule(lang: str, style: Style = STYLE) -> str:
    """The sentence a derivation states once: how its decimals after ≈ are rounded."""
    return words(lang)["rounding"].format(places=style.places)


def key_rounding_rule(lang: str, style: Style = STYLE) -> str:
    """The sentence an answer key states once: its exact and decimal columns."""
    return words(lang)["key_rounding"].format(terminating=style.terminating,
                                             significant=style.significant)
