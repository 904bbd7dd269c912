"""A derivation graph's expressions in LaTeX, structurally: one walker prints a node's
formula (symbols in the course's notation) and its substituted line (the same expression with
the exercise's numbers in place, unevaluated, negatives parenthesised, Σ written out)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import sympy as sp

from derive.graph.notation import BLOCKS, Notation, notation_of
from derive.kernel.exact import to_expr
from derive.kernel.functions import BY_CLASS
from derive.render.latex import ADD, ATOM, MUL, POW, Tex, add, frac, number, paren, power

Values = Callable[[str, tuple[int, ...] | None], object]
"""The value of a symbol (name, None) or of a family member (name, (m,)); None if unbound."""

SHOWN_TERMS = 6
"""A Σ with more terms is written with its first three, ⋯, and its last."""

def _block(lo: sp.Expr, hi: sp.Expr):
    """(set name, block index) when the limits are c_{k−1}+1 … c_k of declared blocks."""
    if not (isinstance(hi, sp.Indexed) and hi.base.label.name in BLOCKS and len(hi.indices) == 1):
        return None
    k, = hi.indices
    if sp.expand(lo - hi.base[k - 1] - 1) != 0:
        return None
    return BLOCKS[hi.base.label.name], k


FUNCTION_TEX = {sp.exp: r"\exp", sp.log: r"\log",
                **{f: d.tex for f, d in BY_CLASS.items()}}
"""Functions written with their names: exp(−z_i), log p_i, sign(ŷ_i − y_i), \\sigma(z_i),
\\operatorname{clamp}(x, lo, hi) (derive/kernel/functions.py)."""

STEP_TEX = {sp.Integer(0): ">", sp.Integer(1): r"\ge"}
"""A derivative's step at a kink, H(u, 0) = [u > 0] and H(u, 1) = [u ≥ 0], as Iverson
brackets; SymPy's H(u), ½ at u = 0 (a tie of max or min), is written H(u)."""

def _letter(n: Notation) -> str:
    return n.latex_letter()


def symbol_tex(name: str, indices: tuple[Tex, ...] = (), whole: bool = False) -> Tex:
    """A symbol in its notation, with its family indices: ŷ_i, w_{t-1}, ∂ℓ_i/∂w, β_1,
    g_{k,j}, ‖g_k‖, clip(g_k)_j; `whole` writes a vector without its element index (g_k)."""
    n = notation_of(name)
    if n is None:
        raise KeyError(f"symbol {name!r} has no notation")
    inner = list(indices)
    element = inner.pop() if n.vector and not whole and inner else None
    subs = ([n.sub] if n.sub else []) + [i.text for i in inner]
    core = _letter(n)
    if n.norm or n.func:  # the element index goes outside: clip(g_k)_j
        if subs:
            core += "_{" + ",".join(subs) + "}"
        core = (rf"\lVert {core}\rVert" if n.norm
                else rf"\operatorname{{{n.func}}}\left({core}\right)")
        subs = []
    if element is not None:
        subs.append(element.text)
    if subs:
        core += "_{" + ",".join(subs) + "}"
    if n.wrt:
        wrt = notation_of(n.wrt)
        return Tex(rf"\frac{{\partial {core}}}{{\partial {_letter(wrt) if wrt else n.wrt}}}")
    return Tex(core)


class Printer:
    """`formula(expr)`: the node's formula; with `values`, its substituted line; `bound` holds
    the members an index stands for (i = 2 on the second record's line)."""

    def __init__(self, values: Values | None = None, bound: Mapping[str, int] | None = None,
                 whole: frozenset[str] = frozenset(), size: int | None = None):
        self.values = values
        self.bound = dict(bound or {})
        self.whole = whole
        """Element indices written as whole vectors: ḡ = Σ_k w_k·g_k for ḡ_j = Σ_k w_k·g_{k,j}
        (an index a Σ binds is written out); with `values` and the vectors' `size`, a whole
        vector is its column of numbers: 0.2 · (3, 4)ᵀ."""
        self.size = size

    # ------------------------------------------------------------------ leaves
    def _index(self, e: sp.Expr) -> int | None:
        """An index expression's member number, when every index in it is bound."""
        if e.is_Integer:
            return int(e)
        known = {}
        for s in e.free_symbols:
            if s.name in self.bound:
                known[s] = sp.Integer(self.bound[s.name])
            elif self.values is not None:
                v = self.values(s.name, None)
                if v is None or not to_expr(v).is_Integer:
                    return None
                known[s] = sp.Integer(v)
            else:
                return None
        v = e.xreplace(known)
        return int(v) if v.is_Integer else None

    def _leaf(self, name: str, members: tuple[int, ...] | None) -> Tex | None:
        if self.values is None:
            return None
        v = self.values(name, members)
        return None if v is None else number(v)

    def tex(self, e: sp.Basic) -> Tex:
        if e.is_Number:
            return number(e, decimals=self.values is not None)
        if isinstance(e, sp.Symbol):
            if e.name in self.bound:
                return Tex(str(self.bound[e.name]))
            return self._leaf(e.name, None) or symbol_tex(e.name)
        if isinstance(e, sp.Indexed):
            name = e.base.label.name
            last = e.indices[-1]
            if isinstance(last, sp.Symbol) and last.name in self.whole:
                if self.values is not None and self.size is not None:
                    got = self._column(e, last.name)
                    if got is not None:
                        return got
                inner = tuple(self.tex(i) for i in e.indices[:-1])
                return symbol_tex(name, inner, whole=True)
            members = tuple(self._index(i) for i in e.indices)
            if all(m is not None for m in members):
                got = self._leaf(name, members)
                if got is not None:
                    return got
                return symbol_tex(name, tuple(Tex(str(m)) for m in members))
            return symbol_tex(name, tuple(self.tex(i) for i in e.indices))
        if isinstance(e, sp.Add):
            return self._add(e)
        if isinstance(e, sp.Mul):
            return self._mul(e)
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.Sum):
            return self._sum(e)
        if isinstance(e, (sp.Min, sp.Max)):
            name = r"\min" if isinstance(e, sp.Min) else r"\max"
            return Tex(rf"{name}\left({', '.join(self.tex(a).text for a in e.args)}\right)")
        if isinstance(e, sp.Abs):
            return Tex(rf"\left|{self.tex(e.args[0]).text}\right|")
        if isinstance(e, sp.Piecewise):
            return self._cases(e)
        if type(e) in FUNCTION_TEX:
            name = FUNCTION_TEX[type(e)]
            inner = ", ".join(self.tex(a).text for a in e.args)
            return Tex(rf"{name}\left({inner}\right)")
        if e is sp.pi:
            return Tex(r"\pi")
        if isinstance(e, sp.Heaviside):
            u = self.tex(e.args[0]).text
            if len(e.args) == 2 and e.args[1] in STEP_TEX:
                return Tex(rf"\left[{u} {STEP_TEX[e.args[1]]} 0\right]")
            return Tex(rf"H\left({u}\right)")
        if isinstance(e, sp.DiracDelta):
            return Tex(rf"\delta\left({self.tex(e.args[0]).text}\right)")
        raise NotImplementedError(f"no LaTeX for {type(e).__name__}")

    def _column(self, e: sp.Indexed, j: str) -> Tex | None:
        """A whole vector's numbers (g_{1,j} for j = 1…d as a column), None if unbound."""
        outer = [self._index(i) for i in e.indices[:-1]]
        if any(m is None for m in outer):
            return None
        name, shown = e.base.label.name, _shown(self.size)
        got = [self._leaf(name, tuple(outer) + (n,)) for n in shown]
        if any(t is None for t in got):
            return None
        return column(got, long=self.size > SHOWN_TERMS)

    # ------------------------------------------------------------------ operators
    def _add(self, e: sp.Add) -> Tex:
        terms = list(e.args)
        plus = [t for t in terms if not t.could_extract_minus_sign()]
        minus = [t for t in terms if t.could_extract_minus_sign()]
        if not plus:  # −a − b
            first = self._negated(minus[0])
            rest = minus[1:]
        else:
            first, rest = self._plus(plus), minus
        out = first
        for t in rest:
            neg = self.tex(_negate(t))
            right = paren(neg).text if neg.prec <= ADD or neg.negative else neg.text
            out = Tex(f"{out.text} - {right}", ADD, out.negative)
        return out

    def _plus(self, terms: list[sp.Expr]) -> Tex:
        return add(*[self.tex(t) for t in terms]) if len(terms) > 1 else self.tex(terms[0])

    def _negated(self, t: sp.Expr) -> Tex:
        inner = self.tex(_negate(t))
        body = paren(inner).text if inner.prec <= ADD or inner.negative else inner.text
        return Tex(f"-{body}", ADD, True)

    def _mul(self, e: sp.Mul) -> Tex:
        """Factors in their written order: a rational coefficient first (½, 1/N as a
        fraction), negative powers as a denominator, a Σ or sum after a 1/… fraction."""
        coeff = sp.S.One
        num, den = [], []
        for f in e.args:
            if f.is_Number:
                coeff *= f
            elif f.is_Pow and f.exp.is_Integer and f.exp.is_negative:
                den.append(f.base if f.exp == -1 else f.base ** -f.exp)
            else:
                num.append(f)
        negative = bool(coeff.is_negative)
        coeff = abs(coeff)
        pieces: list[Tex] = []
        den_t = [self.tex(d) for d in den]
        if self.values is not None:  # a size of 1 substituted: 1/1 is not written
            den_t = [d for d in den_t if d.text != "1"]
        if coeff.is_Rational and coeff.q != 1:
            if den_t:
                den_t = [Tex(str(coeff.q))] + den_t
            else:  # ½(ŷ − y)²: the numeric fraction leads
                pieces.append(frac(Tex(str(coeff.p)), Tex(str(coeff.q))))
            coeff = sp.Integer(coeff.p) if den_t else sp.S.One
            if not num and not den_t:
                return self._signed(pieces[0], negative)
        if den_t:
            if self._big(num) or not num:
                pieces.append(frac(number(coeff), self._product(den_t)))
            else:
                top = self._product(([number(coeff)] if coeff != 1 else [])
                                    + [self.tex(f) for f in num])
                pieces.append(frac(top, self._product(den_t)))
                num = []
        elif coeff != 1 or (not num and not pieces):
            pieces.append(number(coeff, decimals=self.values is not None))
        pieces += [self.tex(f) for f in num]
        return self._signed(self._product(pieces), negative)

    @staticmethod
    def _signed(out: Tex, negative: bool) -> Tex:
        if not negative:
            return out
        body = paren(out).text if out.prec <= ADD or out.negative else out.text
        return Tex(f"-{body}", ADD, True)

    @staticmethod
    def _big(factors) -> bool:
        return any(isinstance(f, (sp.Sum, sp.Add)) for f in factors)

    def _product(self, pieces: list[Tex], extra: list[Tex] = ()) -> Tex:
        pieces = list(pieces) + list(extra)
        if len(pieces) == 1:
            return pieces[0]
        text = ""
        for n, p in enumerate(pieces):
            operand = paren(p).text if (p.prec < MUL or (p.negative and n > 0)) else p.text
            if n == 0:
                text = operand
            elif pieces[n - 1].text.startswith(r"\frac") and pieces[n - 1].prec == ATOM and \
                    (p.prec < MUL or p.prec == POW or operand.startswith(r"\sum")):
                text += " " + operand  # ½(ŷ − y)², (1/N) Σ ℓ_i: juxtaposed as the course writes
            else:
                text += r" \cdot " + operand
        return Tex(text, MUL, pieces[0].negative)

    def _pow(self, e: sp.Pow) -> Tex:
        if e.exp == sp.S.Half:
            return Tex(rf"\sqrt{{{self.tex(e.base).text}}}")
        if e.exp.is_negative and e.exp.is_Integer:
            return frac(Tex("1"), self.tex(e.base ** -e.exp))
        return power(self.tex(e.base), self.tex(e.exp))

    def _block_range(self, hi: sp.Indexed, k: sp.Expr) -> tuple[int | None, int | None]:
        """The members of block k from the boundaries' values, when known."""
        m = self._index(k)
        if m is None or self.values is None:
            return None, None
        name = hi.base.label.name
        a, b = self.values(name, (m - 1,)), self.values(name, (m,))
        if a is None or b is None:
            return None, None
        return int(a) + 1, int(b)

    def _cases(self, e: sp.Piecewise) -> Tex:
        """A case distinction over indices: the one case that holds where the indices are
        bound (the substituted line of u_1), else every case with its condition."""
        for value, cond in e.args:
            holds = self._holds(cond)
            if holds is None:
                break
            if holds:
                return self.tex(value)
        rows = [f"{self.tex(v).text} & " + (r"\text{otherwise}" if c is sp.true else
                                            self._relation(c)) for v, c in e.args]
        return Tex(r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}")

    def _holds(self, cond) -> bool | None:
        """Whether a case's condition holds for the bound indices; None when unbound."""
        if cond is sp.true:
            return True
        left, right = self._index(cond.lhs), self._index(cond.rhs)
        if left is None or right is None or self.values is None and not self.bound:
            return None
        return bool(cond.func(sp.Integer(left), sp.Integer(right)))

    def _relation(self, c) -> str:
        op = {sp.Eq: "=", sp.Ne: r"\neq", sp.Lt: "<", sp.Le: r"\leq", sp.Gt: ">",
              sp.Ge: r"\geq"}[type(c)]
        return f"{self.tex(c.lhs).text} {op} {self.tex(c.rhs).text}"

    def _sum(self, e: sp.Sum) -> Tex:
        (i, lo, hi), = e.limits
        block = _block(lo, hi)
        if block is not None:
            low, high = self._block_range(hi, block[1])
            if low is None:
                body = self.tex(e.function)
                shown = paren(body).text if body.prec <= ADD else body.text
                where = symbol_tex(block[0], (self.tex(block[1]),)).text
                return Tex(rf"\sum_{{{self.tex(i).text} \in {where}}} {shown}", MUL)
        else:
            low, high = self._index(lo), self._index(hi)
        if self.values is None or low is None or high is None:
            inner = Printer(self.values, self.bound, self.whole - {i.name}, self.size)
            body = inner.tex(e.function)
            shown = paren(body).text if body.prec <= ADD else body.text
            return Tex(rf"\sum_{{{self.tex(i).text}={self.tex(lo).text}}}^{{{self.tex(hi).text}}}"
                       f" {shown}", MUL)
        members = list(range(low, high + 1))
        if not members:
            return Tex("0")
        if len(members) > SHOWN_TERMS:
            members = members[:3] + [None] + members[-1:]
        terms = []
        for m in members:
            if m is None:
                terms.append(Tex(r"\cdots"))
                continue
            inner = Printer(self.values, {**self.bound, i.name: m}, self.whole - {i.name},
                            self.size)
            terms.append(inner.tex(e.function))
        return add(*terms) if len(terms) > 1 else terms[0]


def _negate(t: sp.Expr) -> sp.Expr:
    """−t keeping the written order of an unevaluated product (−η·g → η·g, not g·η)."""
    if isinstance(t, sp.Mul) and t.args and t.args[0].is_Number and t.args[0].is_negative:
        c, rest = -t.args[0], t.args[1:]
        parts = rest if c == 1 else (c, *rest)
        return parts[0] if len(parts) == 1 else sp.Mul(*parts, evaluate=False)
    return -t


def formula(expr: sp.Expr, whole: frozenset[str] = frozenset()) -> Tex:
    """An expression in the course's notation; the element indices in `whole` written as
    whole vectors (clip(g_k) = s_k · g_k)."""
    return Printer(whole=whole).tex(expr)


def _shown(size: int) -> list[int]:
    """The elements a column shows: all, or the first three and the last."""
    return list(range(1, size + 1)) if size <= SHOWN_TERMS else [1, 2, 3, size]


def column(entries: list[Tex], long: bool = False) -> Tex:
    """A column vector: its entries in a pmatrix; a `long` one is shown by its first three
    entries, ⋮ and its last."""
    if long:
        entries = entries[:3] + [Tex(r"\vdots")] + entries[-1:]
    return Tex(r"\begin{pmatrix} " + r" \\ ".join(e.text for e in entries)
               + r" \end{pmatrix}")


def substituted(expr: sp.Expr, values: Values, bound: Mapping[str, int] | None = None) -> Tex:
    """The same expression with the numbers in place (unevaluated)."""
    return Printer(values, bound).tex(expr)


def head(symbol: sp.Basic, member: int | None = None, index: sp.Symbol | None = None,
         whole: bool = False) -> Tex:
    """A node's left-hand side: L, ŷ_i (general), ŷ_2 (one member); with `whole`, a vector
    node as a whole: clip(g_k), clip(g_2), ḡ."""
    if isinstance(symbol, sp.IndexedBase):
        if member is None and index is None:
            return symbol_tex(symbol.label.name, (), whole=whole)
        shown = Tex(str(member)) if member is not None else formula(index)
        return symbol_tex(symbol.label.name, (shown,), whole=whole)
    return symbol_tex(symbol.name)
