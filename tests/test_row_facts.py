"""Facts that are equalities over index ranges (issue 36): each row of the targets Y sums to 1,
every(equal(Σ_{c=1}^{C} Y[r, c] − 1), (r, 1, B)), the fact of the batch cross-entropy gradient.

The claims are written here by hand as SymPy (sizes positive integer symbols, tensors
IndexedBase entries, the batch mean a Σ over 1..B divided by B), independent of derive's tensor
language; tests/data/statements/ce_batch.toml states the same in TOML. Proved claims must name the rule and
the fact; every refutation's witness is re-checked here: its rows summed in Fraction arithmetic,
its sides computed by hand in Fractions (the witness's logits are equal within each row, so
softmax is 1/C exactly) and by torch float64 (F.cross_entropy with probability targets,
autograd). Near misses (a fact over rows 1..B − 1, a Σ over columns 1..C − 1, rows summing
to 2, the columns summing to 1) are never proved.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st
from support import examples

from derive.kernel import Instantiation, Relation, Verdict, decide, equal, every, hypothesis
from derive.kernel.equalities import RULE
from derive.kernel.witness import solve_equalities

PROVED, REFUTED = Verdict.PROVED, Verdict.REFUTED
DATA = Path(__file__).resolve().parent / "data" / "statements" / "ce_batch.toml"

SIZE = dict(integer=True, positive=True)
B, C, n = (sp.Symbol(s, **SIZE) for s in ("B", "C", "n"))
p, q, r, c, k, j = (sp.Symbol(s, integer=True) for s in ("p", "q", "r", "c", "k", "j"))
Z, Y, X, W, b, x, Y2 = (sp.IndexedBase(s, real=True) for s in ("Z", "Y", "X", "W", "b", "x", "Y2"))
S, dx = sp.Sum, sp.Derivative
ROWS = "each row of Y sums to 1"


def within(index, size):
    """1 ≤ index ≤ size, as the two facts a statement gives for a free index."""
    return [hypothesis(index - 1, f"{index} ≥ 1"), hypothesis(size - index, f"{index} ≤ {size}")]


def rows(value=1, lo=1, hi=B, first=1, last=C, reason=ROWS, base=Y):
    """Σ_{c=first}^{last} base[r, c] = value for every row lo ≤ r ≤ hi."""
    return list(every(equal(S(base[r, c], (c, first, last)) - value, reason), (r, lo, hi)))


def columns(value=1):
    """Σ_{r=1}^{B} Y[r, c] = value for every column 1 ≤ c ≤ C (not the rows)."""
    return list(every(equal(S(Y[r, c], (r, 1, B)) - value, "each column of Y sums to 1"),
                      (c, 1, C)))


def logit(row, col):
    """z = X Wᵀ + b, entry [row, col]."""
    return S(X[row, j] * W[col, j], (j, 1, n)) + b[col]


def softmax_z(row, col):
    return sp.exp(Z[row, col]) / S(sp.exp(Z[row, k]), (k, 1, C))


def softmax_w(row, col):
    return sp.exp(logit(row, col)) / S(sp.exp(logit(row, k)), (k, 1, C))


# torch's cross_entropy with probability targets and mean reduction, over the rows of a batch
ce_z = -S(S(Y[r, c] * (Z[r, c] - sp.log(S(sp.exp(Z[r, k]), (k, 1, C)))), (c, 1, C)),
          (r, 1, B)) / B
ce_w = -S(S(Y[r, c] * (logit(r, c) - sp.log(S(sp.exp(logit(r, k)), (k, 1, C)))), (c, 1, C)),
          (r, 1, B)) / B
grad_z, grad_w = dx(ce_z, Z[p, q]), dx(ce_w, W[p, q])
mean_z = (softmax_z(p, q) - Y[p, q]) / B                                # (softmax(Z) − Y)/B
mean_w = S((softmax_w(r, p) - Y[r, p]) * X[r, q], (r, 1, B)) / B        # (softmax − Y)ᵀX/B
at_z, at_w = within(p, B) + within(q, C), within(p, C) + within(q, n)


# ------------------------------------------------------------------------------ proved

@pytest.mark.parametrize("lhs, rhs, ranges", [(grad_z, mean_z, at_z), (grad_w, mean_w, at_w)],
                         ids=["dZ", "dW"])
def test_the_batch_gradients_are_proved_with_the_row_sums(lhs, rhs, ranges):
    got = decide(lhs, rhs, ranges + rows())
    assert got.verdict is PROVED, (got.strategy, got.detail)
    assert RULE in got.rules and ROWS in got.facts, (got.rules, got.facts)


def test_a_row_sum_at_a_free_row_or_under_a_sum_over_the_rows():
    """Σ_c Y[p, c] = 1 at a free row p in 1..B, and Σ_r x_r·Σ_c Y[r, c] = Σ_r x_r with the
    rows' Σ putting r in 1..B."""
    assert decide(S(Y[p, c], (c, 1, C)), sp.S.One, within(p, B) + rows()).verdict is PROVED
    nested = S(x[r] * S(Y[r, c], (c, 1, C)), (r, 1, B))
    got = decide(nested, S(x[r], (r, 1, B)), rows())
    assert got.verdict is PROVED and RULE in got.rules


def test_every_splices_the_two_facts_of_an_equality_over_one_index():
    first, second = every(equal(S(Y[r, c], (c, 1, C)) - 1, ROWS), (r, 1, B))
    assert first.over == second.over and first.over[0][0] != r
    assert sp.expand(first.expr + second.expr) == 0
    assert first.describe() == "Sum(Y[r, c], (c, 1, C)) - 1 ≥ 0 for every 1 ≤ r ≤ B"


# ------------------------------------------------------------------ witnesses, re-checked

def _entry(w, base, *idx) -> Fraction:
    """An entry of a tensor at the witness, as a Fraction (0 where the witness leaves it)."""
    lam = dict(w.functions).get(base)
    if lam is None:
        return Fraction(0)
    v = sp.S(lam(*map(sp.Integer, idx)))
    assert v.is_Rational, (base, idx, v)
    return Fraction(int(v.p), int(v.q))


def _sizes(w) -> dict[str, int]:
    return {str(s): int(v) for s, v in w.symbols}


def _row_sum(w, row, first, last, base=Y) -> Fraction:
    """Σ_{c=first}^{last} base[row, c] under Karr's convention, as SymPy's Sum means it: a
    reversed range (last < first − 1) is −Σ_{c=last+1}^{first−1}; at C = 1 the columns 2..C − 1
    are minus column 1."""
    if last < first - 1:
        return -_row_sum(w, row, last + 1, first - 1, base)
    return sum((_entry(w, base, row, col) for col in range(first, last + 1)), Fraction(0))


def _softmax_row(w, row, size, logits) -> list[Fraction]:
    """softmax of a row whose logits are all equal: 1/C each, exactly (the smallest witnesses
    have W = 0, b = 0, Z = 0; a witness with unequal logits is checked by torch alone)."""
    values = [logits(row, col) for col in range(1, size + 1)]
    assert len(set(values)) == 1, values
    return [Fraction(1, size)] * size


def _torch_ce(w, form: str):
    """The true gradient entry by torch float64 autograd of F.cross_entropy (probability
    targets, mean over the batch), and softmax − Y (·X) computed directly."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    s = _sizes(w)

    def t(base, *shape, grad=False):
        out = torch.zeros(shape, dtype=torch.float64)
        for idx in torch.cartesian_prod(*(torch.arange(1, m + 1) for m in shape)).reshape(
                -1, len(shape)).tolist():
            out[tuple(i - 1 for i in idx)] = float(_entry(w, base, *idx))
        return out.requires_grad_(grad)

    Bv, Cv = s["B"], s["C"]
    Yt = t(Y, Bv, Cv)
    if form == "Z":
        Zt = t(Z, Bv, Cv, grad=True)
        F.cross_entropy(Zt, Yt).backward()
        return Zt.grad, (torch.softmax(Zt, 1) - Yt).detach()
    Xt, Wt, bt = t(X, Bv, s["n"]), t(W, Cv, s["n"], grad=True), t(b, Cv)
    logits = Xt @ Wt.T + bt
    F.cross_entropy(logits, Yt).backward()
    return Wt.grad, ((torch.softmax(logits, 1) - Yt).T @ Xt).detach()


def test_the_batch_sum_for_the_mean_is_refuted_with_rows_that_sum_to_one():
    """(softmax(XWᵀ + b) − Y)ᵀX without the 1/B: at B = 1 it is the mean, at C = 1 both are 0
    (softmax is 1 and so is each row of Y), so the witness has B = C = 2."""
    got = decide(grad_w, mean_w * B, at_w + rows())
    assert got.verdict is REFUTED, (got.strategy, got.detail)
    w = got.witness
    s = _sizes(w)
    assert (s["B"], s["C"], s["n"]) == (2, 2, 1)
    for row in range(1, s["B"] + 1):
        assert _row_sum(w, row, 1, s["C"]) == 1
    pv, qv = s["p"], s["q"]

    def logits(row, col):
        return sum((_entry(w, X, row, t) * _entry(w, W, col, t) for t in range(1, s["n"] + 1)),
                   Fraction(0)) + _entry(w, b, col)
    total = Fraction(0)
    for row in range(1, s["B"] + 1):
        soft = _softmax_row(w, row, s["C"], logits)
        total += (soft[pv - 1] - _entry(w, Y, row, pv)) * _entry(w, X, row, qv)
    assert total != 0
    assert (w.lhs, w.rhs) == (sp.Rational(total.numerator, total.denominator) / s["B"],
                              sp.Rational(total.numerator, total.denominator))
    grad, direct = _torch_ce(w, "W")
    left, right = float(grad[pv - 1, qv - 1]), float(direct[pv - 1, qv - 1])
    assert abs(left - right) > 1e-9
    assert left == pytest.approx(float(w.lhs), abs=1e-12)
    assert right == pytest.approx(float(w.rhs), abs=1e-12)


def test_the_batch_gradient_without_the_one_over_b_is_refuted():
    """softmax(Z) − Y for the batch mean's gradient: B = 2 and C = 2 (at B = 1 it holds; at
    C = 1 both sides are 0)."""
    got = decide(grad_z, mean_z * B, at_z + rows())
    assert got.verdict is REFUTED, (got.strategy, got.detail)
    w = got.witness
    s = _sizes(w)
    assert (s["B"], s["C"]) == (2, 2)
    assert all(_row_sum(w, row, 1, 2) == 1 for row in (1, 2))
    soft = _softmax_row(w, s["p"], 2, lambda row, col: _entry(w, Z, row, col))
    diff = soft[s["q"] - 1] - _entry(w, Y, s["p"], s["q"])
    assert diff != 0 and (w.lhs, w.rhs) == (sp.nsimplify(diff / 2), sp.nsimplify(diff))
    grad, direct = _torch_ce(w, "Z")
    left, right = float(grad[s["p"] - 1, s["q"] - 1]), float(direct[s["p"] - 1, s["q"] - 1])
    assert left == pytest.approx(float(w.lhs), abs=1e-12)
    assert right == pytest.approx(float(w.rhs), abs=1e-12) and abs(left - right) > 1e-9


# ------------------------------------------------------------------------- near misses

NEAR = {  # name: (facts, rows the witness must sum to its value: (lo, hi, first, last, value))
    "rows 1..B − 1 only": (rows(hi=B - 1), lambda s: (1, s["B"] - 1, 1, s["C"], 1)),
    "rows 2..B only": (rows(lo=2), lambda s: (2, s["B"], 1, s["C"], 1)),
    "Σ over columns 1..C − 1": (rows(last=C - 1), lambda s: (1, s["B"], 1, s["C"] - 1, 1)),
    "Σ over columns 2..C": (rows(first=2), lambda s: (1, s["B"], 2, s["C"], 1)),
    "rows summing to 2": (rows(value=2), lambda s: (1, s["B"], 1, s["C"], 2)),
    "another tensor's rows": (rows(base=Y2), None),
}


@pytest.mark.parametrize("name", list(NEAR))
def test_a_near_miss_is_never_proved(name):
    facts, held = NEAR[name]
    got = decide(grad_z, mean_z, at_z + facts)
    assert got.verdict is not PROVED, (name, got.strategy)
    assert got.verdict is REFUTED, (name, got.strategy, got.detail)  # measured: all refuted
    w = got.witness
    s = _sizes(w)
    if held is not None:
        lo, hi, first, last, value = held(s)
        for row in range(lo, hi + 1):
            assert _row_sum(w, row, first, last) == value, (name, row)
    pv, qv = s["p"], s["q"]
    soft = _softmax_row(w, pv, s["C"], lambda row, col: _entry(w, Z, row, col))
    row_total = _row_sum(w, pv, 1, s["C"])  # ∂CE/∂Z[p, q] = (softmax·Σ_c Y[p, c] − Y[p, q])/B
    true = (soft[qv - 1] * row_total - _entry(w, Y, pv, qv)) / s["B"]
    claimed = (soft[qv - 1] - _entry(w, Y, pv, qv)) / s["B"]
    assert true != claimed
    assert (w.lhs, w.rhs) == (sp.Rational(true.numerator, true.denominator),
                              sp.Rational(claimed.numerator, claimed.denominator))


def test_columns_that_sum_to_one_are_not_rows():
    got = decide(grad_z, mean_z, at_z + columns())
    assert got.verdict is REFUTED
    s = _sizes(got.witness)
    for col in range(1, s["C"] + 1):
        assert sum(_entry(got.witness, Y, row, col) for row in range(1, s["B"] + 1)) == 1


# ------------------------------------------------------------------ properties of the rule

COVERING = st.fixed_dictionaries({  # facts that cover the claim's rows, Σ and value
    "lo": st.sampled_from([0, 1]), "hi": st.sampled_from([0, 1]), "first": st.just(1),
    "last": st.just(0), "fact_value": st.sampled_from([1, 2])}).map(
        lambda d: {**d, "claim_value": d["fact_value"]})
ANY = st.fixed_dictionaries({
    "lo": st.sampled_from([0, 1, 2]), "hi": st.sampled_from([-1, 0, 1]),
    "first": st.sampled_from([1, 2]), "last": st.sampled_from([-1, 0]),
    "fact_value": st.sampled_from([1, 2]), "claim_value": st.sampled_from([1, 2])})


@examples(16)
@given(case=st.one_of(COVERING, ANY), free=st.booleans())
def test_a_row_fact_proves_exactly_what_it_covers(case, free):
    """Σ_r x_r·Σ_{c=1}^{C} Y[r, c] = v·Σ_r x_r (or Σ_c Y[p, c] = v at a free row p in 1..B)
    given Σ_{c=first}^{C+last} Y[r, c] = w for every lo ≤ r ≤ B + hi: true exactly when the
    fact's rows cover 1..B, its Σ is the claim's and w = v; proved then, else refuted with a
    witness whose rows satisfy the fact (summed here in Fractions)."""
    lo, hi, first, last = case["lo"], case["hi"], case["first"], case["last"]
    fact_value, claim_value = case["fact_value"], case["claim_value"]
    facts = rows(value=fact_value, lo=lo, hi=B + hi, first=first, last=C + last)
    if free:
        lhs, rhs, facts = S(Y[p, c], (c, 1, C)), sp.Integer(claim_value), within(p, B) + facts
    else:
        lhs, rhs = S(x[r] * S(Y[r, c], (c, 1, C)), (r, 1, B)), claim_value * S(x[r], (r, 1, B))
    true = lo <= 1 and hi >= 0 and (first, last) == (1, 0) and fact_value == claim_value
    got = decide(lhs, rhs, facts)
    assert got.verdict is (PROVED if true else REFUTED), (got.strategy, got.detail)
    if not true:
        w = got.witness
        s = _sizes(w)
        for row in range(lo, s["B"] + hi + 1):
            assert _row_sum(w, row, first, s["C"] + last) == fact_value
        if free:
            assert _row_sum(w, s["p"], 1, s["C"]) != claim_value
        else:
            left = sum((_entry(w, x, row) * _row_sum(w, row, 1, s["C"])
                        for row in range(1, s["B"] + 1)), Fraction(0))
            assert left != claim_value * sum((_entry(w, x, row) for row in range(1, s["B"] + 1)),
                                             Fraction(0))


@examples(40)
@given(st.lists(st.tuples(st.lists(st.integers(-2, 2), min_size=4, max_size=4),
                          st.integers(-3, 3)), min_size=1, max_size=3),
       st.lists(st.integers(-3, 3), min_size=4, max_size=4))
def test_solved_equalities_give_points_that_satisfy_them(rows_, point):
    """Linear equalities Σ_k a_k v_k = e (each as the two constraints ≥ 0) solved for one
    variable each: at any values of the others, the completed point satisfies every equality
    exactly (Fractions); None exactly when the system has no solution (sympy.linsolve)."""
    v = sp.symbols("v0:4", real=True)
    exprs = [sum(a * s for a, s in zip(coeffs, v)) - e for coeffs, e in rows_]
    constraints = tuple(pair for ex in exprs for pair in ((ex, Relation.NONNEGATIVE),
                                                          (-ex, Relation.NONNEGATIVE)))
    inst = Instantiation("t", sp.S.Zero, sp.S.Zero, v, constraints)
    solved = solve_equalities(inst)
    if solved is None:
        assert sp.linsolve(exprs, *v) == sp.EmptySet
        return
    assert sp.linsolve(exprs, *v) != sp.EmptySet
    values = dict(zip(solved.searched(), map(sp.Integer, point)))
    full = solved.completed(values)
    assert set(full) == set(v)
    for (coeffs, e) in rows_:
        total = sum((Fraction(a) * Fraction(int(sp.S(full[s]).p), int(sp.S(full[s]).q))
                     for a, s in zip(coeffs, v)), Fraction(0))
        assert total == e


# ------------------------------------------------------------------------ the TOML file

def test_the_toml_statements_get_their_verdicts():
    import contextlib
    import io

    from derive.cli.main import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["prove", "--no-cache", "--format", "json", str(DATA)])
    assert code == 0
    got = {s["id"]: s for s in json.loads(out.getvalue())["statements"]}
    assert {k: v["verdict"] for k, v in got.items()} == {
        "batch-ce-gradient": "proved", "batch-ce-gradient-w": "proved",
        "batch-ce-gradient-sum": "refuted", "batch-ce-no-fact": "refuted"}
    assert "sum(Y, dim=1) = 1" in got["batch-ce-gradient"]["facts_used"]
    w = got["batch-ce-gradient-sum"]["witness"]
    sizes = {m: int(v) for m, v in re.findall(r"\b(\w+) = (\d+)", w["shape"])}
    entries = {key: Fraction(v) for key, v in w["assignment"].items()}
    for row in range(1, sizes["B"] + 1):
        assert sum(entries.get(f"Y[{row}, {col}]", Fraction(0))
                   for col in range(1, sizes["C"] + 1)) == 1
    assert Fraction(w["rhs"]) == sizes["B"] * Fraction(w["lhs"]) != 0
