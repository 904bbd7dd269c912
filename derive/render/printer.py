"""SymPy expressions of the statements in the course's notation: n_k, ℓ_i(θ), ∇, η, and no
internal names."""

from __future__ import annotations

import sympy as sp
from sympy.printing.latex import LatexPrinter

from derive.statements.notation import latex_of


class CoursePrinter(LatexPrinter):
    """LaTeX as the course writes it: explicit \\cdot between factors, ∇ for ∂/∂θ,
    subscripted sequences (n_k, ℓ_i(θ))."""

    def __init__(self, settings=None):
        super().__init__({"mul_symbol": "dot", "order": "none", **(settings or {})})

    def _print_Symbol(self, expr, style="plain"):
        name = latex_of(expr.name)
        return name if name else super()._print_Symbol(expr, style)

    def _print_Function(self, expr, exp=None):
        name = expr.func.__name__
        if name == "n" and len(expr.args) == 1:
            out = rf"n_{{{self._print(expr.args[0])}}}"
        elif name == "ell" and len(expr.args) == 2:
            out = rf"\ell_{{{self._print(expr.args[0])}}}\left({self._print(expr.args[1])}\right)"
        elif name.startswith("G_") and len(expr.args) == 1:
            out = rf"G_{{{name[2:]}}}\left({self._print(expr.args[0])}\right)"
        else:
            return super()._print_Function(expr, exp)
        return out if exp is None else rf"{out}^{{{exp}}}"

    def _boundary(self, e):
        """c_k for Σ_{j=1}^{k} n_j, N for c_K; None for any other expression."""
        if isinstance(e, sp.Sum) and len(e.limits) == 1:
            j, lo, hi = e.limits[0]
            f = e.function
            if lo == 1 and isinstance(f, sp.Function) and f.func.__name__ == "n" and f.args == (j,):
                if isinstance(hi, sp.Symbol) and hi.name == "K":
                    return "N"
                return rf"c_{{{self._print(hi)}}}"
        return None

    def _print_Sum(self, expr):
        named = self._boundary(expr)
        if named:
            return named
        parts = []
        for i, lo, hi in expr.limits:
            block = None
            hi_name = self._boundary(hi)
            lo_name = self._boundary(lo - 1)
            if hi_name and lo_name and hi_name.startswith("c_") and lo_name.startswith("c_"):
                k = hi.limits[0][2]
                if sp.expand(lo - 1 - hi.subs(k, k - 1)) == 0:
                    block = rf"\sum_{{{self._print(i)} \in B_{{{self._print(k)}}}}}"
            limits = rf"_{{{self._print(i)}={self._print(lo)}}}^{{{self._print(hi)}}}"
            parts.append(block or rf"\sum{limits}")
        body = self._print(expr.function)
        if expr.function.is_Add:
            body = rf"\left({body}\right)"
        return " ".join(reversed(parts)) + " " + body

    def _print_Derivative(self, expr):
        variables = expr.variables
        if len(variables) == 1 and variables[0].name == "theta":
            inner = self._print(expr.expr)
            if isinstance(expr.expr, sp.Function):
                return rf"\nabla_{{\theta}} {inner}"
            return rf"\nabla_{{\theta}} \left({inner}\right)"
        return super()._print_Derivative(expr)


def latex(expr) -> str:
    """An expression (or a Matrix, entry by entry) in the course's LaTeX."""
    if isinstance(expr, sp.MatrixBase):
        rows = r" \\ ".join(" & ".join(CoursePrinter().doprint(e) for e in expr.row(i))
                            for i in range(expr.rows))
        return rf"\begin{{pmatrix}} {rows} \end{{pmatrix}}"
    return CoursePrinter().doprint(expr)
