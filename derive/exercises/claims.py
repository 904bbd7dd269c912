"""Claims: the author's answers, and whether each holds.

- an integer or a fraction must equal the exact value (`exact`);
- a decimal with d digits after the point must equal the exact value (`exact`) or the exact
  value rounded half away from zero to d places (`rounded`);
- `{ value, places | sig | rel | abs }` states the test (`within`);
- a list holds element by element.
Anything else is `wrong`.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.exercises.reader import BadNumber, Written, decimal_places, written
from derive.exercises.values import Where, kind_of, number, shown
from derive.kernel import intervals
from derive.kernel.dag import joined, tree_size
from derive.kernel.exact import decimal_str, is_zero_exact, round_half_away

MAX_ITEMS = 100_000
"""Most values one claim may list (as for given inputs)."""

TESTS = ("places", "sig", "rel", "abs")
EXACT, ROUNDED, WITHIN, WRONG = "exact", "rounded", "within", "wrong"
EQUIVALENT = "equivalent"
"""A formula answer the kernel proved equal to the quantity's symbolic form."""
UNDECIDED = "undecided"
"""Neither shown to hold nor to be wrong within bounds (the exercise passed its time bound)."""
_RANK = {EXACT: 0, ROUNDED: 1, WITHIN: 2, EQUIVALENT: 2, WRONG: 3, UNDECIDED: 4}


@dataclass(frozen=True)
class Claim:
    """One claimed value (or a list of them) and the test it asks for."""

    value: object
    text: str
    places: int | None = None
    test: str | None = None
    tolerance: sp.Rational | None = None
    formula: object = None
    """A formula answer: its text when read, a FormulaAnswer once its names are resolved
    against the exercise (derive.exercises.formulas); `value` is then None."""

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    def as_written(self):
        """The claim's text, or a list of texts for a list claim; {"formula": text} for a
        formula answer."""
        if self.formula is not None:
            return {"formula": self.text}
        return [c.as_written() for c in self.value] if self.is_list else self.text

    def exact_value(self):
        """The claimed value(s) as exact numbers."""
        return [c.exact_value() for c in self.value] if self.is_list else self.value


def parse_claim(raw, where: Where, key: str) -> Claim:
    """A claim from its TOML value."""
    if isinstance(raw, list):
        if not raw:
            where.fail(key, "is an empty list", "claim one value per element")
        if len(raw) > MAX_ITEMS:
            where.fail(key, f"has {len(raw)} items", f"at most {MAX_ITEMS}")
        items = [parse_claim(v, where, f"{key}[{i}]") for i, v in enumerate(raw)]
        for i, c in enumerate(items):
            if c.formula is not None:
                where.fail(f"{key}[{i}]", "is a formula inside a list claim",
                           'write one formula in the member\'s index for the whole list, '
                           'such as { formula = "w*x_i" }')
        return Claim(items, "[" + ", ".join(c.text for c in items) + "]")
    if isinstance(raw, dict) and "formula" in raw:
        if len(raw) != 1:
            where.fail(key, "is a table with a formula and other keys",
                       'write { formula = "…" } alone')
        text = raw["formula"]
        if not isinstance(text, str):
            where.fail(f"{key}.formula", f"is {kind_of(text)}",
                       'write the formula as a string: { formula = "(w*x - y)*x" }')
        return Claim(None, text, formula=text)
    if isinstance(raw, dict):
        unknown = [k for k in raw if k not in ("value", *TESTS)]
        tests = [k for k in raw if k in TESTS]
        if unknown or "value" not in raw or len(tests) != 1:
            where.fail(key, "is a table without exactly one value and one test",
                       "write { value = …, places = d } (or sig, rel, abs)")
        test = tests[0]
        if test in ("places", "sig"):
            tol = raw[test]
            if isinstance(tol, bool) or not isinstance(tol, int) or not 0 <= tol <= 30:
                where.fail(f"{key}.{test}", f"is {shown(tol)}", "write a whole number from 0 to 30")
            tol = sp.Integer(tol)
            if test == "sig" and tol == 0:
                where.fail(f"{key}.sig", "is 0", "at least 1 significant digit")
        else:
            tol = number(raw[test], where, f"{key}.{test}")
            if tol < 0:
                where.fail(f"{key}.{test}", f"is {decimal_str(tol)}",
                           "a tolerance must not be negative")
        if isinstance(raw["value"], dict):
            where.fail(f"{key}.value", "is a table inside a claim table (its test would be "
                       "lost)", "write one table: { value = …, places = d }")
        inner = parse_claim(raw["value"], where, f"{key}.value")
        if inner.is_list:
            where.fail(f"{key}.value", "is a list", "state a test per element instead")
        return Claim(inner.value, f"{inner.text} ({test} {_as_written(raw[test])})", test=test,
                     tolerance=tol)
    if isinstance(raw, Written):
        return Claim(raw.value, raw.text, raw.places)
    if isinstance(raw, str):
        value = number(raw, where, key)
        return Claim(value, raw.strip(), decimal_places(raw))
    if isinstance(raw, BadNumber) or isinstance(raw, bool) or not isinstance(raw, int):
        number(raw, where, key)  # raises the right message
        where.fail(key, f"is {kind_of(raw)}", "write a number")
    return Claim(number(raw, where, key), str(raw))


def _as_written(raw) -> str:
    return raw.text if isinstance(raw, Written) else str(raw)


def round_places(value: sp.Expr, places: int) -> sp.Rational | None:
    """`value` rounded half away from zero to `places` digits: exact for a rational, from
    certified enclosures otherwise (derive/kernel/intervals.py); None when undecided."""
    if value.is_Rational:
        return round_half_away(value, places)
    return intervals.round_places(value, places)


def round_sig(value: sp.Expr, sig: int) -> tuple[int, int] | None:
    """`value` rounded half away from zero to `sig` significant digits, as (m, e) for m·10^e
    (never the integer of a huge value's digits); None when undecided."""
    return intervals.sig_parts(value, sig)


def _apart(c: sp.Rational, expected: sp.Expr, gap: sp.Rational) -> bool:
    """Whether |c − expected| ≥ gap is certified (then no rounding to a step of `gap` maps
    the two to the same value)."""
    return intervals.compare(joined(sp.Abs, _difference(c, expected)), gap) in (0, 1)


def _rounded_places(c: sp.Rational, expected: sp.Expr, places: int) -> bool | None:
    """Whether c and expected round to the same value at `places` digits after the point:
    from the certified rounding of expected, or (a value whose rounding cannot be written, such
    as exp(10⁹)) wrong when the two are certified at least one step apart."""
    r = round_places(expected, places)
    if r is not None:
        return r == round_places(c, places)
    return False if _apart(c, expected, sp.Rational(1, 10) ** places) else None


def _equal_rounded(a, b) -> bool | None:
    """a == b for two roundings, None when either is undecided."""
    return None if a is None or b is None else a == b


def _at_most(value: sp.Expr) -> bool | None:
    """value ≤ 0: exact for a rational, certified otherwise (None: undecided)."""
    if value.is_Rational:
        return bool(value <= 0)
    s = intervals.sign(value)
    return None if s is None else s <= 0


def _difference(c: sp.Rational, expected: sp.Expr) -> sp.Expr:
    """c − expected; left unevaluated when expected is not rational, so that a large exact
    value is not rewritten (its enclosure reads the same DAG)."""
    if expected.is_Rational:
        return c - expected
    return joined(sp.Add, c, joined(sp.Mul, sp.S.NegativeOne, expected))


def _equal(c: sp.Rational, expected: sp.Expr) -> bool | None:
    """Whether the claimed rational is the exact value: certified enclosures show a
    difference, an exact zero test shows equality; None when neither does."""
    if expected.is_Rational:
        return c == expected
    if intervals.compare(expected, c) not in (0, None):
        return False
    if tree_size(expected, EXACT_TEST_NODES) > EXACT_TEST_NODES:
        return None
    return is_zero_exact(c - expected)


EXACT_TEST_NODES = 400
"""Largest value (in tree nodes) given to SymPy's exact zero test (minimal polynomials);
larger ones are compared by enclosures only."""


def _scalar(claim: Claim, expected: sp.Expr) -> str:
    if isinstance(expected, list):
        return WRONG
    c = claim.value
    equal = _equal(c, expected)
    if equal:
        return EXACT
    if claim.test == "places":
        ok = _rounded_places(c, expected, int(claim.tolerance))
    elif claim.test == "sig":
        ok = _equal_rounded(round_sig(expected, int(claim.tolerance)),
                            round_sig(c, int(claim.tolerance)))
    elif claim.test == "rel":
        diff = _difference(c, expected)
        ok = _at_most(joined(sp.Add, joined(sp.Abs, diff),
                             joined(sp.Mul, -claim.tolerance, joined(sp.Abs, expected)))
                      if not expected.is_Rational
                      else abs(diff) - claim.tolerance * abs(expected))
    elif claim.test == "abs":
        diff = _difference(c, expected)
        ok = _at_most(joined(sp.Add, joined(sp.Abs, diff), -claim.tolerance)
                      if not expected.is_Rational else abs(diff) - claim.tolerance)
    elif claim.places is not None:
        ok = _rounded_places(c, expected, claim.places)
        if ok is None:
            return UNDECIDED
        return ROUNDED if ok else WRONG
    else:
        return WRONG if equal is False else UNDECIDED
    if ok is None:
        return UNDECIDED
    return WITHIN if ok else WRONG


def judge(claim: Claim, expected) -> str:
    """The status of a claim against the exact value(s)."""
    if claim.is_list:
        if not isinstance(expected, list) or len(expected) != len(claim.value):
            return WRONG
        statuses = [judge(c, e) for c, e in zip(claim.value, expected)]
        if WRONG in statuses:  # one element shown to differ: the list does not hold
            return WRONG
        return max(statuses, key=_RANK.__getitem__)
    return _scalar(claim, expected)


def entry_statuses(claim: Claim, expected):
    """A list claim's status entry by entry, nested as the claim (and the value) are: what
    shows which entries of a tensor are wrong; None when the claim is not a list of the
    value's shape (a shape mismatch is one status, `wrong`)."""
    if not claim.is_list:
        return None if isinstance(expected, (list, tuple)) else judge(claim, expected)
    if not isinstance(expected, (list, tuple)) or len(expected) != len(claim.value):
        return None
    out = [entry_statuses(c, e) for c, e in zip(claim.value, expected)]
    return None if any(x is None for x in out) else out


def positions(statuses, status: str = WRONG) -> list[tuple[int, ...]]:
    """The 1-based positions of the entries with `status` in nested statuses, row-major:
    (1, 2) is row 1, column 2, as W_{1,2} is written."""
    if not isinstance(statuses, list):
        return [()] if statuses == status else []
    return [(m, *rest) for m, inner in enumerate(statuses, 1)
            for rest in positions(inner, status)]


def holds(claim: Claim, value) -> bool:
    return judge(claim, value) != WRONG


@dataclass(frozen=True)
class Accepted:
    """The values a number claim holds against, an interval: from `lo` to `hi` (exact
    rationals, lo ≤ hi; a point when they are equal), each end in it or not (`lo_in`,
    `hi_in`, as `holds` says: 0.95 rounds to 1.0 at one place, 1.05 does not)."""

    lo: sp.Rational
    hi: sp.Rational
    lo_in: bool
    hi_in: bool

    @property
    def point(self) -> bool:
        return self.lo == self.hi


def accepted(claim: Claim) -> Accepted | None:
    """The set of values a number claim holds against, when it is an interval derive writes
    exactly: an integer or a fraction, its value; a decimal with d places (or `places = d`),
    the values that round half away from zero to its rounding, from r − ½·10⁻ᵈ to
    r + ½·10⁻ᵈ; `abs = t`, from c − t to c + t. None for a list, a formula, `sig` and `rel`
    (`rel` above 1 holds on two rays, not one interval)."""
    if claim.is_list or claim.formula is not None or not getattr(claim.value, "is_Rational",
                                                                  False):
        return None
    c = claim.value
    if claim.test == "abs":
        lo, hi = c - claim.tolerance, c + claim.tolerance
    elif claim.test == "places" or (claim.test is None and claim.places is not None):
        places = int(claim.tolerance) if claim.test else claim.places
        centre, half = round_places(c, places), sp.Rational(1, 2) / 10 ** places
        lo, hi = centre - half, centre + half
    elif claim.test is None:
        lo = hi = c
    else:
        return None
    return Accepted(lo, hi, holds(claim, lo), holds(claim, hi))


def literal(text: str) -> Claim:
    """A claim from text, as if written in a file (used by tests and variants)."""
    w = written(text)
    return Claim(w.value, w.text, w.places)
