"""Statements over tensors of symbolic size in TOML (issue 36): the issue's identities written as
a lecturer writes them (proofs/statements/tensors.toml) get their verdicts through
`derive prove FILE`, the same as the statements of proofs/ built with derive/graph/sized.py;
every refutation's witness is re-checked here in Fraction arithmetic; what a formula means is
checked against Fraction arithmetic written by hand; every malformed table is one line and
exit 2; hostile statement texts never give a traceback."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import json
import re
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import event, given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises.statements import load_statements
from derive.graph import sized
from derive.graph.sized_language import parse_sized
from derive.kernel import Verdict, positive
from derive.statements import Statement
from derive.statements.prove import prove

ROOT = Path(__file__).resolve().parents[1]
FILE = ROOT / "proofs" / "statements" / "tensors.toml"
CONTRACT_FIELDS = {"id", "title", "expect", "verdict", "witness", "seconds"}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def decided() -> dict[str, dict]:
    code, out, err = run("prove", "--no-cache", "--format", "json", str(FILE))
    assert err == "" and code == 0, (code, err)
    return {r["id"]: r for r in json.loads(out)["statements"]}


def _toml(value) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml(v)}' for k, v in value.items()) + " }"
    return json.dumps(value, ensure_ascii=False)


def _table(id_="x", expect="proved", **keys) -> str:
    lines = ["[[statement]]", f'id = "{id_}"', f'expect = "{expect}"']
    keys.setdefault("title", "t")
    given_ = keys.pop("given", None)
    lines += [f"{k} = {_toml(v)}" for k, v in keys.items()]
    if given_ is not None:
        lines.append("[statement.given]")
        lines += [f"{k} = {_toml(v)}" for k, v in given_.items()]
    return "\n".join(lines) + "\n"


def _file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------- the verdicts

EXPECTED = {  # the issue's list, written here by hand
    "linear-weight-gradient": "proved", "linear-bias-gradient": "proved",
    "linear-input-gradient": "proved", "linear-weight-gradient-transposed": "refuted",
    "batch-mean-weight-gradient": "proved", "batch-sum-for-mean": "refuted",
    "relu-backward": "proved", "relu-mask-on-wrong-layer": "refuted",
    "softmax-sums-to-one": "proved", "softmax-shift": "proved", "logsumexp-shift": "proved",
    "logsumexp-gradient": "proved", "cross-entropy-gradient": "proved",
    "cross-entropy-gradient-any-targets": "refuted", "cross-entropy-gradient-p": "refuted",
    "label-smoothing-gradient": "proved", "batch-cross-entropy-gradient": "proved",
    "batch-cross-entropy-weight-gradient": "proved",
    "batch-cross-entropy-sum-for-mean": "refuted", "layer-norm-mean-zero": "proved",
    "layer-norm-gradient-sums-to-zero": "proved",
    "layer-norm-affine-gradient-sums-to-zero": "proved",
    "layer-norm-unbiased-variance": "refuted", "attention-rows-sum-to-one": "proved",
    "attention-scale-d": "refuted",
}


def test_every_statement_of_the_file_gets_the_issues_verdict(decided):
    assert list(decided) == list(EXPECTED)
    for id_, rec in decided.items():
        assert CONTRACT_FIELDS <= set(rec)
        assert (rec["expect"], rec["verdict"]) == (EXPECTED[id_], EXPECTED[id_]), id_
        assert (rec["witness"] is None) == (EXPECTED[id_] == "proved"), id_


def test_sizes_and_free_indices_are_shown(decided):
    assert decided["linear-weight-gradient"]["sizes"] == ["m", "n"]
    assert decided["linear-weight-gradient"]["indices"] == ["1 ≤ p ≤ m", "1 ≤ q ≤ n"]
    assert decided["softmax-sums-to-one"]["indices"] == []
    assert decided["attention-rows-sum-to-one"]["indices"] == ["1 ≤ p ≤ T"]
    code, out, err = run("prove", "--no-cache", str(FILE))
    assert code == 0 and err == ""
    lines = out.splitlines()
    at = next(k for k, line in enumerate(lines) if line.startswith("linear-weight-gradient "))
    assert lines[at + 1].split() == ["sizes", "m,", "n;", "entry-wise", "at", "1", "≤", "p",
                                     "≤", "m,", "1", "≤", "q", "≤", "n"]
    assert "witness: n = 2, p = 1, q = 2; delta[1]=0, delta[2]=1, x[1]=1, x[2]=0: " \
           "lhs=0 ≠ rhs=1" in out


def _sizes(witness: dict) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"\b([A-Za-z]\w*) = (\d+)", witness["shape"])}


def _entries(witness: dict) -> dict[str, Fraction]:
    return {k: Fraction(v) for k, v in witness["assignment"].items()}


def test_the_transposed_gradient_witness_by_fractions(decided):
    """∂(δ·(Wx + b))/∂W[p, q] = δ_p x_q against x_p δ_q, at the witness: n = 2 (at n = 1 they
    agree), entries the witness gives, those it leaves out 0."""
    w = decided["linear-weight-gradient-transposed"]["witness"]
    s, a = _sizes(w), _entries(w)
    assert s == {"n": 2, "p": 1, "q": 2}

    def e(name, i):
        return a.get(f"{name}[{i}]", Fraction(0))
    left, right = e("delta", s["p"]) * e("x", s["q"]), e("x", s["p"]) * e("delta", s["q"])
    assert left != right and (Fraction(w["lhs"]), Fraction(w["rhs"])) == (left, right)


def test_the_batch_sum_witness_by_fractions(decided):
    """(1/B) Σ_r D[r, p] X[r, q] against Σ_r D[r, p] X[r, q]: B = 2 (at B = 1 they agree)."""
    w = decided["batch-sum-for-mean"]["witness"]
    s, a = _sizes(w), _entries(w)
    assert s["B"] == 2
    total = sum(a.get(f"D[{r}, {s['p']}]", 0) * a.get(f"X[{r}, {s['q']}]", 0)
                for r in range(1, s["B"] + 1))
    assert total != 0
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (total / s["B"], total)


def test_the_batch_cross_entropy_witness_by_fractions(decided):
    """(softmax(X Wᵀ + b) − Y)ᵀX against its mean over the rows: B = 2 (at B = 1 they agree)
    and C = 2 (at C = 1 softmax is 1 and so is each row of Y: both are 0); each row of Y sums
    to 1; the logits are equal within each row, so softmax is 1/C there, exactly."""
    w = decided["batch-cross-entropy-sum-for-mean"]["witness"]
    s, a = _sizes(w), _entries(w)
    assert (s["B"], s["C"], s["n"]) == (2, 2, 1)

    def e(name, *idx):
        return a.get(f"{name}[{', '.join(map(str, idx))}]", Fraction(0))
    total = Fraction(0)
    for r in range(1, s["B"] + 1):
        assert sum(e("Y", r, c) for c in range(1, s["C"] + 1)) == 1
        logits = {e("X", r, 1) * e("W", c, 1) + e("b", c) for c in range(1, s["C"] + 1)}
        assert len(logits) == 1
        total += (Fraction(1, s["C"]) - e("Y", r, s["p"])) * e("X", r, s["q"])
    assert total != 0
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (total / s["B"], total)


def test_the_cross_entropy_witnesses_by_fractions(decided):
    """At C = 1 softmax is 1 and ∂CE/∂z = (Σ_c y_c)·1 − y = 0: against 1 − y without Σy = 1
    (y = 0 shows it), against p = 1 with it (y = 1)."""
    w = decided["cross-entropy-gradient-any-targets"]["witness"]
    y = _entries(w).get("y[1]", Fraction(0))
    assert _sizes(w) == {"C": 1, "p": 1} and y != 1
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (y - y, 1 - y)
    w = decided["cross-entropy-gradient-p"]["witness"]
    assert _sizes(w) == {"C": 1, "p": 1} and _entries(w) == {"y[1]": 1}  # sum(y) = 1 holds
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (0, 1)


def test_the_unbiased_variance_witness_by_fractions(decided):
    """n = 2 (n = 1 divides by n − 1 = 0: no witness): the squares of the two sides, each
    (x_p − μ)²/(v + ε) with v the sum of squares over n − 1 or over n, differ."""
    w = decided["layer-norm-unbiased-variance"]["witness"]
    s, a = _sizes(w), _entries(w)
    assert s["n"] == 2 and a["eps"] > 0
    xs = [a.get(f"x[{k}]", Fraction(0)) for k in (1, 2)]
    mu = sum(xs) / 2
    squares = sum((v - mu) ** 2 for v in xs)
    dev = (xs[s["p"] - 1] - mu) ** 2
    assert dev / (squares / 1 + a["eps"]) != dev / (squares / 2 + a["eps"])


def test_the_attention_witness_is_the_smallest(decided):
    """T = 1 is one score (softmax 1 either way), d = 1 is √d = d: the witness needs both 2."""
    w = decided["attention-scale-d"]["witness"]
    assert {k: v for k, v in _sizes(w).items() if k in "Td"} == {"T": 2, "d": 2}


# ------------------------------------------------- the same verdicts as proofs/ (the kernel's)

def _proofs_here():
    """This tree's proofs/ as a package (derive.proofs may be another tree's install)."""
    name = "_proofs_of_this_tree"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, ROOT / "proofs" / "__init__.py",
            submodule_search_locations=[str(ROOT / "proofs")])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return name


IN_PROOFS = {  # the file's id: the module of proofs/ stating the same identity
    "linear-weight-gradient": "linear_weight_gradient",
    "linear-bias-gradient": "linear_bias_gradient",
    "linear-input-gradient": "linear_input_gradient",
    "linear-weight-gradient-transposed": "linear_weight_gradient_transposed",
    "batch-mean-weight-gradient": "linear_batch_gradient",
    "batch-sum-for-mean": "linear_batch_sum",
    "relu-mask-on-wrong-layer": "relu_mask_wrong_layer",
    "softmax-sums-to-one": "softmax_sums_to_one", "softmax-shift": "softmax_shift",
    "logsumexp-shift": "logsumexp_shift", "logsumexp-gradient": "logsumexp_gradient",
    "cross-entropy-gradient": "cross_entropy_gradient",
    "cross-entropy-gradient-any-targets": "cross_entropy_gradient_any_target",
    "cross-entropy-gradient-p": "cross_entropy_gradient_p",
    "label-smoothing-gradient": "label_smoothing_gradient",
    "relu-backward": "two_layer_relu_delta",
    "layer-norm-mean-zero": "layernorm_mean_zero",
    "layer-norm-gradient-sums-to-zero": "layernorm_gradient_sums_to_zero",
    "layer-norm-affine-gradient-sums-to-zero": "layernorm_affine_gradient_sums_to_zero",
    "layer-norm-unbiased-variance": "layernorm_unbiased",
    "attention-rows-sum-to-one": "attention_rows_sum_to_one",
    "attention-scale-d": "attention_scale_inverse_d",
}


@pytest.mark.parametrize("id_", sorted(IN_PROOFS))
def test_the_verdict_is_that_of_proofs(decided, id_):
    path = ROOT / "proofs" / f"{IN_PROOFS[id_]}.py"
    if not path.exists():
        pytest.skip(f"proofs/{path.name} is not in this tree")
    module = importlib.import_module(f"{_proofs_here()}.{IN_PROOFS[id_]}")
    assert prove(module.STATEMENT).verdict.value == decided[id_]["verdict"]


C, m, n, T, d = (sized.size(s) for s in "CmnTd")


def _layer_norm_reference():
    """The statements proofs/ does not have yet, built here with sized.py's calls."""
    x, g = sized.given("x", n), sized.given("g", n)
    gamma, beta, eps = sized.given("gamma", n), sized.given("beta", n), sized.given("eps")
    Q, K = sized.given("Q", T, d), sized.given("K", T, d)
    zero, one = sized.scalar(sp.S.Zero), sized.scalar(sp.S.One)
    mean = sized.reduce("mean", x, 0)
    unbiased = (x - mean) / sized.scalar(sp.sqrt(sized.reduce(
        "sum", sized.binary("^", x - mean, sized.scalar(sp.Integer(2))), 0).item / (n - 1)
        + eps.item))
    rows = sized.reduce("sum", sized.softmax(Q @ K.T / sized.scalar(sp.sqrt(d))), 1)
    return {
        "layer-norm-mean-zero": (sized.reduce("mean", sized.layer_norm(x), 0), zero, ()),
        "layer-norm-gradient-sums-to-zero": (
            sized.reduce("sum", sized.grad(sized.matmul(g, sized.layer_norm(x)), x), 0),
            zero, ()),
        "layer-norm-affine-gradient-sums-to-zero": (
            sized.reduce("sum", sized.grad(sized.matmul(
                g, sized.layer_norm(x, weight=gamma, bias=beta)), x), 0), zero, ()),
        "layer-norm-unbiased-variance": (unbiased, sized.layer_norm(x, eps.item),
                                         ((eps.item, "eps > 0"),)),
        "attention-rows-sum-to-one": (rows, sized.Sized((T,), lambda i: sp.S.One), ()),
        "attention-scale-d": (sized.softmax(Q @ K.T / sized.scalar(sp.sqrt(d))),
                              sized.softmax(Q @ K.T / sized.scalar(d)), ()),
        "softmax-sums-to-one": (sized.reduce("sum", sized.softmax(sized.given("z", C)), 0),
                                one, ()),
    }


@pytest.mark.parametrize("id_", sorted(_layer_norm_reference()))
def test_the_verdict_is_that_of_the_same_statement_built_with_sized(decided, id_):
    left, right, positives = _layer_norm_reference()[id_]
    lhs, rhs, _, facts = sized.entrywise(left, right)
    s = Statement(id=id_, title="t", expect=Verdict(EXPECTED[id_]), claim="c", assumptions=(),
                  lhs=lhs, rhs=rhs,
                  facts=facts + tuple(positive(e, why) for e, why in positives))
    assert prove(s).verdict.value == decided[id_]["verdict"]


# ------------------------------------------------------- what a formula means, by Fractions

_fractions = st.fractions(min_value=-3, max_value=3, max_denominator=4)


def _names(**shapes):
    out = {}
    for name, shape in shapes.items():
        out[name] = sized.given(name, *shape) if shape else sized.given(name)
    return out


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.data())
def test_linear_layer_formulas_mean_what_the_board_says(rows, cols, data):
    """δ xᵀ, Wᵀ δ and (1/B) Dᵀ X written in the language, at drawn sizes and entries, against
    the same sums in Fraction arithmetic."""
    M, N, B = sized.size("M"), sized.size("N"), sized.size("B")
    names = {**_names(W=(M, N), x=(N,), delta=(M,), X=(B, N), D=(B, M)),
             "B": sized.scalar(B)}
    W = [[data.draw(_fractions) for _ in range(cols)] for _ in range(rows)]
    x = [data.draw(_fractions) for _ in range(cols)]
    delta = [data.draw(_fractions) for _ in range(rows)]
    X = [[data.draw(_fractions) for _ in range(cols)] for _ in range(2)]
    D = [[data.draw(_fractions) for _ in range(rows)] for _ in range(2)]
    values = {"W": W, "x": x, "delta": delta, "X": X, "D": D}
    sizes = {M: rows, N: cols, B: 2}

    def at(text):
        got = sized.concrete(parse_sized(text, names), sizes, values)
        return [[Fraction(str(v)) for v in row] if isinstance(row, list) else Fraction(str(row))
                for row in got]
    assert at("grad(delta @ (W @ x), W)") == [[delta[i] * x[k] for k in range(cols)]
                                              for i in range(rows)]
    assert at("W.T @ delta") == [sum(W[i][k] * delta[i] for i in range(rows))
                                 for k in range(cols)]
    assert at("D.T @ X / B") == [[sum(D[r][i] * X[r][k] for r in range(2)) / 2
                                  for k in range(cols)] for i in range(rows)]


@settings(max_examples=25, deadline=None)
@given(st.lists(_fractions, min_size=1, max_size=4), _fractions)
def test_the_smoothed_target_means_what_torch_says(y, eps):
    """(1 − ε) y + ε/C, C the size, entry by entry in Fractions."""
    names = {**_names(y=(C,), eps=()), "C": sized.scalar(C)}
    got = sized.concrete(parse_sized("(1 - eps) * y + eps / C", names), {C: len(y)},
                         {"y": y, "eps": eps})
    assert [Fraction(str(v)) for v in got] == [(1 - eps) * t + eps / len(y) for t in y]


# ------------------------------------------------------------------------------- refused

TENSOR = {"sizes": ["m", "n"], "tensors": {"W": "(m, n)", "x": "(n,)", "y": "(m,)"}}
CE = {"sizes": ["C"], "tensors": {"z": "(C,)", "y": "(C,)"}}

REFUSED = [  # (file text, "not supported"?, the words of the one line, written by hand)
    (_table(lhs="W @ W", rhs="W", given=TENSOR), False,
     "key 'lhs': \"W @ W\": '@': shapes (m, n) @ (m, n): the inner sizes n and m differ at "
     "column 3; see docs/formulas.md#vectors-and-matrices"),
    (_table(lhs="W @ x", rhs="x", given=TENSOR), False,
     "key 'rhs': has shape (n,) and lhs (m,); write two sides of one shape"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(k,)"}}), False,
     "key 'given.tensors.x': '(k,)': the size k is not declared (sizes: n); add k to sizes"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(n)"}}), False,
     "key 'given.tensors.x': '(n)' is not a shape; a vector's shape is written \"(n,)\", as "
     "torch prints it"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(n m)"}}), False,
     "'(n m)': 'n m' is not a size; write the sizes by name"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "n"}}), False,
     "'n' is not a shape; write it as torch prints one"),
    (_table(lhs="n", rhs="n", given={"sizes": ["n"], "tensors": {"n": "(n,)"}}), False,
     "key 'given.tensors.n': the tensor \"n\" has the name of a size; give the tensor and the "
     "size different names"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(n, n, n, n, n)"}}),
     False, "has 5 dimensions; at most 4"),
    (_table(lhs="x", rhs="x", given={"sizes": list("abcdefghi"), "tensors": {"x": "(a,)"}}),
     False, "key 'given.sizes': has 9 names; at most 8"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n", "n"], "tensors": {"x": "(n,)"}}), False,
     "\"n\" is declared twice"),
    (_table(lhs="x", rhs="x", given={"sizes": ["sum"], "tensors": {"x": "(sum,)"}}), False,
     "key 'given.sizes': \"sum\" is a word of the formula language"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(n,)", "lr": "()",
                                                                  "eta": "()"}}), False,
     "\"eta\" is eta, declared twice"),
    (_table(lhs="x", rhs="x", given={"sizes": ["n"], "tensors": {"x": "(n,)"},
                                     "window": "microbatches"}), False,
     "key 'given.window': is not a key of [statement.given] of a statement over tensors"),
    (_table(lhs="W_{1,2}", rhs="0", given=TENSOR), True,
     "key 'lhs': not supported: \"W_{1,2}\": an entry or a row W_{…} (column 2) is not "
     "supported at symbolic size; a statement is about every entry"),
    (_table(lhs="x[0]", rhs="0", given=TENSOR), True, "is not supported at symbolic size"),
    (_table(lhs="cross_entropy(z, 1)", rhs="0", given=CE), True,
     "cross_entropy with class-index targets of shape () (column 1) is not supported at "
     "symbolic size; write the targets as probabilities of shape (C,)"),
    (_table(lhs="onehot(y, 3)", rhs="y", given=CE), True,
     "onehot of class indices (column 1) is not supported at symbolic size"),
    (_table(lhs="max(z)", rhs="0", given=CE), True, "max(…) (column 1) is not supported at "
     "symbolic size"),
    (_table(lhs="softmax(q)", rhs="z", given=CE), False, "unknown name 'q' (names here: C, y, "
     "z) at column 9"),
    (_table(lhs="z", rhs="z", assumptions=["z"], given=CE), False,
     "key 'assumptions[0]': \"z\" has no comparisons"),
    (_table(lhs="z", rhs="z", assumptions=["W > 0"], given=CE), False,
     "key 'assumptions[0]': \"W > 0\": unknown name 'W'"),
    (_table(lhs="z", rhs="z", assumptions=["z >= W @ z"],
            given={"sizes": ["m", "n", "C"], "tensors": {"W": "(m, n)", "z": "(C,)"}}), False,
     "key 'assumptions[0]': \"z >= W @ z\": '@': shapes (m, n) @ (C,): the inner sizes n and "
     "C differ at column 8"),
    (_table(lhs="z", rhs="z", assumptions=["z > 0", "z < 0"], given=CE), False,
     "cannot hold together"),
    (_table(lhs="z", rhs="z", given=CE, search="microbatches"), False,
     "key 'search': is a search of the microbatches window"),
]


@pytest.mark.parametrize("text,unsupported,words", REFUSED, ids=[r[2][:40] for r in REFUSED])
def test_refused_with_one_line_and_exit_2(tmp_path, text, unsupported, words):
    path = _file(tmp_path, text)
    code, out, err = run("prove", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"derive prove: {path}: statement 'x': "), err
    assert words in err, err
    assert ("not supported" in err) == unsupported, err
    assert "Traceback" not in err and "Dummy" not in err and "_k" not in err


# ------------------------------------------------------------------------------- hostile

PIECES = ["z", "y", "W", "x", "eps", "C", "n", "@", "+", "-", "*", "/", "^", "(", ")", ",",
          ".T", "ᵀ", "softmax(", "sum(", "mean(", "grad(", "logsumexp(", "layer_norm(",
          "cross_entropy(", "outer(", "relu(", "exp(", "log(", "sqrt(", "dim=", "-1", "0", "1",
          "2", "_{1}", "[0]", ">", "label_smoothing=", "onehot(", "max(", "√", "|", "=", "'",
          "\\", "\u0000", "1e999", "δ", "W^{(1)}"]
SHAPES = ["(C,)", "(C,)", "(C,)", "(n, C)", "(C, n)", "(n, C)", "()", "(C)", "(n,n)", "(x,)", "((C,),)", "(1, C)", "(17,)", "C,",
          "(C, C, C, C)", "", "(,)", "(C,,)"]


FORMULAS = ["z", "y", "softmax(z)", "z - y", "sum(z)", "W @ x", "x @ W", "eps * z",
            "logsumexp(z)", "grad(sum(z * z), z)", "z + eps", "relu(z) * (z > 0)", "W.T", "1",
            "mean(W, dim=0)", "layer_norm(z)", "cross_entropy(z, y)", "outer(x, z)"]
_SOUP = st.lists(st.sampled_from(PIECES), min_size=1, max_size=7).map("".join)
_SIDES = st.one_of(_SOUP, st.sampled_from(FORMULAS),
                   st.tuples(st.sampled_from(FORMULAS), st.sampled_from(PIECES)).map("".join))


@settings(max_examples=80, deadline=None)
@given(_SIDES, _SIDES,
       st.sampled_from(SHAPES), st.sampled_from(SHAPES),
       st.lists(st.one_of(*[st.sampled_from(["sum(y) = 1", "z != 0", "eps > 0", "y >= 0"])] * 3,
                          st.lists(st.sampled_from(PIECES + ["!=", ">=", "= 1"]), min_size=1,
                                   max_size=4).map("".join)), max_size=2),
       st.sampled_from(["proved", "refuted"]))
def test_any_tensor_statement_is_decided_or_refused_in_one_line(lhs, rhs, zs, ws, facts,
                                                                expect):
    text = _table(expect=expect, lhs=lhs, rhs=rhs, assumptions=facts,
                  given={"sizes": ["C", "n"], "tensors": {"z": zs, "y": "(C,)", "W": ws,
                                                          "x": "(n,)", "eps": "()"}})
    with tempfile.TemporaryDirectory() as folder:
        code, out, err = run("prove", "--no-cache", _file(Path(folder), text))
    assert "internal error" not in err and "Traceback" not in err
    event(f"exit {code}")
    if code == 2:
        assert out == "" and err.count("\n") == 1, err
    else:
        assert code in (0, 1) and err == "" and " statement: " in out, (code, err)


def test_the_file_is_read_by_load_statements():
    """The statements carry the sides as written, for the exports, and their declarations."""
    by_id = {s.id: s for s in load_statements(FILE)}
    s = by_id["cross-entropy-gradient"]
    assert s.written == ("grad(cross_entropy(z, y), z)", "softmax(z) - y")
    assert dict(s.names) == {"C": (), "z": ("C",), "y": ("C",)}
    assert s.sizes == ("C",) and s.indices == ("1 ≤ p ≤ C",)



# ------------------------------------------------------------------------------- exports

@pytest.fixture(scope="module")
def exported() -> dict[str, str]:
    out = {}
    for fmt in ("md", "tex"):
        for lang in ("en", "zh"):
            code, text, err = run("export", str(FILE), "--format", fmt, "--lang", lang,
                                  *(["--standalone"] if fmt == "tex" else []))
            assert code == 0 and err == "", err
            out[f"{fmt} {lang}"] = text
    return out


WRITTEN = {  # each side as the lecture writes it, by hand
    "relu-backward": r"\left(W_{2}^{\top} \delta_{2}\right) \odot \mathbf{1}\left[z_{1} > 0\right]",
    "batch-mean-weight-gradient": r"\frac{D^{\top} X}{B}",
    "linear-input-gradient": r"W^{\top} \delta",
    "attention-scale-d": r"\operatorname{softmax}\left(\frac{Q K^{\top}}{d}\right)",
    "label-smoothing-gradient": r"\left(1 - \varepsilon\right) \cdot y + \frac{\varepsilon}{C}",
}


@pytest.mark.parametrize("id_", sorted(WRITTEN))
def test_the_export_writes_the_formula_as_the_lecturer_wrote_it(exported, id_):
    for lang in ("en", "zh"):
        md = exported[f"md {lang}"]
        section = md[md.index(f"## {id_} — "):]
        assert WRITTEN[id_] in section.split("\n## ", 1)[0], (lang, section[:600])


def test_the_export_shows_sizes_entries_and_the_witness(exported):
    en, zh = exported["md en"], exported["md zh"]
    assert "- Sizes (any positive integers): m, n" in en and "- 维数(任意正整数): m, n" in zh
    section = en[en.index("## linear-weight-gradient-transposed — "):].split("\n## ", 1)[0]
    assert "Witness: n = 2, p = 1, q = 2" in section
    assert r"\delta_{1} = 0, \delta_{2} = 1, x_{1} = 1, x_{2} = 0: \quad 0 \neq 1" in section
    assert "## cross-entropy-gradient — 目标 y 之和为 1 时 ∂CE/∂z = softmax(z) − y" in zh
    assert "Sum(" not in en and "Derivative(" not in en and "_k" not in en


def test_every_math_span_of_the_exports_renders_with_katex(exported):
    from test_export import katex_failures, math_spans

    spans = [s for lang in ("en", "zh") for s in math_spans(exported[f"md {lang}"], lang)]
    assert len(spans) >= 2 * 22
    failures = katex_failures(spans)
    assert not failures, failures[:3]


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_the_export_compiles(exported, tmp_path, lang, engine):
    from test_export import compile_tex

    compile_tex(exported[f"tex {lang}"], engine, tmp_path)


HOSTILE = "<img src=x onerror=alert(1)> $\\input{/etc/passwd}$ & % _ # ~ ^ {"


@pytest.mark.parametrize("lang,engine", [("en", "pdflatex"), ("zh", "xelatex")])
def test_author_strings_are_escaped_in_the_export(tmp_path, lang, engine):
    from test_export import compile_tex, katex_failures, math_spans

    text = _table(title=HOSTILE, title_zh=HOSTILE, lhs="softmax(z + a)", rhs="softmax(z)",
                  assumptions=["a >= 0"],
                  given={"sizes": ["C"], "tensors": {"z": "(C,)", "a": "()"}})
    path = _file(tmp_path, text)
    code, md, err = run("export", path, "--format", "md", "--lang", lang)
    assert code == 0 and err == ""
    assert "<img" not in md and "\\input" not in md.replace("\\\\input", "")
    assert not katex_failures(math_spans(md, lang))
    code, tex, err = run("export", path, "--format", "tex", "--lang", lang, "--standalone")
    assert code == 0 and err == "" and "\\input{/etc" not in tex
    compile_tex(tex, engine, tmp_path)


def test_a_scalar_statements_title_is_escaped_in_the_export(tmp_path):
    """derive export FILE.toml takes the scalar statements of a file too: its title is the
    author's, escaped."""
    path = _file(tmp_path, _table(title=HOSTILE, lhs="2*eta", rhs="eta + eta"))
    code, md, err = run("export", path, "--format", "md")
    assert code == 0 and err == "" and "<img" not in md and "&lt;img" in md


# --------------------------------------------------------- adversarial: false, never proved

FALSE = {  # (lhs, rhs, given, assumptions): each false for some sizes and entries, by hand
    "softmax-wrong-axis": ("sum(softmax(Z, dim=0), dim=-1)", "1",
                           {"sizes": ["B", "C"], "tensors": {"Z": "(B, C)"}}, []),
    "attention-columns": ("sum(softmax(Q @ K.T / sqrt(d)), dim=0)", "1",
                          {"sizes": ["T", "d"], "tensors": {"Q": "(T, d)", "K": "(T, d)"}}, []),
    "mean-over-every-entry": ("grad(mean(D * (X @ W.T)), W)", "D.T @ X / B",
                              {"sizes": ["B", "m", "n"], "tensors": {
                                  "W": "(m, n)", "X": "(B, n)", "D": "(B, m)"}}, []),
    "batch-off-by-one": ("grad(sum(D * (X @ W.T)) / B, W)", "D.T @ X / (B + 1)",
                         {"sizes": ["B", "m", "n"], "tensors": {
                             "W": "(m, n)", "X": "(B, n)", "D": "(B, m)"}}, []),
    "shift-by-the-entries": ("softmax(z + a * z)", "softmax(z)",
                             {"sizes": ["C"], "tensors": {"z": "(C,)", "a": "()"}}, []),
    "logsumexp-sign": ("logsumexp(z)", "m + logsumexp(z + m)",
                       {"sizes": ["C"], "tensors": {"z": "(C,)", "m": "()"}}, []),
    "logsumexp-gradient-exp": ("grad(logsumexp(z), z)", "exp(z)",
                               {"sizes": ["C"], "tensors": {"z": "(C,)"}}, []),
    "smoothing-without-uniform": ("grad(cross_entropy(z, y, label_smoothing=eps), z)",
                                  "softmax(z) - (1 - eps) * y",
                                  {"sizes": ["C"], "tensors": {"z": "(C,)", "y": "(C,)",
                                                               "eps": "()"}},
                                  ["sum(y) = 1", "eps > 0", "eps <= 1"]),
    "layer-norm-weight-mean": ("mean(layer_norm(x, weight=gamma))", "0",
                               {"sizes": ["n"], "tensors": {"x": "(n,)", "gamma": "(n,)"}}, []),
    "layer-norm-gradient-sum-g": ("sum(grad(g @ layer_norm(x), x))", "sum(g)",
                                  {"sizes": ["n"], "tensors": {"x": "(n,)", "g": "(n,)"}}, []),
    "outer-swapped": ("outer(delta, x)", "outer(x, delta)",
                      {"sizes": ["n"], "tensors": {"x": "(n,)", "delta": "(n,)"}}, []),
    "input-gradient-untransposed": ("grad(delta @ (W @ x), x)", "W @ delta",
                                    {"sizes": ["n"], "tensors": {"W": "(n, n)", "x": "(n,)",
                                                                 "delta": "(n,)"}}, []),
    "mean-by-n-minus-1": ("mean(x)", "sum(x) / (n - 1)",
                          {"sizes": ["n"], "tensors": {"x": "(n,)"}}, []),
    "cross-entropy-y-signed": ("grad(cross_entropy(z, y), z)", "softmax(z) - y",
                               {"sizes": ["C"], "tensors": {"z": "(C,)", "y": "(C,)"}},
                               ["sum(y) >= 1"]),
}


def test_no_false_tensor_statement_is_proved(tmp_path):
    text = "".join(_table(id_, "refuted", lhs=lhs, rhs=rhs, given=g,
                          **({"assumptions": facts} if facts else {}))
                   for id_, (lhs, rhs, g, facts) in FALSE.items())
    code, out, err = run("prove", "--no-cache", "--format", "json", _file(tmp_path, text))
    assert err == "" and code in (0, 1), err
    verdicts = {r["id"]: r["verdict"] for r in json.loads(out)["statements"]}
    assert set(verdicts) == set(FALSE)
    assert "proved" not in verdicts.values(), verdicts
    refuted = sum(v == "refuted" for v in verdicts.values())
    assert refuted >= 12, verdicts  # measured: 14 of 14 refuted, none unknown


# ------------------------------------------------- every witness confirmed by torch float64

def _torch_sides(id_: str, s: dict, a: dict):
    """The two sides at the witness, written as a student writes them in torch (autograd for
    a gradient); an entry the witness leaves out is 0."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional

    def t(name, *shape, grad=False):
        out = torch.zeros(shape, dtype=torch.float64)
        for key, v in a.items():
            m = re.fullmatch(rf"{name}\[([0-9, ]+)\]", key)
            if m:
                out[tuple(int(k) - 1 for k in m.group(1).split(","))] = float(v)
            elif key == name and not shape:
                out = torch.tensor(float(v), dtype=torch.float64)
        return out.requires_grad_(grad)

    p, q = s.get("p", 1) - 1, s.get("q", 1) - 1
    if id_ == "linear-weight-gradient-transposed":
        n = s["n"]
        W, x, b, delta = t("W", n, n, grad=True), t("x", n), t("b", n), t("delta", n)
        (delta @ (W @ x + b)).backward()
        return W.grad[p, q], torch.outer(x, delta)[p, q]
    if id_ == "batch-sum-for-mean":
        B, m, n = s["B"], s["m"], s["n"]
        W, X, b, D = t("W", m, n, grad=True), t("X", B, n), t("b", m), t("D", B, m)
        ((D * (X @ W.T + b)).sum() / B).backward()
        return W.grad[p, q], (D.T @ X)[p, q]
    if id_ == "relu-mask-on-wrong-layer":
        h, m = s["h"], s["m"]
        W2, b2, z1, d2 = t("W2", m, h), t("b2", m), t("z1", h, grad=True), t("delta2", m)
        out = W2 @ torch.relu(z1) + b2
        (d2 @ out).backward()
        return z1.grad[p], (W2.T @ (d2 * (out > 0)))[p]
    if id_ in ("cross-entropy-gradient-any-targets", "cross-entropy-gradient-p"):
        C = s["C"]
        z, y = t("z", C, grad=True), t("y", C)
        F.cross_entropy(z, y).backward()
        p_ = torch.softmax(z, -1)
        return z.grad[p], (p_ - y if id_.endswith("targets") else p_)[p]
    if id_ == "batch-cross-entropy-sum-for-mean":
        B, C, n = s["B"], s["C"], s["n"]
        X, W, b, Y = t("X", B, n), t("W", C, n, grad=True), t("b", C), t("Y", B, C)
        logits = X @ W.T + b
        F.cross_entropy(logits, Y).backward()  # probability targets, mean over the rows
        return W.grad[p, q], ((torch.softmax(logits, -1) - Y).T @ X)[p, q]
    if id_ == "layer-norm-unbiased-variance":
        n = s["n"]
        x, eps = t("x", n), t("eps")
        unbiased = (x - x.mean()) / torch.sqrt(x.var(unbiased=True) + eps)
        return unbiased[p], F.layer_norm(x, (n,), eps=float(eps))[p]
    if id_ == "attention-scale-d":
        T, d = s["T"], s["d"]
        Q, K = t("Q", T, d), t("K", T, d)
        return (torch.softmax(Q @ K.T / d ** 0.5, -1)[p, q],
                torch.softmax(Q @ K.T / d, -1)[p, q])
    raise AssertionError(id_)


@pytest.mark.parametrize("id_", sorted(i for i, e in EXPECTED.items() if e == "refuted"))
def test_torch_confirms_the_witness(decided, id_):
    w = decided[id_]["witness"]
    left, right = (float(v.detach()) for v in _torch_sides(id_, _sizes(w), _entries(w)))
    assert abs(left - right) > 1e-9
    for side, exact in ((left, w["lhs"]), (right, w["rhs"])):
        if re.fullmatch(r"-?\d+(/\d+)?", exact):
            assert side == pytest.approx(float(Fraction(exact)), abs=1e-12)


# ---------------------------------------------------------------------------- row facts

def test_a_keyword_inside_a_call_is_not_a_comparison(tmp_path):
    """sum(Y, dim=1) = 1 is one equation (each row of Y sums to 1), not two comparisons: the
    per-row fact is read; without it the batch gradient is refuted at B = C = 1."""
    given_ = {"sizes": ["B", "C"], "tensors": {"Z": "(B, C)", "Y": "(B, C)"}}
    text = (_table("rows", "refuted", lhs="grad(cross_entropy(Z, Y), Z)", rhs="softmax(Z) / B",
                   assumptions=["sum(Y, dim=1) = 1"], given=given_)
            + _table("none", "refuted", lhs="grad(cross_entropy(Z, Y), Z)",
                     rhs="(softmax(Z) - Y) / B", given=given_))
    code, out, err = run("prove", "--no-cache", "--format", "json", _file(tmp_path, text))
    assert err == "" and code == 0, (code, err)
    rows, none = json.loads(out)["statements"]
    assert rows["verdict"] == "refuted"
    assert none["verdict"] == "refuted"
    assert _sizes(none["witness"]) == {"B": 1, "C": 1, "p": 1, "q": 1}
    assert any(f["reason"] == "sum(Y, dim=1) = 1" for f in rows["facts"]), rows["facts"]


def test_two_comparisons_outside_brackets_are_still_refused(tmp_path):
    given_ = {"sizes": ["C"], "tensors": {"y": "(C,)"}}
    text = _table("two", lhs="sum(y)", rhs="1", assumptions=["0 <= sum(y) <= 1"], given=given_)
    code, _, err = run("prove", "--no-cache", _file(tmp_path, text))
    assert code == 2 and "has 2 comparisons" in err, err


def test_an_equation_on_a_tensor_holds_entry_by_entry(tmp_path):
    """z = 0 on a tensor is every entry 0 (it was refused as not supported): sum(z) = 1 is
    refuted with a witness that keeps it, and sum(z) = 0 is never refuted (the kernel does not
    yet substitute an every-entry equality into a Σ: unknown)."""
    given_ = {"sizes": ["C"], "tensors": {"z": "(C,)"}}
    text = (_table("zero", lhs="sum(z)", rhs="0", assumptions=["z = 0"], given=given_)
            + _table("one", "refuted", lhs="sum(z)", rhs="1", assumptions=["z = 0"],
                     given=given_))
    code, out, err = run("prove", "--no-cache", "--format", "json", _file(tmp_path, text))
    zero, one = json.loads(out)["statements"]
    assert zero["verdict"] != "refuted", (zero, err)
    assert one["verdict"] == "refuted", (one, err)
    assert one["witness"]["assignment"] == {"z[1]": "0"}, one["witness"]
