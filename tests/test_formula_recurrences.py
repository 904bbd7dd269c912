"""Formula answers of issue 24: Σ over the records in any exercise with records, any given in
a claim, per-step quantities claimed as a formula of the step before, and the declared domains
(η > 0, 0 ≤ β < 1, ε > 0) for every witness.

Expected statuses are worked out by hand; every witness is checked by substituting it into
hand-written Fraction formulas of the step (never derive's own values)."""

from __future__ import annotations

import json
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.graph.domains import DOMAINS

MOMENTUM = """[[exercise]]
id = "mom"
recipe = "formulas"
[exercise.given]
w0 = {w0}
lr = {lr}
beta = {beta}
steps = 3
records = {records}
[exercise.define]
loss = "mean_i((w_{{t-1}}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{{t-1}})"
v = {{ formula = "beta*v_{{t-1}} + g_t", start = "0" }}
w = {{ formula = "w_{{t-1}} - lr*v_t", start = "w0" }}
[exercise.claims]
"""


def run(tmp_path, capsys, text: str):
    path = tmp_path / "f.toml"
    path.write_text(text, encoding="utf-8")
    code = main(["check", str(path), "--format", "json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out else None), err


def claims(doc) -> dict:
    return {c["name"]: c for c in doc["exercises"][0]["claims"]}


def momentum(claimed: dict, w0="1", lr="0.1", beta="0.9", records="[[2, 4], [1, 3]]") -> str:
    body = "".join(f'{k} = {{ formula = "{v}" }}\n' for k, v in claimed.items())
    return MOMENTUM.format(w0=w0, lr=lr, beta=beta, records=records) + body


def F(s: str) -> Fraction:
    return Fraction(s)


def one_step(wit: dict, records: list) -> dict:
    """The momentum step by hand at a witness: its step m, the members of step m − 1 (the
    starts at step 1), the records (x_1, y_1, …; x, y for one record), absent symbols 0."""
    m = int(wit["member"])
    get = lambda k: F(wit.get(k, "0"))  # noqa: E731
    if m == 1:
        w_prev, v_prev = get("w0"), Fraction(0)
    else:
        w_prev, v_prev = get(f"w_{m - 1}"), get(f"v_{m - 1}")
    n = len(records)
    xs = [get("x") if n == 1 else get(f"x_{i}") for i in range(1, n + 1)]
    ys = [get("y") if n == 1 else get(f"y_{i}") for i in range(1, n + 1)]
    g = sum((w_prev * x - y) * x for x, y in zip(xs, ys)) / n
    beta, eta = get("beta"), get("eta")
    v = beta * v_prev + g
    return {"g": g, "v": v, "w": w_prev - eta * v, "beta": beta, "eta": eta,
            "w_prev": w_prev, "v_prev": v_prev, "xs": xs, "ys": ys}


# ---------------------------------------------------------------- per-step quantities


def test_recurrences_claimed_as_formulas_of_the_step_before(tmp_path, capsys):
    code, doc, err = run(tmp_path, capsys, momentum({
        "g": "mean_i((w_{t-1}*x_i - y_i)*x_i)",
        "v": "beta*v_{t-1} + g_t",
        "w": "w_{t-1} - lr*(beta*v_{t-1} + mean_i(x_i*(x_i*w_{t-1} - y_i)))",
        "loss": "sum_i((w_{t-1}*x_i - y_i)^2)/4"}))
    assert code == 0, err
    assert {c["status"] for c in claims(doc).values()} == {"equivalent"}


def test_momentum_forgotten_is_wrong_at_step_two_not_one(tmp_path, capsys):
    """v = g_t is right at step 1 (v_0 = 0) and wrong after: the witness is at step 2."""
    code, doc, _ = run(tmp_path, capsys, momentum({"v": "g_t"}))
    assert code == 1
    wit = claims(doc)["v"]["diagnosis"]["witness"]
    assert wit["member"] == "2"
    ref = one_step(wit, [[2, 4], [1, 3]])
    assert F(wit["expected"]) == ref["v"]
    assert F(wit["claimed"]) == ref["v"] - ref["beta"] * ref["v_prev"] != ref["v"]
    assert DOMAINS["beta"].holds(ref["beta"])


def test_sgd_step_of_a_recurrence_wrong_sign(tmp_path, capsys):
    code, doc, _ = run(tmp_path, capsys, momentum({"w": "w_{t-1} + lr*v_t"}))
    assert code == 1
    wit = claims(doc)["w"]["diagnosis"]["witness"]
    ref = one_step(wit, [[2, 4], [1, 3]])
    assert F(wit["expected"]) == ref["w"]
    assert F(wit["claimed"]) == ref["w_prev"] + ref["eta"] * ref["v"] != ref["w"]
    assert ref["eta"] > 0  # the declared domain, not eta = 0 where the update vanishes


def test_a_member_two_steps_back_is_not_supported(tmp_path, capsys):
    code, _, err = run(tmp_path, capsys, momentum({"w": "w_{t-2} - lr*v_t"}))
    assert code == 2 and err.count("\n") == 1, err


ADAM = """[[exercise]]
id = "adam"
recipe = "formulas"
[exercise.given]
w0 = 1
lr = 0.1
beta1 = 0.9
beta2 = 0.999
eps = 1e-8
steps = 2
records = [[2, 4]]
[exercise.define]
g = "(w_{t-1}*x_1 - y_1)*x_1"
m = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t", start = "0" }
v = { formula = "beta2*v_{t-1} + (1 - beta2)*g_t^2", start = "0" }
mhat = "m_t/(1 - beta1^t)"
vhat = "v_t/(1 - beta2^t)"
w = { formula = "w_{t-1} - lr*mhat_t/(sqrt(vhat_t) + eps)", start = "w0" }
[exercise.claims]
"""


def test_adam_bias_correction_forgotten_has_a_witness_inside_the_domains(tmp_path, capsys):
    """m̂ claimed as m: never β₁ = 1 (where m̂ = m/(1 − β₁ᵗ) has no value) nor β₁ ≥ 1."""
    code, doc, _ = run(tmp_path, capsys, ADAM + 'mhat = { formula = "m_t" }\n'
                       'w = { formula = "w_{t-1} - lr*m_t/(sqrt(v_t) + eps)" }\n'
                       'm = { formula = "beta1*m_{t-1} + (1 - beta1)*g_t" }\n')
    assert code == 1
    got = claims(doc)
    assert got["m"]["status"] == "equivalent"
    assert got["w"]["status"] in ("wrong", "undecided")  # √ with ε: beyond the search today
    for name in [n for n in ("mhat", "w") if got[n]["status"] == "wrong"]:
        wit = got[name]["diagnosis"]["witness"]
        beta1 = F(wit.get("beta1", "0"))
        assert 0 <= beta1 < 1, wit
        assert "eps" not in wit or F(wit["eps"]) > 0
        assert "beta2" not in wit or 0 <= F(wit["beta2"]) < 1
        if name == "mhat":  # step m: m_t/(1 − β₁ᵗ) against m_t, by hand
            m_step, t = int(wit["member"]), int(wit["member"])
            w_prev = F(wit.get("w0", "0")) if m_step == 1 else F(wit.get("w_1", "0"))
            m_prev = 0 if m_step == 1 else F(wit.get("m_1", "0"))
            x, y = F(wit.get("x", "0")), F(wit.get("y", "0"))
            m_t = beta1 * m_prev + (1 - beta1) * (w_prev * x - y) * x
            assert F(wit["claimed"]) == m_t
            assert F(wit["expected"]) == m_t / (1 - beta1 ** t) != m_t


@settings(max_examples=min(settings().max_examples, 12))
@given(c=st.integers(-2, 3), d=st.integers(-2, 3),
       records=st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1,
                        max_size=3))
def test_random_momentum_rules(tmp_path_factory, c, d, records):
    """v = β·v_{t−1} + c·g_t and w = w_{t−1} − d·η·v_t: equivalent exactly when c = d = 1
    (written out differently), else wrong with a witness inside the domains that the
    Fraction step confirms."""
    import io
    from contextlib import redirect_stderr, redirect_stdout
    rec = "[" + ", ".join(f"[{x}, {y}]" for x, y in records) + "]"
    text = momentum({"v": f"g_t*{c} + v_{{t-1}}*beta",
                     "w": f"w_{{t-1}} - {d}*lr*v_t"}, records=rec)
    path = tmp_path_factory.mktemp("rec") / "f.toml"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        main(["check", str(path), "--format", "json"])
    got = claims(json.loads(out.getvalue()))
    for name, k in (("v", c), ("w", d)):
        status = got[name]["status"]
        if k == 1:
            assert status == "equivalent", got[name]
            continue
        assert status == "wrong", got[name]
        wit = got[name]["diagnosis"]["witness"]
        ref = one_step(wit, records)
        assert DOMAINS["beta"].holds(ref["beta"]) and (name == "v" or ref["eta"] > 0), wit
        g = sum((ref["w_prev"] * x - y) * x for x, y in zip(ref["xs"], ref["ys"])) / len(
            records)
        if name == "v":
            claimed = ref["beta"] * ref["v_prev"] + c * g
            expected = ref["v"]
        else:
            claimed = ref["w_prev"] - d * ref["eta"] * ref["v"]
            expected = ref["w"]
        assert (F(wit["claimed"]), F(wit["expected"])) == (claimed, expected)
        assert claimed != expected


# ---------------------------------------------------------------- records and givens

PLAIN = """[[exercise]]
id = "plain"
recipe = "formulas"
[exercise.given]
w = 1
lr = 0.1
extra = 3
records = {{ columns = ["x", "y", "z"], rows = [[2, 4, 1], [1, 3, 5]] }}
[exercise.define]
g = "(w*x_1 - y_1)*x_1"
[exercise.claims]
g = {{ formula = "{claim}" }}
"""


def test_mean_over_records_without_a_family_quantity(tmp_path, capsys):
    code, doc, err = run(tmp_path, capsys, PLAIN.format(
        claim="mean_i(x_i*0) + sum_i(y_i - y_i) + (w*x_1 - y_1)*x_1"))
    assert code == 0, err
    code, doc, err = run(tmp_path, capsys, PLAIN.format(claim="mean_i((w*x_i - y_i)*x_i)"))
    assert code == 1, err
    wit = claims(doc)["g"]["diagnosis"]["witness"]
    get = lambda k: F(wit.get(k, "0"))  # noqa: E731
    w, x1, y1, x2, y2 = get("w"), get("x_1"), get("y_1"), get("x_2"), get("y_2")
    assert F(wit["expected"]) == (w * x1 - y1) * x1
    assert F(wit["claimed"]) == ((w * x1 - y1) * x1 + (w * x2 - y2) * x2) / 2


def test_any_given_and_any_column_in_a_claim(tmp_path, capsys):
    """extra, lr and the column z are read by no quantity: a claim may still name them."""
    code, doc, err = run(tmp_path, capsys, PLAIN.format(
        claim="(w*x_1 - y_1)*x_1 + extra*lr*mean_i(z_i)"))
    assert code == 1, err
    wit = claims(doc)["g"]["diagnosis"]["witness"]
    get = lambda k: F(wit.get(k, "0"))  # noqa: E731
    g = (get("w") * get("x_1") - get("y_1")) * get("x_1")
    assert F(wit["expected"]) == g
    assert F(wit["claimed"]) == g + get("extra") * get("eta") * (get("z_1") + get("z_2")) / 2
    assert get("eta") > 0


def test_sgd_step_witness_has_a_positive_learning_rate(tmp_path, capsys):
    """A term added outside the update: the simplest witness sets η = 0 (what η ≥ 0 allows),
    outside its declared domain η > 0 (docs/exercises.md)."""
    path = tmp_path / "s.toml"
    path.write_text('[[exercise]]\nid = "s"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
                    'lr = 0.1\nrecords = [[2, 4]]\n[exercise.claims]\n'
                    'w_new = { formula = "w - lr*(w*x - y)*x + x" }\n'
                    'loss = { formula = "(w*x - y)^2/2 + lr" }\n', encoding="utf-8")
    assert main(["check", str(path), "--format", "json"]) == 1
    got = claims(json.loads(capsys.readouterr().out))
    for name, claimed, expected in [
            ("w_new", lambda e, w, x, y: w - e * (w * x - y) * x + x,
             lambda e, w, x, y: w - e * (w * x - y) * x),
            ("loss", lambda e, w, x, y: (w * x - y) ** 2 / 2 + e,
             lambda e, w, x, y: (w * x - y) ** 2 / 2)]:
        wit = got[name]["diagnosis"]["witness"]
        values = [F(wit.get(k, "0")) for k in ("eta", "w", "x", "y")]  # absent: 0
        assert values[0] > 0, (name, wit)
        assert F(wit["expected"]) == expected(*values)
        assert F(wit["claimed"]) == claimed(*values)


def test_the_documented_domains_are_the_declared_ones():
    """docs/exercises.md's table of domains names every declared input, with its domain."""
    from pathlib import Path

    from derive.graph.domains import DECAY, RATE, STABILISER
    text = Path(__file__).resolve().parent.parent.joinpath("docs/exercises.md").read_text(
        encoding="utf-8")
    rows = text.split("| input (as a formula writes it) | domain |")[1].split("\n\n")[0]
    shown = {"η > 0": RATE, "0 ≤ β < 1": DECAY, "ε > 0": STABILISER}
    documented = {}
    for row in rows.strip().splitlines()[1:]:
        names, domain = row.strip().strip("|").rsplit("|", 1)
        for part in names.split("`")[1::2]:
            documented[part] = shown[domain.strip()]
    for name, domain in DOMAINS.items():
        assert documented.get(name) is domain, name


# ------------------------------------------------- named mutations of per-step claims

ADAM_DATA = ADAM.replace("records = [[2, 4]]",
                         "records = [[0.8415, 2.1], [-1.5, -2.9], [1.9093, 4.0462]]").replace(
    'g = "(w_{t-1}*x_1 - y_1)*x_1"', 'g = "mean_i((w_{t-1}*x_i - y_i)*x_i)"')


def diagnosis_of(tmp_path, capsys, text: str, name: str) -> dict:
    code, doc, err = run(tmp_path, capsys, text)
    assert code == 1, err
    got = claims(doc)[name]
    assert got["status"] == "wrong"
    return got["diagnosis"]


def test_bias_correction_forgotten_in_a_per_step_claim_is_named(tmp_path, capsys):
    d = diagnosis_of(tmp_path, capsys, ADAM_DATA + 'mhat = { formula = "m_t" }\n', "mhat")
    assert d["mistake"] == "mhat_bias_correction_forgotten"
    assert d["explanation"].startswith("mhat: the bias correction 1/(1 − β_1^t) forgotten; at ")


def test_momentum_forgotten_in_a_per_step_claim_is_named(tmp_path, capsys):
    d = diagnosis_of(tmp_path, capsys, momentum({"v": "g_t"}), "v")
    assert d["mistake"] == "v_momentum_forgotten"
    assert d["explanation"].startswith("v: the carried term v_(t − 1)·β dropped (momentum "
                                       "forgotten); at ")
    d = diagnosis_of(tmp_path, capsys, momentum({"w": "w_{t-1} - lr*g_t"}), "w")
    assert d["mistake"] == "w_momentum_forgotten_g"
    assert d["explanation"].startswith("w: g_t in place of v_t (momentum forgotten")


def test_a_per_step_claim_sign_flipped_is_named(tmp_path, capsys):
    d = diagnosis_of(tmp_path, capsys, momentum({"w": "w_{t-1} + lr*v_t"}), "w")
    assert d["mistake"] == "w_term_sign"
    assert d["explanation"].startswith("w: the sign of the term −v_t·η flipped; at ")


NOT_NAMED_STEPS = [
    (ADAM_DATA, "mhat", "m_t/(1 - beta1)"),          # the step 1 correction at every step
    (ADAM_DATA, "mhat", "m_t/(1 - beta2^t)"),        # the other β
    (ADAM_DATA, "mhat", "m_t/(1 - beta1^(t+1))"),    # counted from t + 1
    (MOMENTUM.format(w0="1", lr="0.1", beta="0.9", records="[[0.8415, 2.1], [-1.5, -2.9]]"),
     "v", "beta*v_{t-1} + g_t/2"),                   # half the gradient
]


def test_a_different_wrong_per_step_formula_is_not_named(tmp_path, capsys):
    for text, name, formula in NOT_NAMED_STEPS:
        d = diagnosis_of(tmp_path, capsys, text + f'{name} = {{ formula = "{formula}" }}\n', name)
        assert d["mistake"] is None and d["also"] == [], (formula, d)
        assert d["explanation"].startswith("at ")
