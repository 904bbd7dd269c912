"""The functions of the formula language beyond SymPy's own (issue 24), each declared once: its
SymPy class (exact values where they exist), its derivative (torch's backward at a kink), the
form the kernel proves with, and its LaTeX and words.

    relu(x) = max(x, 0)                       relu′(x) = [x > 0]           (relu′(0) = 0)
    sigmoid(x) = 1/(1 + e^(−x))               sigmoid′ = sigmoid·(1 − sigmoid)
    softplus(x) = log(1 + e^x)                softplus′ = sigmoid
    clamp(x, lo, hi) = min(max(x, lo), hi)    ∂/∂x = [lo ≤ x ≤ hi]         (the bounds pass it)

sin, cos, tanh and sign are SymPy's (sign(0) = 0, sign′ = 0 as torch takes it). A derivative at
a kink is written with Heaviside steps whose value at 0 is torch's: H(u, 0) = [u > 0],
H(u, 1) = [u ≥ 0], and SymPy's H(u) = ½ at a tie of max/min (torch.maximum splits it).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.core.logic import fuzzy_and


def _exp_rational(x: sp.Expr) -> sp.Expr | None:
    """e^x when SymPy writes it as a rational (x = 0, x = log q), else None."""
    e = sp.exp(x)
    return e if e.is_Rational else None


class _Named(sp.Function):
    """A function of this module: printed by SymPy's LaTeX printers with its declared name."""

    def _latex(self, printer, exp=None):
        out = (BY_CLASS[type(self)].tex + r"\left("
               + ", ".join(printer._print(a) for a in self.args) + r"\right)")
        return out if exp is None else rf"{out}^{{{exp}}}"


class relu(_Named):  # noqa: N801 — the name the language reads and prints
    """max(x, 0); its derivative is [x > 0] (0 at x = 0, as torch.relu's backward)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        if x.is_Rational:
            return x if x > 0 else sp.S.Zero

    def fdiff(self, argindex=1):
        return sp.Heaviside(self.args[0], 0)

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_is_extended_nonnegative(self):
        return True if self.args[0].is_extended_real else None

    def _eval_rewrite_as_Max(self, x, **kwargs):
        return sp.Max(x, 0)


class sigmoid(_Named):  # noqa: N801
    """1/(1 + e^(−x)): ½ at 0, q/(1 + q) at log q."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        e = _exp_rational(-x)
        if e is not None:
            return 1 / (1 + e)

    def fdiff(self, argindex=1):
        return self * (1 - self)

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_is_extended_positive(self):
        return True if self.args[0].is_extended_real else None

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return 1 / (1 + sp.exp(-x))


class softplus(_Named):  # noqa: N801
    """log(1 + e^x): log 2 at 0 (torch's softplus with beta = 1, without its threshold)."""

    nargs = 1

    @classmethod
    def eval(cls, x):
        e = _exp_rational(x)
        if e is not None:
            return sp.log(1 + e)

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _eval_is_extended_real(self):
        return self.args[0].is_extended_real

    def _eval_is_extended_positive(self):
        return True if self.args[0].is_extended_real else None

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return sp.log(1 + sp.exp(x))


class clamp(_Named):  # noqa: N801
    """min(max(x, lo), hi) (hi when lo > hi, as torch.clamp); the gradient goes to x where
    lo ≤ x ≤ hi, to lo where x < lo < hi, to hi where x > hi or hi < lo (torch's backward)."""

    nargs = 3

    @classmethod
    def eval(cls, x, lo, hi):
        if x.is_Rational and lo.is_Rational and hi.is_Rational:
            return min(max(x, lo), hi)

    def fdiff(self, argindex=1):
        x, lo, hi = self.args
        H = sp.Heaviside
        if argindex == 1:
            return H(x - lo, 1) * H(hi - x, 1)
        if argindex == 2:
            return H(lo - x, 0) * H(hi - lo, 0)
        return 1 - (1 - H(x - hi, 0)) * (1 - H(lo - hi, 0))

    def _eval_is_extended_real(self):
        return fuzzy_and(a.is_extended_real for a in self.args)

    def _eval_rewrite_as_Max(self, x, lo, hi, **kwargs):
        return sp.Min(sp.Max(x, lo), hi)


@dataclass(frozen=True)
class Declared:
    """One function of the language: the name it is written with, its SymPy class, how many
    arguments it takes, its LaTeX name and its words."""

    name: str
    func: type
    arity: int
    tex: str
    en: str
    zh: str


DECLARED = {d.name: d for d in (
    Declared("cos", sp.cos, 1, r"\cos", "the cosine", "余弦"),
    Declared("sin", sp.sin, 1, r"\sin", "the sine", "正弦"),
    Declared("tanh", sp.tanh, 1, r"\tanh", "the hyperbolic tangent", "双曲正切"),
    Declared("sigmoid", sigmoid, 1, r"\sigma", "the logistic sigmoid", "sigmoid 函数"),
    Declared("softplus", softplus, 1, r"\operatorname{softplus}", "the softplus",
             "softplus 函数"),
    Declared("relu", relu, 1, r"\operatorname{relu}", "the rectifier (ReLU)", "ReLU 函数"),
    Declared("sign", sp.sign, 1, r"\operatorname{sign}", "the sign", "符号函数"),
    Declared("clamp", clamp, 3, r"\operatorname{clamp}", "x clamped to [lo, hi]",
             "截断到 [lo, hi]"),
)}
"""The functions issue 24 adds to the language, by their written name."""

BY_CLASS = {d.func: d for d in DECLARED.values()}

OWN = (relu, sigmoid, softplus, clamp)
"""The classes declared here (not SymPy's)."""


def through_kink(e: sp.Basic) -> bool:
    """Whether `e` holds a derivative taken through a kink (a Heaviside step or a δ from relu,
    clamp, max, min, or the derivative of sign): its value at the kink is torch's convention,
    not a derivative, so it is taken at points only, never compared as a formula."""
    return isinstance(e, sp.Basic) and e.has(sp.Heaviside, sp.DiracDelta)
