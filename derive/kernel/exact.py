"""Exact numbers: reading them from text without evaluation, testing zero, printing.

Every decision in derive is made on SymPy `Integer`/`Rational` values (or exact algebraic
numbers); decimals are produced here for display only.
"""

from __future__ import annotations

import re
import sys
from fractions import Fraction
from math import gcd

import sympy as sp

from derive.errors import NotSupportedError
from derive.kernel import functions, intervals
from derive.kernel.dag import shared_str, tree_size
from derive.kernel.reader import NotWritable, reader_text
from derive.kernel.timebound import attempt

MAX_DIGITS = 60
"""Most significant digits accepted in one written number."""

MAX_EXPONENT = 30
"""Largest |exponent| accepted in scientific notation (`2e9` is fine, `1e999999999` is not)."""

MAX_TEXT_DIGITS = 50_000
"""Longest exact value derive writes out, in digits of numerator and denominator. Python
refuses to print integers past 4,300 digits unless told; derive allows this many (the time
bound of an exercise keeps the arithmetic that makes them short) and refuses longer ones."""

if 0 < sys.get_int_max_str_digits() < MAX_TEXT_DIGITS:
    sys.set_int_max_str_digits(MAX_TEXT_DIGITS)


class TooLongToWrite(NotSupportedError, ValueError):
    """An exact value with more digits than MAX_TEXT_DIGITS."""


def check_length(value: sp.Rational) -> None:
    """TooLongToWrite for a rational whose numerator or denominator is past MAX_TEXT_DIGITS
    (estimated from the bit length, without converting)."""
    bits = max(int(value.p).bit_length(), int(value.q).bit_length())
    if bits * 0.30103 > MAX_TEXT_DIGITS:
        raise TooLongToWrite(f"an exact value of about {int(bits * 0.30103):,} digits; derive "
                             f"writes values of up to {MAX_TEXT_DIGITS:,} digits")

_DECIMAL = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$")
_FRACTION = re.compile(r"^([+-]?[0-9]+)\s*/\s*([0-9]+)$")


class ExactNumberError(ValueError):
    """A piece of text or a value that is not an exact finite number we accept."""


def _check_digits(digits: str, text: str) -> None:
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise ExactNumberError(f"{text!r} has more than {MAX_DIGITS} digits")


def parse_exact(text: str) -> sp.Rational:
    """Read `"8/15"`, `"-0.425"`, `"2e9"` or `"7"` as an exact rational; never evaluates code."""
    s = text.strip()
    if len(s) > 2 * MAX_DIGITS + 8:
        raise ExactNumberError(f"{text[:20]!r}… is too long for a number")
    m = _FRACTION.match(s)
    if m:
        num, den = m.groups()
        _check_digits(num.lstrip("+-"), text)
        _check_digits(den, text)
        if int(den) == 0:
            raise ExactNumberError(f"{text!r} divides by zero")
        return sp.Rational(int(num), int(den))
    m = _DECIMAL.match(s)
    if not m or not (m.group(2) or m.group(3)):
        raise ExactNumberError(f"{text!r} is not a number")
    sign, whole, frac, exp = m.groups()
    whole, frac = whole or "", frac or ""
    _check_digits(whole + frac, text)
    e = 0
    if exp is not None:
        if len(exp.lstrip("+-").lstrip("0")) > 3 or abs(int(exp)) > MAX_EXPONENT:
            raise ExactNumberError(f"{text!r} has an exponent beyond ±{MAX_EXPONENT}")
        e = int(exp)
    value = Fraction(int(whole + frac or "0"), 10 ** len(frac)) * Fraction(10) ** e
    if sign == "-":
        value = -value
    return sp.Rational(value.numerator, value.denominator)


def exact(value: object) -> sp.Rational:
    """An exact rational from an int, a Fraction, a SymPy rational or text (see parse_exact)."""
    if isinstance(value, bool):
        raise ExactNumberError("a boolean is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    if isinstance(value, sp.Rational):
        return value
    if isinstance(value, str):
        return parse_exact(value)
    raise ExactNumberError(f"{value!r} is not an exact number")


def to_expr(value: object) -> sp.Expr:
    """A SymPy object from a SymPy object, an int or a Fraction; text is refused, so nothing
    read from a file can be parsed as an expression on the way."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    raise TypeError(f"{type(value).__name__} is not an exact SymPy value")


def is_zero_exact(value: sp.Expr) -> bool | None:
    """Whether a closed-form number is exactly zero: rationals directly; otherwise "nonzero"
    when a certified enclosure (derive/kernel/intervals.py) excludes 0, and "zero" only from
    SymPy's exact reasoning or the minimal polynomial of an algebraic number (for values of
    at most EXACT_TEST_NODES nodes); None when neither applies (never guessed)."""
    value = to_expr(value)
    if value.is_Rational:
        return value == 0
    if intervals.sign(value) in (-1, 1):
        return False
    if tree_size(value, EXACT_TEST_NODES) > EXACT_TEST_NODES or not value.is_number:
        return None
    return attempt(ZERO_TEST_SECONDS, _zero_by_sympy, value)


ZERO_TEST_SECONDS = 2.0
"""The CPU time SymPy's exact zero tests (its assumptions, the logs over a coprime base, the
minimal polynomial, the rewrite in exp) may take on one value; past it, no answer."""


def _zero_by_sympy(value: sp.Expr) -> bool | None:
    """True when the minimal polynomial of the algebraic `value` is x, or when its rewrite in
    exp (sin, cos and tanh through e^(ix), e^x: identities) is 0 as a rational function of
    the exponentials (sin(1)² + cos(1)² − 1; a softmax's gradient against an upstream
    gradient constant along its row, a sum of e^(√2/2)·… terms that is 0); also by SymPy's
    structural reasoning (its "nonzero" may come from evalf, a float: not trusted) and over a
    coprime base of the logs of rationals; None otherwise."""
    if value.is_zero or _zero_over_log_base(value):
        return True
    try:
        x = sp.Dummy("x")
        if sp.minimal_polynomial(value, x) == x:
            return True
    except Exception:  # noqa: BLE001 — not algebraic, or SymPy cannot tell: no answer
        pass
    if not value.has(sp.exp, sp.sin, sp.cos, sp.tanh, *functions.OWN) or any(
            p.exp.is_Integer and abs(int(p.exp)) > LOG_BASE_DEGREE
            for p in value.atoms(sp.Pow)):
        return None
    try:
        rewritten = value.rewrite(sp.exp)
        numerator, _ = sp.fraction(sp.together(rewritten))
        return True if sp.expand(numerator) == 0 else None
    except Exception:  # noqa: BLE001 — SymPy could not rewrite it: no answer
        return None


EXACT_TEST_NODES = 400
"""Largest value (in tree nodes) given to SymPy's exact zero tests; a larger one is shown
nonzero by its enclosure or not at all."""

LOG_BASE_BITS = 256
"""Largest integer (in bits) whose log the exact zero test rewrites over a coprime base."""
LOG_BASE_COUNT = 64
"""Most logs of rationals the exact zero test rewrites."""
LOG_BASE_DEGREE = 32
"""Largest integer power the zero test over logs expands."""


def coprime_base(numbers) -> list[int] | None:
    """Pairwise coprime integers > 1 of which each of `numbers` (integers > 1) is a product
    (by gcds alone, never by factoring); None past LOG_BASE_COUNT of them."""
    base: list[int] = []
    for n in numbers:
        todo = [n]
        while todo:
            x = todo.pop()
            if x == 1:
                continue
            for i, b in enumerate(base):
                g = gcd(x, b)
                if g > 1:
                    base.pop(i)
                    todo.extend((b // g, g, x // g))
                    break
            else:
                base.append(x)
                if len(base) > 4 * LOG_BASE_COUNT:
                    return None
    return base


def _over_base(n: int, base: list[int], symbols: list) -> sp.Expr | None:
    """log n as Σ k·log b over the coprime base (its logs as `symbols`)."""
    terms = []
    for b, s in zip(base, symbols):
        k = 0
        while n % b == 0:
            n //= b
            k += 1
        if k:
            terms.append(k * s)
    return sp.Add(*terms) if n == 1 else None


def _zero_over_log_base(value: sp.Expr) -> bool:
    """Whether `value` is 0 because of the logs of its rationals alone: each log(p/q) is
    rewritten as Σ k·log b over a coprime base of the integers (log 16 − 2·log 4 becomes
    4·L₂ − 2·2·L₂), and the result, a rational function of the logs L_b (each a symbol), is
    identically 0. True proves zero (an identity holds for every value of the symbols);
    False says nothing."""
    logs = [a for a in value.atoms(sp.log)
            if len(a.args) == 1 and a.args[0].is_Rational and a.args[0] > 0]
    if not logs or len(logs) > LOG_BASE_COUNT:
        return False
    ints = {int(x) for a in logs for x in (a.args[0].p, a.args[0].q) if x > 1}
    if any(n.bit_length() > LOG_BASE_BITS for n in ints):
        return False
    if any(p.exp.is_Integer and abs(int(p.exp)) > LOG_BASE_DEGREE
           for p in value.atoms(sp.Pow)):
        return False
    base = coprime_base(sorted(ints))
    if base is None:
        return False
    symbols = [sp.Dummy(f"L{b}") for b in base]
    subs = {}
    for a in logs:
        p = _over_base(int(a.args[0].p), base, symbols)
        q = _over_base(int(a.args[0].q), base, symbols)
        if p is None or q is None:
            return False
        subs[a] = p - q
    rewritten = value.xreplace(subs)
    numerator, _ = sp.fraction(sp.together(rewritten))
    return sp.expand(numerator) == 0


def exact_sign(value: sp.Expr) -> int | None:
    """−1, 0 or 1 for a real closed number, decided exactly (certified enclosures, then an
    exact zero test); None when it is not a real number or cannot be told."""
    value = to_expr(value)
    if value.is_Rational:
        return int(sp.sign(value))
    s = intervals.sign(value)
    if s is not None:
        return s
    if tree_size(value, EXACT_TEST_NODES) > EXACT_TEST_NODES or not value.is_number or \
            value.is_extended_real is not True:
        return None
    return 0 if is_zero_exact(value) else None


SIGN_TEXT = 80
"""Longest value a sentence about an undecided sign writes (in the reader form)."""


def undecided_sign(what: str, v: sp.Expr) -> str:
    """One sentence for a sign exact_sign cannot tell: which function needs the sign of which
    value (in the reader form, e^(−100000) + cos(1)² + sin(1)² − 1, when short; never SymPy's
    text), and what was tried."""
    try:
        text = reader_text(v)
    except (NotWritable, RecursionError):
        text = ""
    shown = f"the sign of {text}" if text and len(text) <= SIGN_TEXT else "the sign of a value"
    return (f"{shown} (for {what}), which exact arithmetic cannot decide "
            f"(certified enclosures up to {intervals.MAX_BITS:,} bits contain 0, and no "
            "exact zero test shows it is 0)")


def exact_str(value: sp.Expr, budget=None) -> str:
    """`"5"`, `"-14/3"`; for an irrational value its exact SymPy form. With `budget` (a
    `derive.kernel.dag.TextBudget`), the text is charged to it (TextTooLong past it)."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(exact_str(v, budget) for v in value) + "]"
    value = to_expr(value)
    if value.is_Rational:
        check_length(value)
        text = str(int(value)) if value.is_Integer else f"{value.p}/{value.q}"
        if budget is not None:
            budget.spend(len(text))
        return text

    return shared_str(value, budget=budget)


class NoCertifiedDecimal(NotSupportedError):
    """A value none of whose digits an enclosure certifies."""


def certified_parts(value: sp.Expr, significant: int) -> tuple[int, int]:
    """(m, e) with m·10^e an irrational value rounded half away from zero to `significant`
    significant digits, every digit certified by an enclosure (derive/kernel/intervals.py);
    with fewer digits when that many cannot be certified (a value too near a tie); (0, 0) for
    a value the exact zero test shows is 0; NoCertifiedDecimal when no digit can be."""
    for digits in range(significant, 0, -1):
        parts = intervals.sig_parts(value, digits)
        if parts is not None:
            return parts
    if is_zero_exact(value):
        return (0, 0)
    raise NoCertifiedDecimal("a value with no certified decimal (derive encloses no digit of "
                             "it: not a real constant it handles, or beyond the magnitudes "
                             "it encloses)")


def certified_decimal(value: sp.Expr, significant: int) -> sp.Rational:
    """certified_parts as a rational (for values whose decimal exponent is moderate)."""
    m, e = certified_parts(value, significant)
    return sp.Integer(m) * sp.Integer(10) ** e if e >= 0 else sp.Rational(m, 10 ** -e)


def scientific_str(m: int, e: int) -> str:
    """m·10^e as `1.14200738981568e26` (the mantissa's trailing zeros dropped)."""
    digits = str(abs(m))
    exponent = e + len(digits) - 1
    mantissa = (digits[0] + "." + digits[1:]).rstrip("0").rstrip(".")
    return f"{'-' if m < 0 else ''}{mantissa}e{exponent}"


def round_half_away(value: sp.Rational, places: int) -> sp.Rational:
    """The exact value rounded half away from zero to `places` digits after the point."""
    scaled = sp.Rational(value) * sp.Integer(10) ** places
    sign = -1 if scaled < 0 else 1
    n, d = abs(scaled.p), scaled.q
    q, r = divmod(n, d)
    if 2 * r >= d:
        q += 1
    return sp.Integer(sign * q) / sp.Integer(10) ** places


def fixed_str(value: sp.Rational, places: int) -> str:
    """A rational as a decimal with exactly `places` digits after the point (rounded)."""
    if places < 0:
        raise ValueError("fixed_str needs places ≥ 0")
    if places > MAX_TEXT_DIGITS:
        raise TooLongToWrite(f"{places:,} places; derive writes values of up to "
                             f"{MAX_TEXT_DIGITS:,} digits")
    r = round_half_away(value, places)
    check_length(r)
    sign = "-" if r < 0 else ""
    n = abs(r.p) * (10**places // r.q)
    whole, frac = divmod(n, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}" if places else f"{sign}{whole}"


def terminating_places(value: sp.Rational) -> int | None:
    """Digits after the point of a terminating decimal, or None if it does not terminate."""
    q = int(sp.Rational(value).q)
    twos = (q & -q).bit_length() - 1
    q >>= twos
    fives, powers = 0, [(5, 1)]
    while q % (powers[-1][0] ** 2) == 0:  # 5, 25, 625, …: a few big divisions, not one per 5
        powers.append((powers[-1][0] ** 2, powers[-1][1] * 2))
    for power, count in reversed(powers):
        while q % power == 0:
            q //= power
            fives += count
    return max(twos, fives) if q == 1 else None


def decimal_str(value: sp.Expr, significant: int = 15) -> str:
    """A decimal for display: exact when the decimal terminates within `significant` digits,
    otherwise rounded half away from zero to `significant` significant digits. An irrational
    value with more integer digits than `significant` (or more leading zeros) is written in
    scientific notation, `1.14200738981568e26`: only certified digits are ever shown."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(decimal_str(v, significant) for v in value) + "]"
    value = to_expr(value)
    if not value.is_Rational:
        m, e = certified_parts(value, significant)
        if m == 0:
            return "0"
        exponent = e + len(str(abs(m))) - 1
        if exponent >= significant or exponent < -significant:
            return scientific_str(m, e)
        value = sp.Integer(m) * sp.Integer(10) ** e if e >= 0 else sp.Rational(m, 10 ** -e)
    if value == 0:
        return "0"
    try:
        check_length(value)
    except TooLongToWrite:  # digits past what derive writes: its certified leading digits
        return scientific_str(*certified_parts(value, significant))
    places = terminating_places(value)
    magnitude = len(str(abs(value.p) // value.q)) if abs(value) >= 1 else 0
    if places is not None and magnitude + places <= significant:
        text = fixed_str(value, places)
    else:
        if abs(value) >= 1:
            keep = max(significant - magnitude, 0)
        else:
            leading = 0
            v = abs(value)
            while v < sp.Rational(1, 10):
                v *= 10
                leading += 1
            keep = significant + leading
        text = fixed_str(value, keep)
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
