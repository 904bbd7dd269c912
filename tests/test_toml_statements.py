"""Statements in TOML (`derive prove FILE.toml`, issue 13 item 6): A2 and mean-of-means written
as [[statement]] tables get the verdicts and the witness of proofs/; every malformed table is one
line and exit 2 ("not supported" said as such); random valid tables are decided without an
internal error, each verdict checked by Fraction arithmetic independent of derive."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises.statements import load_statements
from derive.model import objective

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "statements.toml"
CONTRACT_FIELDS = {"id", "title", "expect", "verdict", "witness", "seconds"}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def prove_json(*argv: str) -> tuple[int, dict[str, dict]]:
    code, out, err = run("prove", "--format", "json", *argv)
    assert err == ""
    return code, {r["id"]: r for r in json.loads(out)["statements"]}


# ---------------------------------------------------------------------------- acceptance

def test_a2_and_mean_of_means_as_toml_get_the_verdicts_and_witness_of_proofs():
    code, toml = prove_json(str(EXAMPLE))
    assert code == 0
    code, py = prove_json("A2", "mean-of-means")
    assert code == 0
    for rec in (*toml.values(), *py.values()):
        assert CONTRACT_FIELDS <= set(rec) and set(rec) == set(py["A2"])
    assert toml["a2-line1-toml"]["verdict"] == toml["a2-line2-toml"]["verdict"] == "proved"
    assert py["A2"]["verdict"] == "proved"
    assert toml["mean-of-means-toml"]["verdict"] == py["mean-of-means"]["verdict"] == "refuted"
    assert toml["mean-of-means-toml"]["witness"] == py["mean-of-means"]["witness"]


def test_the_witness_is_the_lessons_window_checked_by_fractions():
    """n = (1, 2) on the lesson's model: (1/K) Σ_k mean gradient of B_k against the mean
    gradient of all records, each record's gradient (w·x − y)·x, in Fraction arithmetic."""
    _, toml = prove_json(str(EXAMPLE))
    w = toml["mean-of-means-toml"]["witness"]
    assert w["shape"] == "n = (1, 2)"
    a = {k: Fraction(v) for k, v in w["assignment"].items()}
    grads = [(a["w"] * a[f"x_{i}"] - a[f"y_{i}"]) * a[f"x_{i}"] for i in (1, 2, 3)]
    blocks = [grads[:1], grads[1:]]
    mean_of_means = sum(sum(b) / len(b) for b in blocks) / len(blocks)
    batch = sum(grads) / len(grads)
    assert mean_of_means != batch
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (mean_of_means, batch)


def test_the_toml_sides_are_the_models_own_expressions():
    """The file's formulas build objective.py's A2, so the kernel proves the same claim."""
    line1, line2, mm = load_statements(EXAMPLE)
    k, i = sp.Symbol("k", integer=True), sp.Symbol("i", integer=True)
    n, N, K, ell, theta = objective.n, objective.N, objective.K, objective.ell, objective.theta
    block = sp.Sum(ell(i, theta), (i, objective.boundary(k - 1) + 1, objective.boundary(k)))
    grad_l = sp.Derivative(sp.Sum(ell(i, theta), (i, 1, N)) / N, theta)
    assert line1.lhs == line2.lhs == mm.rhs == grad_l
    assert line1.rhs == sp.Sum(n(k) / N * sp.Derivative(block / n(k), theta), (k, 1, K))
    assert line2.rhs == sp.Sum(sp.Derivative(block, theta), (k, 1, K)) / N
    assert mm.lhs == sp.Sum(sp.Derivative(block / n(k), theta), (k, 1, K)) / K
    assert line1.facts == () and line1.notes  # n_k ≥ 1 is the window's, noted


def test_text_output_and_exit_codes():
    code, out, err = run("prove", str(EXAMPLE))
    assert code == 0 and err == ""
    assert re.search(r"mean-of-means-toml +refuted +refuted", out)
    assert "witness: n = (1, 2); w=0, x_1=0, y_1=0, x_2=0, y_2=0, x_3=1, y_3=1: lhs=-1/4 ≠ " \
           "rhs=-1/3" in out
    assert out.rstrip().endswith("all as expected")


def _file(tmp_path: Path, text: str, name: str = "s.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


HEAD = 'id = "{id}"\ntitle = "t"\nexpect = "{expect}"\n'


def _table(id_="x", expect="proved", **keys) -> str:
    lines = ["[[statement]]", HEAD.format(id=id_, expect=expect).rstrip()]
    given = keys.pop("given", None)
    for key, value in keys.items():
        lines.append(f"{key} = {json.dumps(value, ensure_ascii=False)}")
    if given is not None:
        lines.append("[statement.given]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in given.items()]
    return "\n".join(lines) + "\n"


def test_a_statement_not_as_expected_exits_1(tmp_path):
    text = _table("wrong", "proved", lhs="sum_k(d(mean_{i in B_k}(ell_i(θ)))/d(θ)) / K",
                  rhs="d(mean_i(ell_i(θ)))/d(θ)", search="microbatches",
                  given={"window": "microbatches", "functions": ["ell"]})
    code, out, _ = run("prove", _file(tmp_path, text))
    assert code == 1 and "expected proved, got refuted" in out and "NOT as expected" in out


def test_assumptions_are_facts():
    """|η| = η is proved given η > 0 and refuted (at η = −1) without it."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(_table("with-fact", lhs="|η|", rhs="eta", assumptions=["eta > 0"])
                        + _table("without-fact", "refuted", lhs="|η|", rhs="eta")
                        + _table("with-reversed", lhs="abs(eta)", rhs="eta",
                                 assumptions=["0 < eta"]), encoding="utf-8")
        code, recs = prove_json(str(path))
    assert code == 0
    assert recs["with-fact"]["verdict"] == recs["with-reversed"]["verdict"] == "proved"
    assert recs["with-fact"]["facts"][0]["fact"] == "eta > 0"
    assert recs["without-fact"]["witness"]["assignment"] == {"eta": "-1"}


# ------------------------------------------------------------------------------- refused

WINDOW = {"window": "microbatches", "functions": ["ell"]}
A2 = dict(lhs="d(mean_i(ell_i(θ)))/d(θ)", rhs="sum_k(d(sum_{i in B_k}(ell_i(θ)))/d(θ)) / N",
          given=WINDOW)

REFUSED = [  # (file text, "not supported"?, words the one line holds)
    (_table("x", titel="t", **A2), False, "key 'titel': is not a key of a [[statement]] table; "
     "did you mean 'title'?"),
    (_table("Bad_Id", **A2), False, "statement '#1': key 'id': is \"Bad_Id\""),
    (_table("x", "unknown", **A2), False, "is \"unknown\", which is never a success"),
    (_table("x", "maybe", **A2), False, "key 'expect': is \"maybe\""),
    (_table("x", rhs="1"), False, "key 'lhs': is missing"),
    (_table("x", lhs="(θ - 1)^", rhs="1"), False,
     "key 'lhs': \"(θ - 1)^\": expected an operand at column 9"),
    (_table("x", lhs="f(θ)", rhs="1"), True, "key 'lhs': not supported: \"f(θ)\": the function "
     "'f' (column 1) is not supported"),
    (_table("x", lhs="ell_i(θ)", rhs="1"), True, "is not supported "
     "(docs/formulas.md#functions lists the language's); declare it in [statement.given]: "
     "functions = [\"ell\"]"),
    (_table("x", lhs="2^100000", rhs="1"), True, "not supported"),
    (_table("x", search="partitions", **A2), False,
     "key 'search': is \"partitions\", not a known search; known searches: microbatches"),
    (_table("x", lhs="eta", rhs="eta", search="microbatches"), False,
     "interprets the microbatches window; add window = \"microbatches\""),
    (_table("x", lhs="θ", rhs="θ", given={"window": "microbatch"}), False,
     "key 'given.window': is \"microbatch\", not a known window; did you mean 'microbatches'?"),
    (_table("x", **A2).replace('functions = ["ell"]', 'functions = ["ell"]\nassumptions = []'),
     False, "key 'given.assumptions': is a key of the [[statement]] table, not of "
     "[statement.given]; write assumptions before the [statement.given] header"),
    (_table("x", assumptions=["x_i >= 0"], lhs="w", rhs="w"), True,
     "an assumption about every i"),
    (_table("x", assumptions=["eta = 1"], lhs="eta", rhs="1"), True,
     "an equation as an assumption"),
    (_table("x", assumptions=["1 > 2"], lhs="eta", rhs="1"), False, "which is false"),
    (_table("x", assumptions=["eta > 0", "eta < 0"], lhs="eta", rhs="1"), False,
     "the facts 'eta > 0', 'eta < 0' cannot hold together"),
    # red team 6: contradictions that need a linear combination of facts
    (_table("x", assumptions=["a > b", "b > c", "c > a"], lhs="|a - b| + |b - c| + |c - a|",
            rhs="0"), False, "the facts 'a > b', 'b > c', 'c > a' cannot hold together"),
    (_table("x", assumptions=["w >= 2", "w <= 1"], lhs="w", rhs="w + 1"), False,
     "the facts 'w >= 2', 'w <= 1' cannot hold together"),
    (_table("x", assumptions=["w >= 2", "eta > 0", "2*w + 1 <= 3"], lhs="w", rhs="w"), False,
     "the facts 'w >= 2', '2*w + 1 <= 3' cannot hold together"),
    (_table("x", assumptions=["x*y > 0", "x > 0", "y < 0"], lhs="|x*y|", rhs="x*y"), False,
     "the facts 'x*y > 0', 'x > 0', 'y < 0' cannot hold together"),
    (_table("x", assumptions=["N > 5", "w > 0", "N < 3"], lhs="n_1", rhs="N", given=WINDOW),
     False, "the facts 'N > 5', 'N < 3' cannot hold together in the window"),
    # red team 5: N = Σ_k n_k ≥ K ≥ 1 in the window
    (_table("x", assumptions=["N < 1"], lhs="n_1", rhs="N", given=WINDOW), False,
     "the fact 'N < 1' cannot hold in the window (K, n_k >= 1)"),
    (_table("x", assumptions=["N < K"], lhs="n_1", rhs="N", given=WINDOW), False,
     "the fact 'N < K' cannot hold in the window"),
    # red team 4: the free index i of x_i is the i of an assumption, and ranges over 1…N
    (_table("x", assumptions=["i > N"], lhs="x_i", rhs="x_1"), False,
     "the facts '1 <= i <= N', 'i > N' cannot hold together"),
    # red team 19: said in the file's own words, not SymPy's (x[1] > 0, -Abs(w) > 0)
    (_table("x", assumptions=["x_1 > 0", "x_1 < 0"], lhs="w", rhs="w"), False,
     "the facts 'x_1 > 0', 'x_1 < 0' cannot hold together: every claim would follow from them;"
     " state facts that can hold together"),
    (_table("x", assumptions=["|w| < 0"], lhs="w", rhs="w"), False,
     "the fact '|w| < 0' cannot hold for any values of its symbols"),
    (_table("x", assumptions=["eta"], lhs="eta", rhs="1"), False, "has no comparisons"),
    (_table("x", assumptions=["(eta > 0"], lhs="eta", rhs="1"), False,
     "key 'assumptions[0]': \"(eta > 0\": expected ')' at column 6"),
    (_table("x", assumptions=["eta > (0"], lhs="eta", rhs="1"), False,
     "expected ')' at column 9"),
    (_table("x", assumptions="eta > 0", lhs="eta", rhs="1"), False,
     "key 'assumptions': is text"),
    (_table("x", lhs="θ", rhs="θ", given={"functions": ["sum"]}), False,
     "\"sum\" is a word of the formula language"),
    (_table("x", lhs="θ", rhs="θ", given={"functions": ["n"], "window": "microbatches"}),
     False, "\"n\" is used by the window"),
    (_table("x", lhs="θ", rhs="θ") + _table("x", lhs="θ", rhs="θ"), False,
     "statement 'x': key 'id': is also the id of an earlier statement in this file"),
    ("[[statements]]\nid = \"x\"\n", False,
     "key 'statements': is not a top-level key of a statement file; did you mean 'statement'?"),
    ("[[statement]]\nid = \"x\"\nexpect = \"proved\"\nlhs = \"1\"\nrhs = \"1\"\n", False,
     "key 'title': is missing"),
    (_table("x", lhs="1", rhs="1", title_zh="a\nb").replace('title = "t"\n', ""), False,
     "key 'title'"),
    ((ROOT / "docs" / "examples" / "accumulation.toml").read_text(encoding="utf-8"), False,
     "holds no [[statement]] table (its [[exercise]] tables are for `derive check`)"),
    ("[[statement]]\nid = \"x\"\ntitle = 1e999\n", False, "title"),
    ("[[statement]\n", False, "is not valid TOML"),
]


@pytest.mark.parametrize("text,unsupported,words", REFUSED, ids=[r[2][:40] for r in REFUSED])
def test_refused_with_one_line_and_exit_2(tmp_path, text, unsupported, words):
    path = _file(tmp_path, text)
    code, out, err = run("prove", path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"derive prove: {path}: "), err
    assert words in err, err
    assert ("not supported" in err) == unsupported, err
    assert not re.search(r"\b[A-Za-z]\[\d|Abs\(|Sum\(|Error:", err), err  # no SymPy or Python forms


def test_missing_file_and_duplicates_across_arguments(tmp_path):
    code, out, err = run("prove", str(tmp_path / "none.toml"))
    assert code == 2 and "none.toml: does not exist" in err and out == ""
    code, out, err = run("prove", str(EXAMPLE), str(EXAMPLE))
    assert code == 2 and "is also a statement of" in err and out == ""
    code, out, err = run("prove", str(tmp_path))
    assert code == 2 and "is a folder with no *.toml file" in err


def test_a_folder_takes_the_files_that_hold_statements(tmp_path):
    (tmp_path / "s.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "e.toml").write_text((ROOT / "docs" / "examples" / "accumulation.toml")
                                     .read_text(encoding="utf-8"), encoding="utf-8")
    code, recs = prove_json(str(tmp_path))
    assert code == 0 and set(recs) == {"a2-line1-toml", "a2-line2-toml", "mean-of-means-toml"}


def test_check_takes_the_exercises_and_prove_the_statements_of_one_file(tmp_path):
    mixed = EXAMPLE.read_text(encoding="utf-8") + "\n" + (
        ROOT / "docs" / "examples" / "sgd_step.toml").read_text(encoding="utf-8")
    path = _file(tmp_path, mixed, "mixed.toml")
    code, recs = prove_json(path)
    assert code == 0 and len(recs) == 3
    code, out, err = run("check", path)
    assert code == 1 and err == "" and "\n1 exercise, 3 claims" in out  # its wrong claims
    only = _file(tmp_path, EXAMPLE.read_text(encoding="utf-8"), "only.toml")
    code, out, err = run("check", only)
    assert code == 2 and "holds [[statement]] tables and no [[exercise]] table" in err
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "only.toml").write_text(EXAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "ex.toml").write_text((ROOT / "docs" / "examples" / "sgd_step.toml")
                                    .read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = run("check", str(folder))
    assert code == 1 and err == "" and "\n1 exercise, 3 claims" in out  # its wrong claims


# ------------------------------------------------------------------------------ properties

NAMES = ["w", "x", "y"]
LEAVES = st.one_of(st.sampled_from(NAMES), st.integers(0, 5).map(str))


def _tree(children):
    binary = st.tuples(children, st.sampled_from(["+", "-", "*"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    power = st.tuples(children, st.integers(0, 3)).map(lambda t: f"({t[0]})^{t[1]}")
    return st.one_of(binary, power)


POLYNOMIALS = st.recursive(LEAVES, _tree, max_leaves=6)


def _fraction_value(text: str, values: dict[str, Fraction]) -> Fraction:
    """A polynomial formula of the generated subset, evaluated in Fraction arithmetic by its
    own small reader (independent of derive's parser and kernel)."""
    tokens = re.findall(r"[a-z]+|\d+|[()+\-*^]", text)
    pos = 0

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def expr():
        out = term()
        while peek() in ("+", "-"):
            out = out + term() if take() == "+" else out - term()
        return out

    def term():
        out = power()
        while peek() == "*":
            take()
            out = out * power()
        return out

    def power():
        base = atom()
        if peek() == "^":
            take()
            return base ** int(take())
        return base

    def atom():
        tok = take()
        if tok == "(":
            e = expr()
            take()
            return e
        return Fraction(int(tok)) if tok.isdigit() else values[tok]

    return expr()


@settings(max_examples=40, deadline=None)
@given(POLYNOMIALS, POLYNOMIALS, st.sampled_from(["proved", "refuted"]), st.randoms())
def test_random_valid_tables_get_honest_verdicts(lhs, rhs, expect, rnd: random.Random):
    """Any valid table is decided (exit 0 or 1, never 2, never an internal error); `proved`
    sides agree at random points and a `refuted` witness makes them differ, in Fractions."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(_table("random", expect, lhs=lhs, rhs=rhs), encoding="utf-8")
        code, out, err = run("prove", "--format", "json", str(path))
    assert err == "" and code in (0, 1)
    (rec,) = json.loads(out)["statements"]
    assert CONTRACT_FIELDS <= set(rec)
    assert code == (0 if rec["verdict"] == expect else 1)
    if rec["verdict"] == "proved":
        for _ in range(5):
            point = {n: Fraction(rnd.randint(-20, 20), rnd.randint(1, 9)) for n in NAMES}
            assert _fraction_value(lhs, point) == _fraction_value(rhs, point)
    elif rec["verdict"] == "refuted":
        point = {n: Fraction(0) for n in NAMES}
        point.update({n: Fraction(v) for n, v in rec["witness"]["assignment"].items()})
        left, right = _fraction_value(lhs, point), _fraction_value(rhs, point)
        assert left != right
        assert (Fraction(rec["witness"]["lhs"]), Fraction(rec["witness"]["rhs"])) == (left, right)
    else:  # polynomials are always decided
        pytest.fail(f"unknown for a polynomial claim: {rec['detail']}")


VALID = {"id": '"ok"', "title": '"t"', "expect": '"proved"', "lhs": json.dumps(A2["lhs"]),
         "rhs": json.dumps(A2["rhs"]), "assumptions": '["n_k >= 1"]'}
JUNK = st.one_of(st.integers(-10**30, 10**30).map(str), st.sampled_from(
    ["true", "[]", "{}", '""', '"x"', "1.5", "nan", "inf", '["a", 1]', '"(("', '"x!"',
     '"eval(1)"', '"__import__"', '"d(θ)/d(2)"', '"sum_{i in Z_k}(i)"', '"9^9^9^9"',
     '"\\u0000"', "[[1]]", "{ a = 1 }"]),
    st.text(max_size=20).map(json.dumps))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(VALID) + ["given.window", "given.functions", "search", "extra",
                                        "given.extra"]), JUNK)
def test_malformed_tables_are_one_line_and_exit_2(key, junk):
    """A valid A2 table with one key replaced by junk (or an unknown key added): either still
    valid (then decided: exit 0 or 1) or refused with exit 2 and one line naming the file."""
    top = dict(VALID)
    given_ = {"window": '"microbatches"', "functions": '["ell"]'}
    if key.startswith("given."):
        given_[key[6:]] = junk
    else:
        top[key] = junk
    text = "[[statement]]\n" + "".join(f"{k} = {v}\n" for k, v in top.items()) + \
        "[statement.given]\n" + "".join(f"{k} = {v}\n" for k, v in given_.items())
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(text, encoding="utf-8")
        code, out, err = run("prove", str(path))
    assert "internal error" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1 and err.startswith(f"derive prove: {path}")
    else:
        assert code in (0, 1) and err == ""


def test_the_docs_show_the_bundled_example():
    """docs/writing-statements.md shows docs/examples/statements.toml as it is."""
    page = (ROOT / "docs" / "writing-statements.md").read_text(encoding="utf-8")
    shown = page.split("<!-- file: statements.toml -->\n```toml\n", 1)[1].split("\n```", 1)[0]
    assert shown.strip() == EXAMPLE.read_text(encoding="utf-8").strip()



CLASSES = {  # formulas on the microbatch window, grouped by the value they denote
    "batch gradient": ["d(mean_i(ell_i(θ)))/d(θ)", "mean_i(d(ell_i(θ))/d(θ))",
                       "sum_k(n_k/N * d(mean_{i in B_k}(ell_i(θ)))/d(θ))",
                       "sum_k(d(sum_{i in B_k}(ell_i(θ)))/d(θ)) / N",
                       "sum_k(n_k * d(mean_{i ∈ B_k}(ℓ_i(θ)))/d(θ)) / N"],
    "mean of means": ["sum_k(d(mean_{i in B_k}(ell_i(θ)))/d(θ)) / K",
                      "mean_k(d(mean_{i in B_k}(ell_i(θ)))/d(θ))"],
    "undivided sum": ["sum_k(d(sum_{i in B_k}(ell_i(θ)))/d(θ))", "d(sum_i(ell_i(θ)))/d(θ)"],
}
WINDOW_FORMULAS = [(c, f) for c, fs in CLASSES.items() for f in fs]


def _class_value(name: str, sizes: tuple[int, ...], a: dict[str, Fraction]) -> Fraction:
    """The class's value on the lesson's model at a witness, in Fractions: record gradients
    (w·x_i − y_i)·x_i grouped into blocks of the given sizes."""
    grads = [(a["w"] * a[f"x_{i}"] - a[f"y_{i}"]) * a[f"x_{i}"] for i in range(1, sum(sizes) + 1)]
    ends = [sum(sizes[:m]) for m in range(len(sizes) + 1)]
    blocks = [grads[ends[m]:ends[m + 1]] for m in range(len(sizes))]
    return {"batch gradient": sum(grads) / len(grads),
            "mean of means": sum(sum(b) / len(b) for b in blocks) / len(blocks),
            "undivided sum": sum(grads)}[name]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(WINDOW_FORMULAS), st.sampled_from(WINDOW_FORMULAS),
       st.sampled_from(["proved", "refuted"]), st.booleans(),
       st.lists(st.sampled_from(["n_k >= 1", "K >= 1", "N > 0", "theta != 7"]), max_size=2))
def test_random_window_statements_get_honest_verdicts(left, right, expect, search, facts):
    """Statements on the microbatch window from formulas of known value: `proved` only for
    two formulas of one value, `refuted` only for two of different values, and a witness of
    the lesson's window shows both values, recomputed in Fractions."""
    (lclass, lhs), (rclass, rhs) = left, right
    keys = dict(lhs=lhs, rhs=rhs, assumptions=facts, given=WINDOW)
    if search:
        keys["search"] = "microbatches"
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(_table("window", expect, **keys), encoding="utf-8")
        code, out, err = run("prove", "--format", "json", str(path))
    assert err == "" and code == (0 if json.loads(out)["statements"][0]["verdict"] == expect
                                  else 1)
    (rec,) = json.loads(out)["statements"]
    assert rec["verdict"] != "proved" or lclass == rclass
    assert rec["verdict"] != "refuted" or lclass != rclass
    if lclass == rclass:
        assert rec["verdict"] == "proved", rec["detail"]
    w = rec["witness"]
    if rec["verdict"] == "refuted" and w["shape"].startswith("n = "):
        sizes = tuple(int(s) for s in re.findall(r"\d+", w["shape"]))
        a = {k: Fraction(v) for k, v in w["assignment"].items()}
        assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (
            _class_value(lclass, sizes, a), _class_value(rclass, sizes, a))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(
    ["[[statement]]\n", "[statement.given]\n", 'id = "a"\n', 'title = "t"\n',
     'expect = "proved"\n', 'expect = "refuted"\n', 'lhs = "θ"\n', 'rhs = "2*θ"\n',
     'window = "microbatches"\n', 'functions = ["ell"]\n', 'search = "microbatches"\n',
     'assumptions = ["eta > 0"]\n', "[[exercise]]\n", 'lhs = "sum_{i in B_k}(ell_i(θ))"\n',
     "x = 1\n", "[statement]\n", '"\n', "=\n"]), max_size=14).map("".join))
def test_any_file_of_statement_pieces_is_decided_or_refused_in_one_line(text):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(text, encoding="utf-8")
        code, out, err = run("prove", str(path))
    assert "internal error" not in err and "Traceback" not in err
    if code == 2:
        assert out == "" and err.count("\n") == 1
    else:
        assert code in (0, 1) and err == "" and "statement" in out


# ------------------------------------------------------- red-team repros (false verdicts)

def _decided(tmp_path, **tables) -> dict[str, dict]:
    text = "".join(_table(id_, expect, **keys) for id_, (expect, keys) in tables.items())
    code, out, err = run("prove", "--format", "json", _file(tmp_path, text))
    assert err == "" and code in (0, 1), err
    return {r["id"]: r for r in json.loads(out)["statements"]}


def _shape(witness: dict) -> dict[str, int]:
    """'N = 2, i = 2' → {"N": 2, "i": 2}: the integer values a witness's shape gives."""
    return {m[0]: int(m[1]) for m in re.findall(r"\b([A-Za-z])\s*=\s*(-?\d+)\b",
                                                witness["shape"])}


SIZE_IN_SUBSCRIPT = {  # a size (N, T) in a subscript is the sum's own bound: all identities
    "telescoping": dict(lhs="sum_i(x_{i+1} - x_i)", rhs="x_{N+1} - x_1"),
    "reversed-sum": dict(lhs="sum_i(x_i)", rhs="sum_i(x_{N+1-i})"),
    "telescoping-steps": dict(lhs="sum_t(w_t - w_{t-1})", rhs="w_T - w_0"),
    "size-as-letter": dict(lhs="sum_i(x_{i+1} - x_i)", rhs="x_{N+1} - x_1 + x_N - x_N"),
}


@pytest.mark.parametrize("id_", sorted(SIZE_IN_SUBSCRIPT))
def test_a_size_in_a_subscript_is_the_sums_own_size(tmp_path, id_):
    """Red team 4: N in x_{N+1} was a second symbol N, refuted with "N = 0, N = 1"."""
    rec = _decided(tmp_path, **{id_: ("proved", SIZE_IN_SUBSCRIPT[id_])})[id_]
    assert rec["verdict"] == "proved", rec


def test_the_windows_n_in_a_subscript_is_the_windows_n(tmp_path):
    """The window's N = Σ_k n_k in x_{N+1-i} kept K but as another symbol K, and the true
    reversed sum was refuted ("K = 0, K = 1"); it is now never refuted (the kernel does not yet
    prove it). Held by the parser (one N) and by the statement (one symbol per name)."""
    rec = _decided(tmp_path, rev=("proved", dict(lhs="sum_i(x_{N+1-i})", rhs="sum_i(x_i)",
                                                given=WINDOW)))["rev"]
    assert rec["verdict"] in ("proved", "unknown"), rec


def test_a_free_index_ranges_over_its_family(tmp_path):
    """Red team 4: x_i = x_1 with i free was refuted at i = 0, with x_0, a record that does not
    exist; i now ranges over 1…N, and the witness is checked here by hand."""
    rec = _decided(tmp_path, free=("refuted", dict(lhs="x_i", rhs="x_1")))["free"]
    assert rec["verdict"] == "refuted"
    w = rec["witness"]
    size = _shape(w)
    assert 1 <= size["i"] <= size["N"]
    x = {int(k[2:-1]): Fraction(v) for k, v in w["assignment"].items()}
    assert set(x) <= set(range(1, size["N"] + 1))
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (x[size["i"]], x[1]) and x[size["i"]] != x[1]
    assert rec["facts"][0]["reason"] == "1 <= i <= N"


def test_a_witness_keeps_the_windows_sizes(tmp_path):
    """Red team 5: n_1 = N given N − n_1 ≤ 0 holds (it forces K = 1) but was refuted with
    "K = 2, n(·) = −1", outside n_k ≥ 1. Now never refuted; and a free k with a witness takes
    1 ≤ k ≤ K and sizes n ≥ 1, checked here."""
    recs = _decided(
        tmp_path,
        one=("proved", dict(lhs="n_1", rhs="N", assumptions=["N - n_1 <= 0"], given=WINDOW)),
        free=("refuted", dict(lhs="n_k", rhs="n_1", given=WINDOW)))
    assert recs["one"]["verdict"] in ("proved", "unknown"), recs["one"]
    w = recs["free"]["witness"]
    assert recs["free"]["verdict"] == "refuted"
    size = _shape(w)
    assert 1 <= size["k"] <= size["K"]
    assert "n(k) = k for k ≥ 1, 1 for k ≤ 0" in w["shape"]
    ramp = {k: max(k, 1) for k in range(-3, 8)}
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (ramp[size["k"]], ramp[1])


LETTERS = ["a", "b", "c"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=3, max_size=3),
                          st.integers(-3, 3), st.sampled_from([">=", ">", "<=", "<"])),
                min_size=1, max_size=6),
       st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=4), min_size=3,
                max_size=3))
def test_facts_that_hold_at_a_point_are_never_called_contradictory(rows, point):
    """Linear facts made true at a point (each comparison's side chosen by Fraction
    arithmetic at that point) can hold together: derive must decide, never refuse them."""
    facts = []
    for coeffs, const, op in rows:
        value = sum(c * p for c, p in zip(coeffs, point)) + const
        holds = {">=": value >= 0, ">": value > 0, "<=": value <= 0, "<": value < 0}[op]
        if not holds:
            op = {">=": "<", ">": "<=", "<=": ">", "<": ">="}[op]
        left = " + ".join(f"({c})*{x}" for c, x in zip(coeffs, LETTERS))
        facts.append(f"{left} + ({const}) {op} 0")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(_table("consistent", lhs="a + b", rhs="b + a", assumptions=facts),
                        encoding="utf-8")
        code, out, err = run("prove", str(path))
    assert code == 0 and err == "", (facts, err)


@pytest.mark.parametrize("length", [2, 3, 5])
def test_an_order_cycle_is_refused(tmp_path, length):
    """v1 > v2 > … > vn > v1: no values satisfy it (sum the differences: 0 > 0)."""
    names = [f"v{m}" for m in range(1, length + 1)]
    facts = [f"{a} > {b}" for a, b in zip(names, names[1:] + names[:1])]
    code, out, err = run("prove", _file(tmp_path, _table("cycle", lhs="v1", rhs="v2",
                                                           assumptions=facts)))
    assert code == 2 and "cannot hold together" in err and all(f"'{f}'" in err for f in facts)


def test_a_derivative_of_a_kink_is_decided_without_an_internal_error(tmp_path):
    """Red team 19: d(|w|)/d(w) = w/|w| (true wherever both sides are defined, w ≠ 0) printed
    "got unknown: ValueError: Can't calculate derivative wrt 0." (the case w = 0 put 0 for
    the derivative's variable). It is never refuted, and no step fails inside the kernel."""
    recs = _decided(tmp_path, kink=("proved", dict(lhs="d(|w|)/d(w)", rhs="w/|w|")),
                    kink2=("proved", dict(lhs="d(|w - 1|)/d(w)", rhs="(w - 1)/|w - 1|")))
    for rec in recs.values():
        assert rec["verdict"] in ("proved", "unknown"), rec
        assert rec["strategy"] != "internal limit" and "Error" not in (rec["detail"] or ""), rec


# ------------------------------------------------- index letters as integers (issue 22)

INDEX_LETTERS = {  # truth by hand, the index ranging over the integers 1…N (1…K, 1…T)
    "even-power-i": ("proved", dict(lhs="(-1)^(2*i)", rhs="1")),
    "even-power-k": ("proved", dict(lhs="(-1)^(2*k)", rhs="1")),
    "even-power-t": ("proved", dict(lhs="(-1)^(2*t)", rhs="1")),
    "even-power-window-k": ("proved", dict(lhs="(-1)^(2*k)", rhs="1", given=WINDOW)),
    "even-power-window-i": ("proved", dict(lhs="(-1)^(2*i)", rhs="1", given=WINDOW)),
    "square": ("proved", dict(lhs="(-1)^i*(-1)^i", rhs="1")),
    "shift": ("proved", dict(lhs="(-1)^(i+1)", rhs="-(-1)^i")),
    "odd": ("proved", dict(lhs="(-1)^(2*i+1)", rhs="-1")),
    "two-apart": ("proved", dict(lhs="(-1)^i*(-1)^(i+2)", rhs="1")),
    "thrice": ("proved", dict(lhs="(-1)^(3*t)", rhs="(-1)^t")),
    "member-and-letter": ("proved", dict(lhs="x_i*(-1)^(2*i)", rhs="x_i")),
    "first-step": ("proved", dict(lhs="min(t, 1)", rhs="1")),            # t ≥ 1
    "fact-bound": ("proved", dict(lhs="max(i, 2)", rhs="i", assumptions=["i > 3/2"])),
    "pinned": ("proved", dict(lhs="x_i", rhs="x_N", assumptions=["i >= N"])),
    "alternating": ("refuted", dict(lhs="(-1)^i", rhs="1")),              # i = 1
    "below-two": ("refuted", dict(lhs="max(i, 2)", rhs="i")),             # i = 1
    # a letter some derivative is taken by is a real variable: false at t = 1/2
    "derivative-variable": ("refuted", dict(lhs="d(t^2)/d(t)*(-1)^(2*t)", rhs="2*t")),
}


def test_index_letters_are_the_integers_of_their_family(tmp_path):
    """Red team (issue 22): (−1)^(2i) = 1 was refuted at i = 1/2, though i stands for a
    record; now every index letter free in a claim, bare or in an exponent, is an integer
    1 ≤ i ≤ N. Each witness is checked here by hand."""
    recs = _decided(tmp_path, **INDEX_LETTERS)
    for id_, (expect, _) in INDEX_LETTERS.items():
        assert recs[id_]["verdict"] == expect, recs[id_]
    sign = {n: (1 if n % 2 == 0 else -1) for n in range(-50, 51)}
    w = recs["alternating"]["witness"]
    i_, n_ = Fraction(w["assignment"]["i"]), Fraction(w["assignment"]["N"])
    assert i_.denominator == 1 and 1 <= i_ <= n_
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (sign[int(i_)], 1) and sign[int(i_)] != 1
    w = recs["below-two"]["witness"]
    i_, n_ = Fraction(w["assignment"]["i"]), Fraction(w["assignment"]["N"])
    assert i_.denominator == 1 and 1 <= i_ <= n_
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (max(i_, 2), i_) and i_ < 2
    w = recs["derivative-variable"]["witness"]
    t_ = Fraction(w["assignment"]["t"])
    assert (2 * t_).denominator == 1 and t_.denominator != 1  # no member: a real t
    assert (Fraction(w["lhs"]), Fraction(w["rhs"])) == (2 * t_ * sign[int(2 * t_)], 2 * t_)
    assert set(recs["pinned"]["facts_used"]) == {"1 <= i <= N", "i >= N"}
    assert recs["fact-bound"]["facts_used"] == ["i > 3/2"]
    for id_ in ("alternating", "even-power-t", "first-step"):
        assert recs[id_]["notes"][0].startswith("the free index ")


def test_assumptions_about_sizes_and_indices(tmp_path):
    """A size (N, T, the window's N) in an assumption is one value, not "every value of" an
    index: `N >= 2` with a claim that does not name N is a fact. A bare index letter in an
    assumption is the claim's index (here pinned by two facts, so an integer contradiction is
    found: 3/2 < i < 2 holds for no integer), or, not in the claim, refused like x_i."""
    recs = _decided(
        tmp_path,
        size=("proved", dict(lhs="w", rhs="w", assumptions=["N >= 2"])),
        steps=("proved", dict(lhs="w", rhs="w", assumptions=["T >= 2"])),
        window=("proved", dict(lhs="w", rhs="w", assumptions=["N >= 2"], given=WINDOW)))
    assert {r["verdict"] for r in recs.values()} == {"proved"}
    code, _, err = run("prove", _file(tmp_path, _table("x", lhs="w", rhs="w",
                                                       assumptions=["i > 0"])))
    assert code == 2 and "an assumption about every i" in err
    code, _, err = run("prove", _file(tmp_path, _table("x", lhs="max(i, 2)", rhs="i",
                                                       assumptions=["i > 3/2", "i < 2"])))
    assert code == 2 and "the facts 'i > 3/2', 'i < 2' cannot hold together" in err, err
