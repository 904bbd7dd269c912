"""Red-team repros on claims of irrational values (/tmp/rt/01…16): a claim is `exact` only
when equality is proved, `wrong` only when the values are shown to differ, and values far
beyond what enclosures reach end within bounds with one line naming the quantity. Expected
values come from mpmath at 60 digits and from hand-written reasoning, never from derive."""

from __future__ import annotations

import json
import time
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from derive.cli.main import main
from derive.kernel import intervals
from derive.kernel.exact import coprime_base, decimal_str, is_zero_exact


def run(tmp_path, capsys, text: str, *argv: str):
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    code = main([argv[0], str(path), *argv[1:]])
    out, err = capsys.readouterr()
    return code, out, err


def statuses(out: str) -> dict:
    doc = json.loads(out)
    return {c["name"]: c["status"] for c in doc["exercises"][0]["claims"]}


def formulas(given: str, define: str, claims: str = "") -> str:
    return ('[[exercise]]\nid = "x"\nrecipe = "formulas"\n[exercise.given]\n' + given +
            "\n[exercise.define]\n" + define + "\n[exercise.claims]\n" + claims + "\n")


# ------------------------------------------------------------- 01: identities of logs are exact

def test_log_identities_are_exact(tmp_path, capsys):  # /tmp/rt/01_log_identity.toml
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 4", 'bits = "log(w)/log(2)"\nnats = "log(w^2) - 2*log(w)"',
        'bits = "2"\nnats = "0"'), "check", "--format", "json")
    assert code == 0 and statuses(out) == {"bits": "exact", "nats": "exact"}


def test_log_identity_with_abs_zero(tmp_path, capsys):  # /tmp/rt/01b_log_identity_abs0.toml
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 4", 'nats = "log(w^2) - 2*log(w)"', 'nats = { value = "0", abs = 0 }'),
        "check", "--format", "json")
    assert code == 0 and statuses(out) == {"nats": "exact"}


def test_near_log_identity_is_wrong_not_exact(tmp_path, capsys):
    # log 6 − log 2 − log 3 = 0, but log 6 − log 2 − log 3 + 10^−40 is not
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 6", 'a = "log(w) - log(2) - log(3)"\nb = "log(w) - log(2) - log(3) + 1e-30"',
        'a = "0"\nb = "0"'), "check", "--format", "json")
    assert statuses(out) == {"a": "exact", "b": "wrong"}


@pytest.mark.parametrize("expr, zero", [
    ("log(16) - 2*log(4)", True),
    ("log(6) - log(2) - log(3)", True),
    ("log(Rational(9, 4)) - 2*log(3) + 2*log(2)", True),
    ("log(12)**2 - (2*log(2) + log(3))**2", True),
    ("log(4)/log(2) - 2", True),
    ("log(8)/log(4) - Rational(3, 2)", True),
    ("log(6)*log(6) - log(2)*log(3)", None),   # not zero: enclosure says so → False
    ("log(2) + log(3) - log(5)", False),
])
def test_zero_over_a_coprime_base_of_logs(expr, zero):
    value = sp.sympify(expr, evaluate=True)
    got = is_zero_exact(value)
    assert got is (zero if zero is not None else False)


def test_coprime_base():
    base = coprime_base([12, 18, 35])
    assert sorted(base) == [2, 3, 35]  # 35 shares no factor with 12 or 18: kept whole
    for b in base:
        assert all(b == c or sp.gcd(b, c) == 1 for c in base)


# --------------------------------------------- 07: magnitudes far beyond, bounded in time

def test_exp_of_a_billion_key_is_bounded(tmp_path, capsys):  # /tmp/rt/07_exp_huge_key.toml
    start = time.process_time()  # CPU time, as the bound counts
    code, out, err = run(tmp_path, capsys, formulas("w = 1e9", 'a = "exp(w)"'),
                         "key", "--time-limit", "5", "--format", "json")
    assert time.process_time() - start < 10
    assert code == 0, err
    mpmath.mp.dps = 40
    m = mpmath.exp(10**9)
    e = int(mpmath.floor(mpmath.log10(m)))
    digits = mpmath.nint(m / mpmath.mpf(10) ** (e - 14))
    assert f"{str(int(digits))[0]}.{str(int(digits))[1:].rstrip('0')}e{e}" in out


def test_exp_of_minus_a_billion_claim(tmp_path, capsys):  # /tmp/rt/07b_exp_claim_hang.toml
    start = time.process_time()  # CPU time, as the bound counts
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 1e9", 'a = "exp(-w)"', 'a = { value = "0", abs = 1e-30 }'),
        "check", "--time-limit", "5", "--format", "json")
    assert time.process_time() - start < 10
    assert statuses(out) == {"a": "within"}


@pytest.mark.parametrize("claim, status", [
    ('"5"', "wrong"),                          # exp(10⁹) > 5, certified
    ('{ value = "5", places = 2 }', "wrong"),  # at least 0.01 apart
    ('{ value = "8.0e30", sig = 2 }', "wrong"),
])
def test_huge_values_are_decided_without_their_digits(tmp_path, capsys, claim, status):
    code, out, _ = run(tmp_path, capsys, formulas("w = 1e9", 'a = "exp(w)"', f"a = {claim}"),
                       "check", "--time-limit", "5", "--format", "json")
    assert statuses(out) == {"a": status}


def test_no_certified_decimal_names_the_quantity(tmp_path, capsys):
    # the fuzzer's logistic exercise with a bias of ∓10³⁰: exp of an argument beyond 2^64
    text = formulas("w = 1\nb = -1e30\nrecords = [[2, 1], [1, 0]]",
                    'p = "1/(1+exp(-(w*x_i+b)))"')
    code, out, err = run(tmp_path, capsys, text, "check")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "ex.toml: exercise 'x': key 'define.p': not supported:" in err
    assert "certified decimal" in err


# ------------------------------------------ 16: certified digits only, scientific when large

def test_exp_60_shows_only_certified_digits(tmp_path, capsys):  # /tmp/rt/16_exp_decimal.toml
    mpmath.mp.dps = 60
    true = mpmath.exp(60)  # 114200738981568428366295718.31…
    assert str(true).startswith("114200738981568428366295718.3")
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 60", 'a = "exp(w)"', 'a = { value = "114200738981568428366295700", abs = 1 }'),
        "check")
    assert "1.14200738981568e26" in out and "114200738981568000" not in out
    assert "wrong" in out
    code, out, _ = run(tmp_path, capsys, formulas(
        "w = 60", 'a = "exp(w)"', 'a = { value = "114200738981568428366295718", abs = 1 }'),
        "check", "--format", "json")
    assert statuses(out) == {"a": "within"}


@pytest.mark.parametrize("n", [60, 100, 10000, -60, -10000])
def test_decimal_of_exp_against_mpmath(n):
    mpmath.mp.dps = 60
    text = decimal_str(sp.exp(n), 15)
    ref = mpmath.exp(n)
    e = int(mpmath.floor(mpmath.log10(ref)))
    m = int(mpmath.nint(ref / mpmath.mpf(10) ** (e - 14)))
    assert text == f"{str(m)[0]}.{str(m)[1:].rstrip('0')}e{e}"


def test_moderate_irrationals_keep_their_decimal():
    assert decimal_str(sp.sqrt(2), 15) == "1.41421356237310"[:16].rstrip("0")
    assert decimal_str(sp.exp(10), 15) == "22026.4657948067"


def test_sig_parts_against_mpmath():
    mpmath.mp.dps = 60
    for x, ref in [(sp.exp(10**9), mpmath.exp(10**9)), (sp.exp(-10**9), mpmath.exp(-10**9)),
                   (sp.log(3) ** 50, mpmath.log(3) ** 50)]:
        m, e = intervals.sig_parts(x, 12)
        assert abs(mpmath.mpf(m) * mpmath.mpf(10) ** e - ref) <= \
            mpmath.mpf(10) ** e / 2 * (1 + mpmath.mpf(10) ** -40)


def test_a_list_with_one_wrong_element_is_wrong(monkeypatch):
    from derive.exercises import claims

    answers = iter(["undecided", "wrong"])
    monkeypatch.setattr(claims, "_scalar", lambda c, e: next(answers))
    claim = claims.Claim([claims.literal("1"), claims.literal("2")], "[1, 2]")
    assert claims.judge(claim, [sp.Integer(1), sp.Integer(3)]) == "wrong"


# --------------------------------------------------- 12: a list claim that keeps a sum over i

SGD_TWO = ('[[exercise]]\nid = "s"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.05\n'
           'records = [[2, 4], [1, 3]]\n[exercise.claims]\n')


def test_list_formula_with_a_sum_over_its_own_index(tmp_path, capsys):
    # /tmp/rt/12_list_claim_sum.toml: prediction_i = w·x_i, the claim subtracts mean(y)
    code, out, err = run(tmp_path, capsys, SGD_TWO +
                         'prediction = { formula = "w*x_i - mean_i(y_i)" }\n',
                         "check", "--format", "json")
    assert code == 1, err
    claim = json.loads(out)["exercises"][0]["claims"][0]
    assert claim["status"] == "wrong"
    w = {k: Fraction(v) for k, v in claim["diagnosis"]["witness"].items()}
    m = int(w["member"])
    ys = [w.get(f"y_{k}", Fraction(0)) for k in (1, 2)]
    x, weight = w.get(f"x_{m}", Fraction(0)), w.get("w", Fraction(0))
    assert w["claimed"] == weight * x - sum(ys) / 2     # the claim, by hand at the witness
    assert w["expected"] == weight * x                  # prediction_m = w·x_m
    assert w["claimed"] != w["expected"]


def test_list_formula_with_a_cancelling_sum_is_equivalent(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys, SGD_TWO +
                         'prediction = { formula = "w*x_i + mean_i(y_i) - sum_i(y_i)/N" }\n',
                         "check", "--format", "json")
    assert statuses(out) == {"prediction": "equivalent"}, err


# ------------------------------------ 17: a key's formula pasted back as a claim is equivalent

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]

DECAY = '''[[exercise]]
id = "decay-paste"
recipe = "formulas"
[exercise.given]
w = 1
lr = 0.1
lambda = 0.01
microbatches = [[[1, 2], [3, 6]], [[2, 5]]]
[exercise.define]
ell = "(w*x_i - y_i)^2/2"
mb_loss = "mean_{i in B_k}(ell_i)"
accumulated = "sum_k(n_k/N * grad(mb_loss_k, w))"
gradient = "accumulated + λ*w"

[[exercise]]
id = "sgd-warmup-paste"
recipe = "formulas"
[exercise.given]
w0 = 1
lr = 0.1
warmup = 2
steps = 3
records = [[1, 2], [3, 6]]
[exercise.define]
rate = "lr*min(1, t/warmup)"
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
w = { formula = "w_{t-1} - rate_t*g_t", start = "w0" }
'''


def _exercise_chunks(text: str) -> list[str]:
    """Each [[exercise]] of a file as its own text, without its claims table."""
    import re

    out = []
    for part in re.split(r"(?m)^\[\[exercise\]\]\s*$", text)[1:]:
        lines, skip = [], False
        for line in part.splitlines():
            if re.match(r"^\s*\[", line):
                skip = line.strip() == "[exercise.claims]"
            if not skip:
                lines.append(line)
        out.append("[[exercise]]" + "\n".join(lines) + "\n")
    return out


def _paste_back(tmp_path, capsys, text: str) -> list[tuple[str, str, str]]:
    """(exercise, quantity, status) of each key formula written back as a formula claim."""
    out = []
    for chunk in _exercise_chunks(text):
        code, key, err = run(tmp_path, capsys, chunk, "key", "--format", "json")
        assert code == 0, err
        ex = json.loads(key)["exercises"][0]
        for name, q in ex["quantities"].items():
            if q.get("formula"):
                claim = f"[exercise.claims]\n{name} = {{ formula = {json.dumps(q['formula'])} }}\n"
                code, doc, err = run(tmp_path, capsys, chunk + claim, "check", "--format",
                                     "json")
                assert doc, f"{ex['id']}.{name}: {q['formula']!r} not read back: {err}"
                out.append((ex["id"], name, statuses(doc)[name]))
    return out


@pytest.mark.parametrize("source", ["docs/examples/formulas.toml", "proofs/course/lesson03.toml",
                                    "proofs/course/reading.toml", "proofs/course/variants.toml",
                                    "decay"])
def test_key_formulas_paste_back(tmp_path, capsys, source):
    text = DECAY if source == "decay" else (ROOT / source).read_text(encoding="utf-8")
    pasted = _paste_back(tmp_path, capsys, text)
    assert pasted
    assert [p for p in pasted if p[2] != "equivalent"] == []


def test_lambda_and_the_step_index_print_as_the_language_reads_them(tmp_path, capsys):
    code, key, err = run(tmp_path, capsys, DECAY, "key", "--format", "json")
    forms = {ex["id"]: {n: q["formula"] for n, q in ex["quantities"].items()}
             for ex in json.loads(key)["exercises"]}
    assert forms["decay-paste"]["gradient"].startswith("lambda*w + ")
    assert forms["sgd-warmup-paste"]["rate"] == "eta*min(1, t/warmup)"


# ------------------------------------------------- 18: valid but unsupported, never "invalid"

BLOCKS = '''[[exercise]]
id = "block-claim"
recipe = "formulas"
[exercise.given]
w = 1
microbatches = [[[1, 2], [3, 6]], [[2, 5]]]
[exercise.define]
ell = "(w*x_i - y_i)^2/2"
mb_loss = "mean_{i in B_k}(ell_i)"
[exercise.claims]
'''


@pytest.mark.parametrize("formula, status", [
    ("mean_{i in B_k}((w*x_i - y_i)^2/2)", "equivalent"),   # /tmp/rt/18_invalid_vs_unsupported
    ("sum_{i in B_k}((w*x_i - y_i)^2/2)/n_k", "equivalent"),
    ("mean_{i in B_k}((w*x_i - y_i)^2)", "wrong"),           # twice the value
])
def test_block_means_in_a_formula_answer(tmp_path, capsys, formula, status):
    code, out, err = run(tmp_path, capsys, BLOCKS + f'mb_loss = {{ formula = "{formula}" }}\n',
                         "check", "--format", "json")
    assert statuses(out) == {"mb_loss": status}, err


def test_block_mean_for_a_builtin_recipe_is_not_supported(tmp_path, capsys):
    text = ('[[exercise]]\nid = "acc"\nrecipe = "accumulation"\n[exercise.given]\nw = 1\n'
            'lr = 0.1\nmicrobatches = [[[1, 2], [3, 6]], [[2, 5]]]\n[exercise.claims]\n'
            'gradient = { formula = "sum_k(n_k/N*mean_{i in B_k}((w*x_i - y_i)*x_i))" }\n')
    code, out, err = run(tmp_path, capsys, text, "check")
    assert code == 2 and err.count("\n") == 1
    assert "key 'claims.gradient.formula': not supported:" in err and "unknown" not in err


LIST_R = ('[[exercise]]\nid = "r"\nrecipe = "formulas"\n[exercise.given]\nw = 1\n'
          'records = [[1, 2], [3, 6]]\n[exercise.define]\nr = "w*x_i - y_i"\n'
          'L = "mean_i(r_i)"\n[exercise.claims]\n')


def test_a_list_claim_may_use_its_index_as_a_value(tmp_path, capsys):
    # r_i = w·x_i − y_i; the claim adds i: wrong, and the witness says so (by hand: +1 at i = 1)
    code, out, err = run(tmp_path, capsys, LIST_R + 'r = { formula = "w*x_i - y_i + i" }\n',
                         "check", "--format", "json")
    claim = json.loads(out)["exercises"][0]["claims"][0]
    w = {k: Fraction(v) for k, v in claim["diagnosis"]["witness"].items()}
    assert claim["status"] == "wrong"
    assert w["claimed"] - w["expected"] == int(w["member"])
    code, out, err = run(tmp_path, capsys, LIST_R + 'r = { formula = "w*x_i - y_i + i - i" }\n',
                         "check", "--format", "json")
    assert statuses(out) == {"r": "equivalent"}


def test_a_bare_index_in_a_scalar_claim_names_its_own_column(tmp_path, capsys):
    code, out, err = run(tmp_path, capsys,
                         LIST_R + 'L = { formula = "mean_i(w*x_i - y_i) + i" }\n', "check")
    assert code == 2
    assert "'i' at column 23 is an index written as a value, but L is a number" in err


# ------------------------------------- [exercise.require] decided exactly, never structurally

def test_require_conditions_decide_exactly():
    from derive.exercises.variation import Condition

    zero = sp.Add(sp.log(16), -2 * sp.log(4), evaluate=False)   # exactly 0, written otherwise
    assert not Condition("nonzero").holds(zero, {})
    assert not Condition("positive").holds(zero, {})
    assert Condition("positive").holds(sp.log(3) - 1, {})         # 0.0986…, certified
    assert Condition("negative").holds(1 - sp.sqrt(3), {})
    assert not Condition("differs", "a").holds(zero, {"a": sp.Integer(0)})
    assert Condition("differs", "a").holds(sp.log(3), {"a": sp.Integer(1)})
    assert Condition("differs", "a").holds([sp.Integer(1)], {"a": [sp.Integer(1), 2]})


# ----------------------------------- variants write irrational keys the reader reads back

def test_variant_claims_of_large_irrationals(tmp_path, capsys):
    text = ('[[exercise]]\nid = "big"\nrecipe = "formulas"\n[exercise.given]\nw = 60\n'
            '[exercise.define]\na = "exp(w)"\n[exercise.vary]\nw = { choices = [W] }\n')
    code, out, err = run(tmp_path, capsys, text.replace("W", "60, 61"), "variants", "-n", "2",
                         "-o", str(tmp_path / "out"))
    assert code == 0, err
    written = sorted((tmp_path / "out").glob("*.toml"))
    code = main(["check", *map(str, written), "--format", "json"])
    doc = json.loads(capsys.readouterr()[0])
    assert code == 0 and all(c["status"] == "within" for e in doc["exercises"]
                             for c in e["claims"])
    # exp(200) ≈ 7.2e86: no claim can write it (60 digits, exponents within ±30)
    code, out, err = run(tmp_path, capsys, text.replace("W", "200, 201"), "variants", "-n", "2",
                         "-o", str(tmp_path / "out2"))
    assert code == 2 and err.count("\n") == 1
    assert "exercise 'big': key 'claims.a': not supported:" in err


def test_scientific_decimals_in_latex():
    from derive.render.numbers import approx_latex, latex_text

    assert approx_latex(sp.exp(60)) == r"\approx 1.142007 \times 10^{26}"
    assert approx_latex(sp.exp(-60)) == r"\approx 8.756511 \times 10^{-27}"
    assert approx_latex(sp.sqrt(2)) == r"\approx 1.414214"
    big = sp.Add(*[sp.exp(60 + k) for k in range(30)])  # long: shown by its decimal
    assert latex_text(big).startswith(r"\approx ") and r"\times 10^{" in latex_text(big)


def test_a_difference_beyond_every_enclosure_is_undecided_not_wrong(tmp_path, capsys):
    # p = 1/(1 + exp(−(w·x + 10³⁰))) differs from 1 by about 10^(−4.3·10²⁹): no enclosure
    # shows it, and SymPy's evalf-based "nonzero" is a float, so "1" is undecided, never wrong;
    # 6 places are certified (p lies in [1 − 2^−64, 1])
    text = formulas("w = 1\nb = 1e30\nrecords = [[2, 1], [1, 0]]",
                    'p = "1/(1+exp(-(w*x_i+b)))"',
                    'p = [{ value = "1", places = 6 }, { value = "1", places = 6 }]\n'
                    'q = "1"').replace('p = "1/', 'q = "1/(1+exp(-(w+b)))"\np = "1/')
    code, out, err = run(tmp_path, capsys, text, "check", "--format", "json")
    assert statuses(out) == {"p": "within", "q": "undecided"}, err
