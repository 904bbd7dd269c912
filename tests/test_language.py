"""The formula language (derive/graph/language.py): what each formula means, written here with
SymPy's own constructors; every invalid formula refused with its column; anything at all is
refused or parsed within the limits, never evaluated."""

from __future__ import annotations

import time

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.graph.language import (
    DEFAULT_INDICES,
    MAX_DEPTH,
    MAX_LENGTH,
    FormulaError,
    FormulaNotSupported,
    evaluated,
    parse_formula,
)
from derive.kernel.constants import Max, Min

w, x, y, b, g, L, v, eps, eta, yhat, beta1, m = sp.symbols(
    "w x y b g L v eps eta yhat beta1 m", real=True)
i, t = sp.symbols("i t", integer=True)
N = sp.Symbol("N", integer=True, positive=True)
X, Y, W, G, ELL = (sp.IndexedBase(sp.Symbol(n, real=True)) for n in ("x", "y", "w", "g", "ell"))
R = sp.Rational

MEANING = [  # (formula, its meaning built with SymPy's constructors)
    ("(w*x - y)*x", (w * x - y) * x),
    ("(w×x − y)×x", (w * x - y) * x),                        # the lesson's own notation
    ("(w·x − y)·x", (w * x - y) * x),
    ("1/2*(yhat - y)^2", (yhat - y) ** 2 / 2),
    ("(ŷ - y)**2 / 2", (yhat - y) ** 2 / 2),
    ("w - η·g", w - eta * g),
    ("w - lr*g", w - eta * g),
    ("β₁*m + (1 - beta1)*g", beta1 * m + (1 - beta1) * g),
    ("sqrt(v) + eps", sp.sqrt(v) + eps),
    ("√v + ε", sp.sqrt(v) + eps),
    ("|w - b|", sp.Abs(w - b)),
    ("abs(w - b)", sp.Abs(w - b)),
    ("max(1, w/b)", Max(1, w / b)),      # SymPy's, its constants ordered exactly
    ("min(w, b, 2)", Min(w, b, 2)),
    ("exp(-x) + log(2)", sp.exp(-x) + sp.log(2)),
    ("-x^2", -(x ** 2)),
    ("2^-3", R(1, 8)),
    ("2^3^2", sp.Integer(2) ** 9),                          # right-associative
    ("0.1 + 1e-3", R(101, 1000)),
    (".5", R(1, 2)),
    ("1E2", sp.Integer(100)),
    ("x_i * y_i", X[i] * Y[i]),
    ("w_{t-1} - eta*g_t", W[t - 1] - eta * G[t]),
    ("x_2", X[2]),
    ("sum_i((w*x_i - y_i)*x_i)/N", sp.Sum((w * X[i] - Y[i]) * X[i], (i, 1, N)) / N),
    ("mean_i(ell_i)", sp.Sum(ELL[i], (i, 1, N)) / N),
]


@pytest.mark.parametrize("text,meaning", MEANING, ids=[m[0] for m in MEANING])
def test_meaning(text, meaning):
    got = evaluated(parse_formula(text))
    assert got == meaning or sp.simplify(got.doit() - meaning.doit()) == 0


def test_derivatives_stay_derivatives_until_taken():
    for text in ("d(L)/d(w)", "grad(L, w)"):
        got = parse_formula(text)
        assert isinstance(got, sp.Derivative) and got.variables == (w,) and got.expr == L
    loss = parse_formula("grad((w*x - y)^2/2, w)")
    assert sp.expand(loss.doit() - (w * x - y) * x) == 0


def test_numbers_are_exact():
    assert parse_formula("0.1 + 0.2") .doit() == R(3, 10)
    assert not parse_formula("0.1").has(sp.Float)


REFUSED = [  # (formula, error, column or None, words the message holds)
    ("(yhat - y)^", FormulaError, 12, "expected an operand"),
    ("2 +", FormulaError, 4, "expected an operand"),
    ("(w*x", FormulaError, 5, "expected ')'"),
    ("w x", FormulaError, 3, "unexpected 'x'"),
    ("|w - b", FormulaError, 7, "closing '|'"),
    ("1.2.3", FormulaError, 1, "two decimal points"),
    ("٣", FormulaError, 1, "ASCII"),
    ("x \x00", FormulaError, 3, "U+0000"),
    ("__class__", FormulaError, 1, "expected an operand"),
    ("sum_z(x_z)", FormulaError, 5, "unknown index 'z'"),
    ("sum_N(x_i)", FormulaError, 5, "'N' is a size, not an index: write sum_i(…) over i = 1…N"),
    ("mean_T(w_t)", FormulaError, 6, "'T' is a size, not an index: write mean_t(…)"),
    ("d(L)/w", FormulaError, 6, "d(name)"),
    ("grad(L, 2)", FormulaError, 1, "grad takes a formula and a name"),
    ("w / (2 - 2)", FormulaError, 5, "division by zero"),
    ("sqrt x", FormulaError, 6, "in brackets"),
    ("", FormulaError, 1, "expected a formula"),
    ("x!", FormulaNotSupported, None, "factorials"),
    ("eval(1)", FormulaNotSupported, None, "function 'eval'"),
    ("__import__('os')", FormulaError, 12, "unexpected character"),
    ("2^100000", FormulaNotSupported, None, "exponent 100,000"),
    ("2^2^2^2^2", FormulaNotSupported, None, "exponent"),
    ("((10^100)^10000)^10000", FormulaNotSupported, None, "digits"),
    ("1e999", FormulaNotSupported, None, "exponent"),
    ("1" * 200, FormulaNotSupported, None, "digits"),
    ("x" * (MAX_LENGTH + 1), FormulaNotSupported, None, "characters"),
    ("(" * (MAX_DEPTH + 5) + "x" + ")" * (MAX_DEPTH + 5), FormulaNotSupported, None, "nested"),
    ("-" * 500 + "x", FormulaNotSupported, None, "nested"),
]


@pytest.mark.parametrize("text,error,column,words", REFUSED, ids=[r[0][:30] for r in REFUSED])
def test_refused(text, error, column, words):
    with pytest.raises(error) as caught:
        parse_formula(text)
    assert words in str(caught.value)
    if column is not None:
        assert caught.value.column == column
        assert f"at column {column}" in str(caught.value)


# ----------------------------------------------------------------------------- properties

NAMES = st.sampled_from(["w", "x", "y", "b", "eta", "eps", "yhat"])
LEAVES = st.one_of(NAMES, st.integers(0, 50).map(str))


def _tree(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    call = st.tuples(st.sampled_from(["sqrt", "abs", "exp"]), children).map(
        lambda t: f"{t[0]}({t[1]})")
    power = st.tuples(children, st.integers(0, 4)).map(lambda t: f"({t[0]})^{t[1]}")
    return st.one_of(binary, call, power, children.map(lambda c: f"-{c}"))


FORMULAS = st.recursive(LEAVES, _tree, max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(FORMULAS)
def test_written_formulas_parse_to_what_sympy_builds(text):
    """A formula written with the language's operators means what the same tree means when
    SymPy builds it (the reference builds it from the same text by its own rules, restricted
    to the safe subset: names, integers and the operators above)."""
    names = {n: sp.Symbol(n, real=True) for n in ("w", "x", "y", "b", "eta", "eps", "yhat")}
    zero_divisions: list = []
    reference = _reference(text, names, zero_divisions)
    if zero_divisions:
        with pytest.raises(FormulaError, match="division by zero"):
            parse_formula(text)
        return
    got = parse_formula(text)
    difference = (got.doit() - reference)
    assert difference == 0 or sp.simplify(difference) == 0


def _reference(text: str, names: dict, zero_divisions: list) -> sp.Expr:
    """An independent reading of the generated subset: a tiny shunting-yard over its tokens."""
    import re
    tokens = re.findall(r"[A-Za-z]+|\d+|[()+\-*/^]", text)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr():
        out = term()
        while peek() in ("+", "-"):
            op = take()
            rhs = term()
            out = out + rhs if op == "+" else out - rhs
        return out

    def term():
        out = unary()
        while peek() in ("*", "/"):
            op = take()
            rhs = unary()
            if op == "/" and rhs == 0:
                zero_divisions.append(rhs)
            out = out * rhs if op == "*" else out / rhs
        return out

    def unary():
        if peek() == "-":
            take()
            return -unary()
        return power()

    def power():
        base = atom()
        if peek() == "^":
            take()
            return base ** unary()
        return base

    def atom():
        tok = take()
        if tok == "(":
            e = expr()
            take()
            return e
        if tok.isdigit():
            return sp.Integer(tok)
        if tok in ("sqrt", "abs", "exp"):
            take()
            e = expr()
            take()
            return {"sqrt": sp.sqrt, "abs": sp.Abs, "exp": sp.exp}[tok](e)
        return names[tok]

    return expr()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_parsed_or_refused_quickly(text):
    start = time.perf_counter()
    try:
        parse_formula(text)
    except (FormulaError, FormulaNotSupported) as exc:
        assert "\n" not in str(exc)
    assert time.perf_counter() - start < 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(list("()^*+-|√!_{}") + ["2", "x", "e9", "**", "sqrt(",
                                                         "d(", ")/d(", "sum_i(", "9" * 40]),
                max_size=120).map("".join))
def test_hostile_token_soup_is_bounded(text):
    start = time.perf_counter()
    try:
        parse_formula(text)
    except (FormulaError, FormulaNotSupported):
        pass
    assert time.perf_counter() - start < 1.0


def test_python_names_are_only_names():
    """Builtins and dunders are symbols or refused: nothing is looked up or called."""
    for text in ("open", "exec", "os", "globals", "breakpoint"):
        assert parse_formula(text) == sp.Symbol(text, real=True)
    for text in ("open(1)", "exec(x)", "__builtins__", "x.__class__"):
        with pytest.raises((FormulaError, FormulaNotSupported)):
            parse_formula(text)


RED_TEAM = [  # found by an adversarial review: each was slow, unbounded or escaped the contract
    "x_{2^(y-y+10^13)}",          # an exponent that is a constant only once evaluated
    "2^(x/x*10^13)",
    "1/exp(10^30*log(2))",        # exp(n·log b) would be rewritten to b^n and computed
    "x_{9^(0*y+9^9)}",
    "exp(10000*log(9^9999))",
    "*".join(["9^9999"] * 285),   # many powers past the limit
    "*".join(["7^4000"] * 200),   # many allowed powers whose product is not
    "x_{max(0^-1, 1)}",           # undefined inside a comparison
    "0^-1", "(x-x)^-1", "(2-2)^(-1/2)", "log(0)", "x_{log(0)}",
    "1/(9^9999)", "(2^7500)^2",   # past what can be printed (4,300 digits)
]


@pytest.mark.parametrize("text", RED_TEAM, ids=[r[:30] for r in RED_TEAM])
def test_red_team_inputs_are_refused_quickly(text):
    start = time.perf_counter()
    with pytest.raises((FormulaError, FormulaNotSupported)) as caught:
        parse_formula(text)
    assert "\n" not in str(caught.value)
    assert time.perf_counter() - start < 1.0


def test_sizes_come_from_the_program_and_are_checked():
    """A size is never text (SymPy would run it as Python) and never unbounded."""
    for bad in ("__import__('os').system('true')", "N", None, 0, sp.Integer(10**6)):
        with pytest.raises(TypeError):
            parse_formula("sum_i(x_i)", {"i": bad})
    with pytest.raises(TypeError):
        parse_formula("x", {"ij": N})
    assert parse_formula("sum_i(x_i)", {"i": sp.Integer(3)}).doit() == X[1] + X[2] + X[3]


def test_a_bound_index_is_the_summation_variable():
    assert sp.expand(parse_formula("sum_i(i)").doit() - N * (N + 1) / 2) == 0


def test_decomposed_unicode_is_the_same_name():
    assert parse_formula("y\u0302") == parse_formula("ŷ") == sp.Symbol("yhat", real=True)


# ------------------------------------------- blocks, declared functions, names (issue 13, item 6)

from fractions import Fraction  # noqa: E402

theta = sp.Symbol("theta", real=True)
k = sp.Symbol("k", integer=True)
C, NB = sp.IndexedBase("c"), sp.IndexedBase("n")
ell, f = sp.Function("ell", real=True), sp.Function("f")
nf = sp.Function("n", integer=True, positive=True)
K = sp.Symbol("K", integer=True, positive=True)
TOTAL = sp.Symbol("Ntotal", integer=True, positive=True)  # stands for the caller's N


def _boundaries(i_, k_):
    """The lead's representation: B_k is records c[k-1]+1 … c[k], of n[k] records."""
    return C[k_ - 1] + 1, C[k_], NB[k_]


CALLER = dict(indices={"i": N, "k": K}, blocks={"B": _boundaries},
              functions={"ell": ell, "f": f}, names={"n": nf, "N": TOTAL, "K": K})

MEANING_WITH_CALLER = [  # (formula, its meaning built with SymPy's constructors)
    ("sum_{i in B_k}(x_i)", sp.Sum(X[i], (i, C[k - 1] + 1, C[k]))),
    ("mean_{i ∈ B_k}(x_i)", sp.Sum(X[i], (i, C[k - 1] + 1, C[k])) / NB[k]),
    ("mean_{i in B_2}(ell_i(θ))", sp.Sum(ell(i, theta), (i, C[1] + 1, C[2])) / NB[2]),
    ("sum_{i in B_{k+1}}(i)", sp.Sum(i, (i, C[k] + 1, C[k + 1]))),
    ("ell_i(θ)", ell(i, theta)),
    ("ℓ_{i+1}(w, x)", ell(i + 1, w, x)),
    ("f(x)", f(x)),
    ("f(x, 2*y) + f(1)", f(x, 2 * y) + f(1)),
    ("d(f(w))/d(w)", sp.Derivative(f(w), w)),
    ("n_k/N", nf(k) / TOTAL),
    ("n_2 * K", nf(2) * K),
    ("sum_k(n_k/N * d(mean_{i in B_k}(ell_i(θ)))/d(θ))",
     sp.Sum(nf(k) / TOTAL * sp.Derivative(sp.Sum(ell(i, theta), (i, C[k - 1] + 1, C[k]))
                                          / NB[k], theta), (k, 1, K))),
    ("mean_i(ell_i(θ))", sp.Sum(ell(i, theta), (i, 1, N)) / N),
]


@pytest.mark.parametrize("text,meaning", MEANING_WITH_CALLER, ids=[m[0] for m in MEANING_WITH_CALLER])
def test_meaning_with_the_callers_blocks_functions_and_names(text, meaning):
    got = evaluated(parse_formula(text, **CALLER))
    assert got == meaning


def test_names_may_mean_an_indexed_base_or_an_expression():
    got = parse_formula("n_k + c_{k-1}", names={"n": NB, "c": C})
    assert evaluated(got) == NB[k] + C[k - 1]
    total = sp.Sum(nf(sp.Symbol("j", integer=True)), (sp.Symbol("j", integer=True), 1, K))
    assert evaluated(parse_formula("1/N", names={"N": total})) == 1 / total


def test_a_symbolic_count_from_the_program_may_be_an_index_size():
    j = sp.Symbol("j", integer=True)
    total = sp.Sum(nf(j), (j, 1, K))
    got = evaluated(parse_formula("mean_i(x_i)", {"i": total}))
    assert got == sp.Sum(X[i], (i, 1, total)) / total


REFUSED_WITH_CALLER = [  # (formula, error, column or None, words the message holds)
    ("sum_{i in C_k}(x_i)", FormulaError, 11, "unknown block 'C' (blocks here: B)"),
    ("sum_{i of B_k}(x_i)", FormulaError, 8, "expected 'in'"),
    ("sum_{i in B}(x_i)", FormulaError, 12, "'_' and the block's index"),
    ("sum_{i in B_k(x_i)", FormulaError, 14, "expected '}'"),
    ("sum_{12 in B_k}(x_i)", FormulaError, 6, "index letter"),
    ("ell_i", FormulaError, 6, "is a function: write its arguments, as in ell_i(…)"),
    ("f + 1", FormulaError, 3, "is a function: write its arguments, as in f(…)"),
    ("n + 1", FormulaError, 3, "'n' is a family: write a member, as in n_k"),
    ("n(k)", FormulaError, 2, "'n' is a family"),
    ("N_k", FormulaError, 2, "'N' takes no index here"),
    ("g(x)", FormulaNotSupported, None, "the function 'g' (column 1) is not supported"),
    ("g_i(x)", FormulaNotSupported, None, "functions declared here: ell, f"),
]


@pytest.mark.parametrize("text,error,column,words", REFUSED_WITH_CALLER,
                         ids=[r[0] for r in REFUSED_WITH_CALLER])
def test_refused_with_caller(text, error, column, words):
    with pytest.raises(error) as caught:
        parse_formula(text, **CALLER)
    assert words in str(caught.value)
    if column is not None:
        assert caught.value.column == column


def test_without_the_caller_blocks_and_calls_are_refused_as_before():
    with pytest.raises(FormulaError, match="unknown block 'B' \\(blocks here: none\\)"):
        parse_formula("sum_{i in B_k}(x_i)")
    for text in ("ell_i(θ)", "f(x)"):
        with pytest.raises(FormulaNotSupported, match="is not supported"):
            parse_formula(text)
    assert parse_formula("n_k") == sp.IndexedBase(sp.Symbol("n", real=True))[k]


def test_the_callers_meanings_are_checked_and_never_text():
    bad = [
        dict(blocks={"B": "lambda i, k: (1, k, k)"}),
        dict(blocks={"BB": _boundaries}),
        dict(functions={"ell": "ell"}),
        dict(functions={"sum": ell}),
        dict(functions={"__import__": ell}),
        dict(names={"n": "__import__('os')"}),
        dict(names={"N": sp.Float(2.5)}),
        dict(names={"d": x}),
    ]
    for kw in bad:
        with pytest.raises(TypeError):
            parse_formula("x", **kw)
    with pytest.raises(TypeError):  # a block whose bounds are not exact expressions
        parse_formula("sum_{i in B_k}(x_i)", blocks={"B": lambda i_, k_: (1, 2.5, 2)})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_block_reductions_match_fraction_arithmetic(sizes, data):
    """Σ and mean over the blocks of a concrete partition, written with block reductions,
    equal the same sums in Fraction arithmetic on the records' values."""
    values = data.draw(st.lists(st.integers(-9, 9), min_size=sum(sizes), max_size=sum(sizes)))
    power = data.draw(st.integers(1, 3))
    ends = [sum(sizes[:m]) for m in range(len(sizes) + 1)]
    blocks = {"B": lambda i_, k_: (sp.Integer(ends[int(k_) - 1] + 1), sp.Integer(ends[int(k_)]),
                                   sp.Integer(sizes[int(k_) - 1]))}
    sub = {X[m + 1]: v for m, v in enumerate(values)}
    reference_means = [Fraction(sum(v ** power for v in values[ends[m]:ends[m + 1]]), sizes[m])
                       for m in range(len(sizes))]
    for m in range(1, len(sizes) + 1):
        got = parse_formula(f"mean_{{i in B_{m}}}(x_i^{power})", blocks=blocks).doit()
        want = reference_means[m - 1]
        assert got.xreplace(sub) == sp.Rational(want.numerator, want.denominator)
    total = parse_formula(f"sum_k(n_k * mean_{{i in B_k}}(x_i^{power}))",
                          {"k": sp.Integer(len(sizes))}, blocks={"B": lambda i_, k_: (
                              C[k_ - 1] + 1, C[k_], NB[k_])}, names={"n": NB})
    outer = evaluated(total)
    assert isinstance(outer, sp.Sum) and outer.limits[-1] == (k, 1, len(sizes))
    term = outer.function if len(outer.limits) == 1 else sp.Sum(outer.function,
                                                                 *outer.limits[:-1])
    written_out = sp.Add(*[term.xreplace({k: m}) for m in range(1, len(sizes) + 1)])
    concrete = written_out.xreplace({C[m]: e for m, e in enumerate(ends)})
    concrete = concrete.xreplace({NB[m + 1]: s for m, s in enumerate(sizes)}).doit()
    assert concrete.xreplace(sub) == sum(v ** power for v in values)


def test_a_size_in_a_subscript_is_the_size_the_sums_run_to():
    """x_{N+1}, x_N and w_T name the very N and T that sum_i and sum_t run to (red team 4:
    they were other integer symbols named N and T, so true telescoping sums were refuted)."""
    N, T = DEFAULT_INDICES["i"], DEFAULT_INDICES["t"]
    xs, ws = sp.IndexedBase(x), sp.IndexedBase(w)
    i = sp.Symbol("i", integer=True)
    assert evaluated(parse_formula("x_{N+1}")) == xs[N + 1]
    assert evaluated(parse_formula("x_N")) == xs[N]
    assert evaluated(parse_formula("w_T - w_0")) == ws[T] - ws[0]
    total = evaluated(parse_formula("sum_i(x_{N+1-i})"))
    assert total == sp.Sum(xs[N + 1 - i], (i, 1, N))
    assert total.limits[0][2] is N and total.function.indices[0].free_symbols == {N, i}
    assert evaluated(parse_formula("x_{i+1}")).indices[0] == sp.Symbol("i", integer=True) + 1


# ------------------------------------------------------------------ aliases apply to whole names

@pytest.mark.parametrize("text, name", [
    ("lr", "eta"), ("η", "eta"), ("lambda", "lambda_"), ("λ", "lambda_"),
    ("lr_decay", "lr_decay"), ("lambda_wd", "lambda_wd"), ("epsilon_min", "epsilon_min"),
    ("λ_wd", "lambda_wd"), ("η_min", "eta_min"), ("exp_avg", "exp_avg"),
])
def test_an_alias_is_a_whole_name(text, name):
    """lr is η, but lr_decay is its own name (it was read as eta_decay, lambda_wd as
    lambda__wd); a Greek letter heading a longer name is spelled by its name."""
    assert parse_formula(text) == sp.Symbol(name, real=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["lr", "lambda", "epsilon", "theta", "w", "exp"]),
       st.lists(st.from_regex(r"[a-z]{2,5}", fullmatch=True), min_size=1, max_size=2))
def test_a_compound_name_is_read_as_written(head, parts):
    """A name whose parts after "_" are words is one symbol spelled as written: no part is
    rewritten by an alias of its own."""
    text = "_".join([head, *parts])
    assert parse_formula(text) == sp.Symbol(text, real=True)


def test_an_authors_lr_decay_is_its_own_given(tmp_path):
    """An Adagrad-style rate written with a given named lr_decay: 0.1/(1 + 2·0.5) = 0.05 by
    hand (before, lr_decay was read as an undefined eta_decay)."""
    from derive.exercises.bank import load_file
    from derive.exercises.check import check_exercise

    path = tmp_path / "decay.toml"
    path.write_text('[[exercise]]\nid = "decay"\nrecipe = "formulas"\n[exercise.given]\n'
                    'lr = 0.1\nlr_decay = 0.5\nstep = 3\n[exercise.define]\n'
                    'rate = "lr/(1 + (step - 1)*lr_decay)"\n[exercise.claims]\n'
                    'rate = 0.05\n', encoding="utf-8")
    (claim,) = check_exercise(load_file(path)[0]).claims
    assert claim.status == "exact" and claim.expected == sp.Rational(1, 20)
