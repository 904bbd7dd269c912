"""`derive variants` with relations between quantities and givens, `toward = "w"`, optimizer
options as vary paths, scarce exercises and `partition` targets. Expected values are computed
here independently with Fractions."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from derive.cli.main import main
from derive.exercises import load
from derive.exercises.errors import ExerciseError
from derive.exercises.schema import exercise
from derive.exercises.variants import generate
from derive.exercises.variation import Condition


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def frac(v) -> F:
    """A value as derive reads or writes it (int, Written, SymPy) as a Fraction."""
    v = sp.Rational(getattr(v, "value", v))
    return F(int(v.p), int(v.q))


LRS = ["0.05", "0.1", "0.25", "0.5", "1"]
WS = [F(k, 2) for k in range(-4, 9)]  # -2 … 4 step 0.5
XS = [1, 2, 3]
YS = [-2, 0, 4]


def sgd_file(require: str) -> str:
    return ('[[exercise]]\nid = "hw"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.05\n'
            'records = [[2, 4]]\n[exercise.vary]\nlr = { choices = [0.05, 0.1, 0.25, 0.5, 1] }\n'
            'w = { from = -2, to = 4, step = 0.5 }\n"records[0][0]" = { choices = [1, 2, 3] }\n'
            '"records[0][1]" = { choices = [-2, 0, 4] }\n[exercise.require]\n' + require)


def sgd(w: F, lr: F, x: int, y: int) -> dict:
    """One SGD step of ŷ = w·x on one record, loss (ŷ − y)²/2, by hand in Fractions."""
    loss = (w * x - y) ** 2 / 2
    g = (w * x - y) * x
    w_new = w - lr * g
    return {"w": w, "lr": lr, "x": x, "y": y, "loss": loss, "gradient": g, "w_new": w_new,
            "loss_new": (w_new * x - y) ** 2 / 2}


def all_candidates():
    for lr, w, x, y in itertools.product(LRS, WS, XS, YS):
        yield sgd(w, F(lr), x, y)


def emitted(tmp_path, text: str, n: int = 10_000, seed: int = 0):
    path = tmp_path / "hw.toml"
    path.write_text(text)
    ex, = load([str(path)])
    gen = generate(ex, n, seed, allow_fewer=True)
    out = []
    for v in gen.variants:
        (x, y), = v.given["records"]
        out.append(sgd(frac(v.given["w"]), frac(v.given["lr"]), int(x), int(y)))
    return out


def key(c):
    return (c["w"], c["lr"], c["x"], c["y"])


@pytest.mark.parametrize("require,holds", [
    ('loss_new = "< loss"\n', lambda c: c["loss_new"] < c["loss"]),
    ('w_new = "w_new > w"\n', lambda c: c["w_new"] > c["w"]),
    ('w_new = ">= 1/2"\n', lambda c: c["w_new"] >= F(1, 2)),
    ('loss_new = ["<= loss", "!= 0"]\n', lambda c: c["loss_new"] <= c["loss"]
     and c["loss_new"] != 0),
    ('gradient = "== 0"\n', lambda c: c["gradient"] == 0),
    ('toward = "w"\n', lambda c: abs(c["w_new"] - F(c["y"], c["x"])) < abs(c["w"] - F(c["y"], c["x"]))),
    ('toward = "w"\nloss_new = "> loss"\n', lambda c: False),  # toward lowers the loss here
])
def test_enumerated_variants_are_exactly_the_candidates_that_meet_the_relation(
        tmp_path, require, holds):
    """Every candidate enumerated: derive emits exactly those the hand check accepts."""
    want = {key(c) for c in all_candidates() if holds(c)}
    text = sgd_file(require)
    if not want:
        with pytest.raises(ExerciseError, match="gives no variant"):
            emitted(tmp_path, text)
        return
    got = emitted(tmp_path, text)
    assert {key(c) for c in got} == want and len(got) == len(want)


def test_hand_written_toward_with_two_records_and_b():
    """w* = Σx(y − b)/Σx² with b held: records (1, 3), (2, 1), b = 1: w* = (1·2 + 2·0)/5."""
    given_ = {"w": sp.Integer(2), "b": sp.Integer(1), "records": [(1, 3), (2, 1)]}
    from derive.exercises.variation import target_w
    assert target_w("sgd_step", given_) == sp.Rational(2, 5)
    toward = Condition("toward", "sgd_step")
    assert toward.holds(None, {"w_new": sp.Rational(1)}, given_)        # |1 − 2/5| < |2 − 2/5|
    assert not toward.holds(None, {"w_new": sp.Rational(-6, 5)}, given_)  # |−6/5 − 2/5| = 8/5
    assert not toward.holds(None, {"w_new": sp.Rational(3)}, given_)
    assert toward.holds(None, {"w_steps": [sp.Integer(3), sp.Rational(1, 2)]}, given_)
    # every w minimises a loss whose records all have x = 0: no target, never "toward"
    assert not toward.holds(None, {"w_new": sp.Integer(0)}, {"w": 1, "records": [(0, 1)]})


def test_relations_are_decided_exactly_and_undecided_rejects(monkeypatch):
    lt = Condition("relation", ("<", "number", sp.Rational(3, 2)))
    assert lt.holds(sp.sqrt(2), {}) and not lt.holds(sp.Rational(3, 2), {})
    eq = Condition("relation", ("==", "number", sp.Integer(0)))
    assert eq.holds(sp.log(16) - 2 * sp.log(4), {})  # an exact zero, proved
    le = Condition("relation", ("<=", "quantity", "loss"))
    assert le.holds([1, 2], {"loss": 2}) and not le.holds([1, 3], {"loss": 2})
    assert le.holds([1, 2], {"loss": [1, 2]}) and not le.holds([1, 2], {"loss": [1, 2, 3]})
    assert Condition("relation", (">", "given", "w")).holds(2, {}, {"w": sp.Integer(1)})
    import derive.exercises.variation as variation
    monkeypatch.setattr(variation, "exact_sign", lambda v: None)
    for op in ("<", "<=", ">", ">=", "==", "!="):
        assert not Condition("relation", (op, "number", sp.Integer(0))).holds(1, {})


SGD_BASE = ('[[exercise]]\nid = "a"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n'
            'records = [[2, 4]]\n[exercise.vary]\nw = { choices = [0, 1] }\n')


@pytest.mark.parametrize("text,words", [
    ('loss_new = "<< loss"', "has the condition"),
    ('loss_new = "< los"', "did you mean 'loss'"),
    ('loss_new = "< b"', "not a quantity or a given input"),  # b: an input, not given
    ('loss_new = "w < 1"', "the left side is loss_new"),
    ('loss_new = "loss < 1"', 'write it under its own quantity: loss = "< 1"'),
    ('loss_new = "< 1/0"', "divides by zero"),
    ('loss_new = "< 1e999"', "exponent"),
    ('loss_new = "< 1 + 1"', "has the condition"),
    ('loss_new = "< __import__(\'os\')"', "is not a number"),
    ('toward = "b"', 'write toward = "w"'),
    ('loss_new = "' + "<" * 300 + '"', "at most 200"),
])
def test_malformed_relations_are_one_line(tmp_path, capsys, text, words):
    path = tmp_path / "ex.toml"
    path.write_text(SGD_BASE + "[exercise.require]\n" + text + "\n")
    code, out, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and out == "" and words in err, err
    assert len(err.strip().splitlines()) == 1


def test_toward_needs_records_of_w():
    raw = {"id": "m", "recipe": "memory", "given": {"params": 10},
           "vary": {"params": {"choices": [10, 20]}}, "require": {"toward": "w"}}
    with pytest.raises(ExerciseError, match="needs w and"):
        exercise(raw, "x.toml", 0)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=60), st.text(alphabet="<>=! abdefilnorstw_0123456789./-+e", max_size=30)))
def test_the_condition_parser_never_crashes(text):
    raw = {"id": "a", "recipe": "sgd_step",
           "given": {"w": 1, "lr": "0.1", "records": [[2, 4]]},
           "vary": {"w": {"choices": [0, 1]}}, "require": {"loss_new": text}}
    try:
        ex = exercise(raw, "x.toml", 0)
    except ExerciseError as exc:
        assert "\n" not in exc.line() and "require.loss_new" in exc.line()
        return
    assert len(ex.require["loss_new"]) == 1


OPS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
       ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(left=st.sampled_from(["loss_new", "w_new", "gradient"]), op=st.sampled_from(sorted(OPS)),
       right=st.sampled_from(["loss", "w", "lr", "0", "1/2", "-1"]), seed=st.integers(0, 999),
       n=st.integers(1, 6))
def test_every_emitted_variant_meets_its_relation(tmp_path_factory, left, op, right, seed, n):
    tmp = tmp_path_factory.mktemp("r")
    text = sgd_file(f'{left} = "{op} {right}"\n')
    try:
        got = emitted(tmp, text, n, seed)
    except ExerciseError:
        got = []
        assert not any(OPS[op](c[left], c[right] if right in c else F(right))
                       for c in all_candidates())
    for c in got:
        assert OPS[op](c[left], c[right] if right in c else F(right))


# ---------------------------------------------------------------- optimizer options as paths

OPT = ('[[exercise]]\nid = "opt"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1\nlr = 0.1\n'
       'records = [[1, 2]]\nsteps = 2\noptimizer = { name = "sgd", momentum = 0.5 }\n'
       '[exercise.vary]\n')


def test_vary_optimizer_momentum_by_hand(tmp_path, capsys):
    """Two SGD-momentum steps on one record (1, 2) from w = 1, lr 0.1: g = w − 2,
    buf = μ·buf + g, w −= lr·buf. Each variant's w_steps, computed here."""
    path = tmp_path / "opt.toml"
    path.write_text(OPT + '"optimizer.momentum" = { choices = [0, 0.5, 0.9] }\n')
    ex, = load([str(path)])
    gen = generate(ex, 3)
    got = {}
    for v in gen.variants:
        mu = frac(v.given["optimizer"]["momentum"])
        w, buf, ws = F(1), None, []
        for _ in range(2):
            g = w - 2
            buf = g if buf is None else mu * buf + g
            w -= F(1, 10) * buf
            ws.append(w)
        got[mu] = ws
        assert [frac(x) for x in v.values["w_steps"]] == ws
    assert set(got) == {0, F(1, 2), F(9, 10)}


@pytest.mark.parametrize("vary,key,words", [
    ('"optimizer.momentom" = { choices = [0.5] }', "vary.optimizer.momentom",
     "did you mean 'momentum'"),
    ('"optimizer.betas[0]" = { choices = [0.5] }', "vary.optimizer.betas[0]",
     'not an option of "sgd"'),
    ('"optimizer.momentum" = { choices = [-1] }', "vary.optimizer.momentum.choices[0]",
     "must not be negative"),
    ('"optimizer.nesterov" = { choices = [1] }', "vary.optimizer.nesterov.choices[0]",
     "true or false"),
    ('"optimizer." = { choices = [1] }', "vary.optimizer.", "not an option"),
    ('"optimizer.betas" = { choices = [[0.9, 0.99]] }', "vary.optimizer.betas",
     'not an option of "sgd"'),
])
def test_vary_optimizer_option_errors(tmp_path, capsys, vary, key, words):
    path = tmp_path / "opt.toml"
    path.write_text(OPT + vary + "\n")
    code, _, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and f"key '{key}'" in err and words in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("vary", ['"optimizer.betas" = { choices = [[0.9, 1]] }',
                                  '"optimizer.betas" = { choices = [[0.9]] }',
                                  '"optimizer.betas[1]" = { choices = [1.5] }'])
def test_vary_adam_betas_out_of_range(tmp_path, capsys, vary):
    path = tmp_path / "adam.toml"
    path.write_text(OPT.replace('name = "sgd", momentum = 0.5', 'name = "adam", betas = [0.9, 0.999]')
                    + vary + "\n")
    code, _, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and "key 'vary.optimizer.betas" in err
    assert "[0, 1)" in err or "0 ≤ β < 1" in err
    assert len(err.strip().splitlines()) == 1


def test_vary_adam_beta1(tmp_path, capsys):
    path = tmp_path / "adam.toml"
    path.write_text(OPT.replace('name = "sgd", momentum = 0.5', 'name = "adam", betas = [0.9, 0.999]')
                    + '"optimizer.betas[0]" = { choices = [0, 0.5, 0.9] }\n'
                    '[exercise.require]\ntoward = "w"\n')
    code, _, err = run(capsys, "variants", path, "-n", "3", "-o", tmp_path / "out")
    assert code == 0, err
    betas = sorted(frac(ex.raw["given"]["optimizer"]["betas"][0])
                   for ex in load([str(tmp_path / "out")]))
    assert betas == [0, F(1, 2), F(9, 10)]
    assert run(capsys, "check", tmp_path / "out")[0] == 0


# ------------------------------------------------------------------- scarce exercises, -n

SCARCE = sgd_file('gradient = "== 0"\nw_new = "> 3"\n').replace('id = "hw"', 'id = "scarce"')
PLENTY = sgd_file('loss_new = "< loss"\n').replace('id = "hw"', 'id = "plenty"')


def test_a_scarce_exercise_does_not_block_the_others(tmp_path, capsys):
    # gradient 0 means w·x = y and w_new = w: w > 3 with x in 1..3, y in {-2, 0, 4}: w = 4, x = 1
    want = [c for c in all_candidates() if c["gradient"] == 0 and c["w_new"] > 3]
    assert len(want) == len(LRS)  # one (w, x, y), every lr
    path = tmp_path / "bank.toml"
    path.write_text(SCARCE + "\n" + PLENTY)
    code, _, err = run(capsys, "variants", path, "-n", "8", "-o", tmp_path / "out")
    assert code == 1
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len([n for n in names if n.startswith("plenty-")]) == 8
    assert len([n for n in names if n.startswith("scarce-")]) == len(want)
    lines = err.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"scarce: only {len(want)} of 8 variants")
    assert lines[1].startswith("plenty: 8 variants")
    assert run(capsys, "check", tmp_path / "out")[0] == 0


def test_an_impossible_exercise_beside_others_is_reported_and_nothing_found_exits_2(
        tmp_path, capsys):
    none = sgd_file('gradient = "== 0"\nw_new = "> 10"\n').replace('id = "hw"', 'id = "none"')
    path = tmp_path / "bank.toml"
    path.write_text(none + "\n" + PLENTY)
    code, _, err = run(capsys, "variants", path, "-n", "2", "-o", tmp_path / "out")
    assert code == 1 and "none: 0 of 2 variants: gives no variant" in err
    assert len(list((tmp_path / "out").iterdir())) == 2
    path.write_text(none)
    code, out, err = run(capsys, "variants", path, "-n", "2", "-o", tmp_path / "out2")
    assert code == 2 and "gives no variant" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out2").exists()


# -------------------------------------------------------------------- partition with targets

PART = ('[[exercise]]\nid = "three"\nrecipe = "accumulation"\n[exercise.given]\nw = 1\nlr = 0.1\n'
        'microbatches = [[[1, 0], [2, 0]], [[3, 0]]]\n[exercise.vary]\n')


def test_partition_alone_keeps_the_headline_answer(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(PART + 'partition = { choices = [[2, 1], [1, 2], [1, 1, 1]] }\n')
    ex, = load([str(path)])
    assert {v.values["gradient"] for v in generate(ex, 2).variants} == {sp.Rational(14, 3)}


def test_partition_targets_vary_the_headline_answer(tmp_path):
    path = tmp_path / "p.toml"
    path.write_text(PART + 'partition = { choices = [[2, 1], [1, 2]], '
                    'targets = { from = -1, to = 1 } }\n')
    ex, = load([str(path)])
    gen = generate(ex, 10_000, allow_fewer=True)
    # 2 groupings × 3³ targets, less those whose mean gradient is the exercise's 14/3:
    # mean over records of (x − y)·x = 14/3 − (y1 + 2·y2 + 3·y3)/3, so y1 + 2y2 + 3y3 = 0
    same = sum(1 for ys in itertools.product([-1, 0, 1], repeat=3)
               if ys[0] + 2 * ys[1] + 3 * ys[2] == 0)
    assert gen.space == 2 * 27 and len(gen.variants) == 2 * (27 - same)
    for v in gen.variants:
        groups = v.given["microbatches"]
        assert [len(g) for g in groups] in ([2, 1], [1, 2])
        records = [r for g in groups for r in g]
        assert [r[0] for r in records] == [1, 2, 3]
        g = sum(F(1 * r[0] - r[1]) * r[0] for r in records) / 3
        assert frac(v.values["gradient"]) == g != F(14, 3)


def test_partition_targets_errors(tmp_path, capsys):
    path = tmp_path / "p.toml"
    path.write_text(PART + 'partition = { choices = [[2, 1]], targets = { from = 1 } }\n')
    code, _, err = run(capsys, "variants", path, "-n", "1")
    assert code == 2 and "key 'vary.partition.targets'" in err and "neither" in err
