"""Author-declared mistakes (derive/exercises/declared.py): `[[exercise.mistakes]]` and the
bank's derive.toml `[[mistakes]]`, each a change to the derivation (define, given, skip),
diagnosed by name in check (text, JSON), the exports and the self-check page; near misses not
named; the warnings; invalid declarations; hostile words escaped. Expected values are computed
here with Fractions, never read from derive."""

from __future__ import annotations

import contextlib
import io
import json
import re
from fractions import Fraction as F
from pathlib import Path

import pytest

from derive.cli.main import main


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, text: str, name: str = "bank.toml") -> Path:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return f


def check_json(path) -> tuple[int, dict, str]:
    code, out, err = run("check", path, "--format", "json")
    return code, json.loads(out)["exercises"][0], err


def diagnosis_of(ex: dict, name: str) -> dict | None:
    (c,) = [c for c in ex["claims"] if c["name"] == name]
    return c["diagnosis"]


def fmt(v: F) -> str:
    """A Fraction as the exact decimal it is (every value here terminates)."""
    if v.denominator == 1:
        return str(v.numerator)
    sign, v = ("-" if v < 0 else ""), abs(v)
    places = 0
    while (v * 10 ** places).denominator != 1:
        places += 1
    digits = str(int(v * 10 ** places)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


# ----------------------------------------------------------------- a two-parameter step

RECORDS = [(F("1.5"), F("2.0")), (F("-0.5"), F("1.25")), (F("2.0"), F("3.5"))]
W, B, LR = F("0.5"), F("0.25"), F("0.1")


def gb_reference(w=W, b=B, summed=False) -> F:
    """∂/∂b of the mean squared error (no ½): 2·mean(ŷ − y), or 2·Σ(ŷ − y) when summed."""
    total = sum(2 * (w * x + b - y) for x, y in RECORDS)
    return total if summed else total / len(RECORDS)


TWO = """
[[exercise]]
id = "two-params"
recipe = "formulas"

[exercise.given]
w = 0.5
b = 0.25
lr = 0.1
records = [[1.5, 2.0], [-0.5, 1.25], [2.0, 3.5]]

[exercise.define]
yhat = "w*x_i + b"
loss = "mean_i((yhat_i - y_i)^2)"
gw = "grad(loss, w)"
gb = "grad(loss, b)"
w_new = "w - lr*gw"
b_new = "b - lr*gb"

[[exercise.mistakes]]
name = "bias_gradient_summed"
en = "the bias's gradient summed over the records instead of averaged"
zh = "偏置的梯度对记录求和而不是取平均"
define = { gb = "sum_i(2*(yhat_i - y_i))" }

[[exercise.mistakes]]
name = "bias_started_at_zero"
en = "the bias taken as 0"
zh = "偏置取成了 0"
given = { b = "0" }
"""


def two(claims: str, mistakes: str = "") -> str:
    return TWO + mistakes + "\n[exercise.claims]\n" + claims


def test_define_is_named_in_check_text_and_json(tmp_path):
    wrong = gb_reference(summed=True)
    assert wrong != gb_reference()
    f = write(tmp_path, two(f'gb = "{fmt(wrong)}"'))
    code, out, _ = run("check", f)
    assert code == 1
    # the mutation gb_sum_for_mean gives the same value: a tie, the declared mistake first
    assert ("none is named: bias_gradient_summed (the bias's gradient summed over the records "
            "instead of averaged) or gb_sum_for_mean") in out
    code, ex, _ = check_json(f)
    d = diagnosis_of(ex, "gb")
    assert d["mistake"] is None and d["certainty"] == "tied"
    assert d["candidates"] == ["bias_gradient_summed", "gb_sum_for_mean"] == d["also"]


def test_define_named_at_a_later_quantity_it_changes(tmp_path):
    """Claimed b_new only: the declared mistake is named there (it changes every quantity
    downstream of gb)."""
    b_new = B - LR * gb_reference(summed=True)
    _, ex, _ = check_json(write(tmp_path, two(f'b_new = "{fmt(b_new)}"')))
    assert diagnosis_of(ex, "b_new")["candidates"][0] == "bias_gradient_summed"


def test_given_is_named(tmp_path):
    gb = gb_reference(b=F(0))
    _, ex, _ = check_json(write(tmp_path, two(f'gb = "{fmt(gb)}"')))
    assert diagnosis_of(ex, "gb")["candidates"][0] == "bias_started_at_zero"


@pytest.mark.parametrize("claim", ["-8", "-9.1", "-3.6", "-3.4", "-3.49"])
def test_near_misses_are_not_named(tmp_path, claim):
    """A digit changed, or a rounding one place off, of the two mistakes' values (−9 summed,
    −3.5 with b = 0)."""
    assert (gb_reference(summed=True), gb_reference(b=F(0))) == (-9, F("-3.5"))
    _, ex, _ = check_json(write(tmp_path, two(f'gb = "{claim}"')))
    d = diagnosis_of(ex, "gb")
    assert d["mistake"] not in ("bias_gradient_summed", "bias_started_at_zero")
    assert "bias_gradient_summed" not in d["also"] and "bias_started_at_zero" not in d["also"]


def test_exports_name_it_in_english_and_chinese(tmp_path):
    f = write(tmp_path, two(f'gb = "{fmt(gb_reference(summed=True))}"'))
    for fmt_ in ("md", "tex"):
        code, out, _ = run("export", f, "--format", fmt_)
        assert code == 0
        assert "summed over the records instead of averaged" in out
        assert "bias" in out and ("bias_gradient_summed" in out
                                  or r"bias\_gradient\_summed" in out)
        code, out, _ = run("export", f, "--format", fmt_, "--lang", "zh")
        assert code == 0
        if fmt_ == "md":
            assert "偏置的梯度对记录求和而不是取平均" in out


def _page_questions(f) -> dict:
    code, html, _ = run("export", f, "--format", "html")
    assert code == 0
    (data,) = re.findall(r'<script type="application/json" id="derive-data">(.*?)</script>',
                         html, re.S)
    qs = json.loads(data)["variants"][0]["questions"]
    return {q["name"]: q for q in qs.values()}


def test_self_check_page_knows_its_value_and_words(tmp_path):
    f = write(tmp_path, two(f'gb = "{fmt(gb_reference(summed=True))}"'))
    q = _page_questions(f)["gb"]
    texts: dict = {}  # by value: every mistake that gives it, in the page's order
    for m in q["mistakes"]:
        texts.setdefault(F(m["value"]["q"]), []).append((m["text"], m["name"]))
    # the declared mistake first; a built-in one that gives the same value is listed too (a
    # tie, under the rule of evidence), never in its place
    summed = texts[gb_reference(summed=True)]
    assert summed[0] == ("the bias's gradient summed over the records instead of averaged",
                         "bias_gradient_summed")
    assert [n for _, n in summed] == ["bias_gradient_summed", "gb_sum_for_mean"]
    assert texts[gb_reference(b=F(0))][0] == ("the bias taken as 0", "bias_started_at_zero")


# ----------------------------------------------------------------- skip, in a recurrence

MOMENTUM = """
[[exercise]]
id = "momentum"
recipe = "formulas"

[exercise.given]
w0 = 1
lr = 0.1
mu = 0.5
steps = 2
records = [[1, 2], [3, 6]]

[exercise.define]
loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"
g = "grad(loss_t, w_{t-1})"
buf = { formula = "mu*buf_{t-1} + g_t", start = "0" }
step = "lr*buf_t"
w = { formula = "w_{t-1} - step_t", start = "w0" }

[[exercise.mistakes]]
name = "buffer_never_updated"
en = "the momentum buffer's step skipped"
zh = "跳过了动量缓冲的更新"
skip = "buf"

[[exercise.mistakes]]
name = "step_without_lr"
en = "the step taken without the learning rate"
zh = "更新步长没有乘学习率"
skip = "step"

[[exercise.mistakes]]
name = "momentum_forgotten"
en = "momentum forgotten: the step uses the gradient itself"
zh = "忘了动量:直接用梯度更新"
define = { buf = "g_t" }

[exercise.claims]
"""


def momentum_reference(skip_buf=False, skip_lr=False, plain=False) -> list[F]:
    """Two steps of SGD with momentum (torch's buffer: μ·u + g) on the two records."""
    records = [(F(1), F(2)), (F(3), F(6))]
    w, u, out = F(1), F(0), []
    for _ in range(2):
        g = sum((w * x - y) * x for x, y in records) / len(records)
        if plain:
            u = g
        elif not skip_buf:
            u = F(1, 2) * u + g
        w = w - (u if skip_lr else F(1, 10) * u)
        out.append(w)
    return out


@pytest.mark.parametrize("name, flags", [
    ("buffer_never_updated", {"skip_buf": True}),
    ("step_without_lr", {"skip_lr": True}),
    ("momentum_forgotten", {"plain": True}),
])
def test_skip_and_define_in_a_recurrence(tmp_path, name, flags):
    got = momentum_reference(**flags)
    assert got != momentum_reference()
    claim = "w = [" + ", ".join(f'"{fmt(v)}"' for v in got) + "]\n"
    _, ex, _ = check_json(write(tmp_path, MOMENTUM + claim))
    assert diagnosis_of(ex, "w")["candidates"][0] == name  # named, or first of a tie


def test_momentum_forgotten_warns_it_coincides_with_a_built_in_mutation(tmp_path):
    """buf_t = g_t is the built-in momentum_forgotten (the term μ·buf_{t−1} dropped): check warns (stderr and
    JSON), and the exit code is the claims' own (0: every claim holds)."""
    right = momentum_reference()
    claim = "w = [" + ", ".join(f'"{fmt(v)}"' for v in right) + "]\n"
    f = write(tmp_path, MOMENTUM + claim)
    code, out, err = run("check", f)
    assert code == 0
    lines = [line for line in err.splitlines() if "'momentum_forgotten'" in line]
    assert lines and all(line.startswith("warning: ") for line in lines)
    # the built-in catalogue names the same change (buf_momentum_forgotten), and w follows
    assert any("gives the same buf as 'buf_momentum_forgotten'" in line for line in lines)
    code, ex, _ = check_json(f)
    assert code == 0
    assert any("'momentum_forgotten'" in w for w in ex["warnings"])


def test_warns_when_a_mistake_gives_the_right_answer(tmp_path):
    mistake = """
[[exercise.mistakes]]
name = "same_rate"
en = "the rate as given"
zh = "按给定的学习率"
given = { lr = "0.10" }
"""
    f = write(tmp_path, two(f'gb = "{fmt(gb_reference())}"', mistake))
    code, _, err = run("check", f)
    assert code == 0
    assert ("warning: " in err and "mistake 'same_rate' gives the right value of every "
            "quantity" in err)


def test_no_warning_for_a_mistake_of_its_own(tmp_path):
    mistake = """
[[exercise.mistakes]]
name = "old_weight"
en = "the weight of the previous exercise"
zh = "用了上一题的权重"
given = { w = "0.3" }
"""
    f = write(tmp_path, two(f'gb = "{fmt(gb_reference())}"', mistake))
    _, _, err = run("check", f)
    assert "'bias_gradient_summed' gives the same gb as 'gb_sum_for_mean'" in err
    assert "old_weight" not in err


# ----------------------------------------------------------------- a built-in recipe

SGD = """
[[exercise]]
id = "sgd"
recipe = "sgd_step"

[exercise.given]
w = 0.75
lr = 0.05
records = [[1.5, 2.25], [-0.5, 1.0]]

[[exercise.mistakes]]
name = "weight_taken_as_zero"
en = "the weight taken as 0"
zh = "权重取成了 0"
given = { w = "0" }

[exercise.claims]
"""


def sgd_gradient(w: F) -> F:
    records = [(F("1.5"), F("2.25")), (F("-0.5"), F("1.0"))]
    return sum((w * x - y) * x for x, y in records) / len(records)


def test_given_in_a_built_in_recipe(tmp_path):
    wrong = sgd_gradient(F(0))
    _, ex, _ = check_json(write(tmp_path, SGD + f'gradient = "{fmt(wrong)}"\n'))
    assert diagnosis_of(ex, "gradient")["mistake"] == "weight_taken_as_zero"
    near = fmt(wrong)[:-1] + "6"
    _, ex, _ = check_json(write(tmp_path, SGD + f'gradient = "{near}"\n'))
    assert diagnosis_of(ex, "gradient")["mistake"] != "weight_taken_as_zero"


def test_define_in_a_built_in_recipe_is_not_supported(tmp_path):
    f = write(tmp_path, SGD.replace('given = { w = "0" }', 'define = { gradient = "0" }'))
    code, _, err = run("check", f)
    assert code == 2
    assert "key 'mistakes[0].define': not supported:" in err
    assert "given = { w" in err and 'recipe = "formulas"' in err


# ----------------------------------------------------------------- a bank-wide declaration

BANK_MISTAKE = """
[[mistakes]]
name = "bias_gradient_summed"
en = "the bias's gradient summed over the records instead of averaged"
zh = "偏置的梯度对记录求和而不是取平均"
define = { gb = "sum_i(2*(yhat_i - y_i))" }
"""


def test_a_bank_mistake_applies_to_the_banks_exercises(tmp_path):
    own = TWO.split("[[exercise.mistakes]]")[0]
    write(tmp_path, BANK_MISTAKE, "derive.toml")
    write(tmp_path, own + f'[exercise.claims]\ngb = "{fmt(gb_reference(summed=True))}"\n')
    write(tmp_path, SGD.split("[[exercise.mistakes]]")[0] + "[exercise.claims]\n"
          'gradient = "1"\n', "other.toml")  # no gb: the bank's mistake does not apply
    code, out, _ = run("check", tmp_path, "--format", "json")
    exs = {e["id"]: e for e in json.loads(out)["exercises"]}
    assert diagnosis_of(exs["two-params"], "gb")["candidates"][0] == "bias_gradient_summed"


def test_a_bank_mistake_that_applies_nowhere_is_an_error(tmp_path):
    write(tmp_path, BANK_MISTAKE.replace("{ gb =", "{ gbb ="), "derive.toml")
    write(tmp_path, TWO.split("[[exercise.mistakes]]")[0] + '[exercise.claims]\ngb = "-3"\n')
    code, _, err = run("check", tmp_path)
    assert code == 2
    assert "derive.toml" in err and "mistakes[0].define" in err
    assert "applies to no exercise of the bank" in err


def test_the_build_index_names_the_banks_own_derive_toml(tmp_path):
    """The build's row for a bank mistake that applies nowhere is the bank's derive.toml as the
    user named the bank (it was a bare 'derive.toml', the same for every bank)."""
    from derive.cli.build import load_bank

    bank = tmp_path / "mybank"
    bank.mkdir()
    write(bank, BANK_MISTAKE.replace("{ gb =", "{ gbb ="), "derive.toml")
    write(bank, TWO.split("[[exercise.mistakes]]")[0] + '[exercise.claims]\ngb = "-3"\n')
    rows = [i for i in load_bank(str(bank)) if i.error]
    assert [i.file for i in rows] == [str(bank / "derive.toml")]
    assert "applies to no exercise of the bank" in rows[0].error


# ----------------------------------------------------------------- invalid declarations

def _mistake(body: str) -> str:
    return two('gb = "-3"', "\n[[exercise.mistakes]]\n" + body)


@pytest.mark.parametrize("body, key, words", [
    ('name = "m1"\nen = "a"\nzh = "b"\ndefine = { gbb = "0" }',
     "mistakes[2].define.gbb", "'gbb' is not a quantity of this exercise; did you mean 'gb'"),
    ('name = "m1"\nen = "a"\nzh = "b"\ndefine = { gb = "sum_i(2*(yhat_i - y_i)" }',
     "mistakes[2].define.gb", ""),
    ('name = "m1"\nen = "a"\nzh = "b"\ndefine = { gb = "wq + 1" }',
     "mistakes[2].define.gb", "'wq'"),
    ('name = "gb_sign"\nen = "a"\nzh = "b"\ngiven = { w = "1" }',
     "mistakes[2].name", "built-in mistake"),
    ('name = "rounded_early"\nen = "a"\nzh = "b"\ngiven = { w = "1" }',
     "mistakes[2].name", "built-in mistake"),
    ('name = "bias_gradient_summed"\nen = "a"\nzh = "b"\ngiven = { w = "1" }',
     "mistakes[2].name", "declared twice"),
    ('name = "m1"\nen = "a"\ngiven = { w = "1" }', "mistakes[2].zh", "is missing"),
    ('name = "m1"\nen = ""\nzh = "b"\ngiven = { w = "1" }', "mistakes[2].en", "is empty"),
    ('name = "m1"\nen = "a\\nb"\nzh = "b"\ngiven = { w = "1" }', "mistakes[2].en",
     "line break"),
    ('name = "m1"\nen = "a\\u001b[31m"\nzh = "b"\ngiven = { w = "1" }', "mistakes[2].en",
     "control character"),
    ('name = "m1"\nen = "a"\nzh = "b"', "mistakes[2]", "declares no change"),
    ('name = "m1"\nen = "a"\nzh = "b"\ngiven = { w = "1" }\nskip = "gb"', "mistakes[2]",
     "declares 2 changes"),
    ('name = "m1"\nen = "a"\nzh = "b"\ngiven = { v = "1" }', "mistakes[2].given.v",
     "'v' is not a given of this exercise"),
    ('name = "m1"\nen = "a"\nzh = "b"\ngiven = { w = "abc" }', "mistakes[2].given.w", ""),
    ('name = "m1"\nen = "a"\nzh = "b"\nskip = "yhat"', "mistakes[2].skip",
     "yhat reads no other quantity"),
    ('name = "m1"\nen = "a"\nzh = "b"\nskip = "gbx"', "mistakes[2].skip",
     "'gbx' is not a quantity"),
    ('name = "Bad Name"\nen = "a"\nzh = "b"\ngiven = { w = "1" }', "mistakes[2].name", ""),
    ('name = "m1"\nen = "a"\nzh = "b"\ngiven = { w = "1" }\nwords = "x"',
     "mistakes[2].words", "is not a key of a mistake"),
])
def test_invalid_declarations_are_one_line(tmp_path, body, key, words):
    code, out, err = run("check", write(tmp_path, _mistake(body)))
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"key '{key}'" in lines[0] and "exercise 'two-params'" in lines[0]
    assert "not supported" not in lines[0]
    assert words in lines[0]
    assert "Traceback" not in err and out == ""


# ----------------------------------------------------------------- hostile words

HOSTILE_EN = r"<script>alert(1)</script> $\\input{/etc/passwd}$ | *x* `y` _z_ &amp; % \\\\"


def test_hostile_words_are_escaped_in_every_output(tmp_path):
    text = TWO.replace("the bias's gradient summed over the records instead of averaged",
                       HOSTILE_EN)
    text = text.replace("偏置的梯度对记录求和而不是取平均", HOSTILE_EN)
    f = write(tmp_path, text + '\n[exercise.claims]\ngb = "-9"\n')
    code, out, _ = run("export", f, "--format", "tex")
    assert code == 0 and "bias\\_gradient\\_summed" in out
    assert "\\input" not in out.replace("\\textbackslash{}input", "")
    assert "<script>" not in out
    code, out, _ = run("export", f, "--format", "md")
    assert code == 0 and ("bias_gradient_summed" in out or r"bias\_gradient\_summed" in out)
    assert "<script>" not in out and "$\\input" not in out
    for lang in ("en", "zh"):
        code, out, _ = run("export", f, "--format", "html", "--lang", lang)
        assert code == 0 and "<script>alert" not in out and "/etc/passwd}$" in out
        assert "\\u003cscript\\u003e" in out  # inside the page's JSON, as text
    code, out, _ = run("check", f)
    assert "bias_gradient_summed" in out and "\x1b" not in out


def test_the_bundled_example_names_its_declared_mistake(tmp_path):
    """docs/examples/formulas.toml `two-features`: gb written with x2_i is w2's gradient,
    2·mean((ŷ − y)·x2) = −10/3 (by hand: ŷ = −1.25, 2.75, −0.75)."""
    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "examples" / "formulas.toml").read_text(encoding="utf-8")
    start = text.index('id = "two-features"')
    block = "[[exercise]]\n" + text[start:text.index("[[exercise]]", start)]
    rows = [(1, 2, 1), (3, -1, 2), (0, 1, -1)]
    g2 = sum(2 * (F(1, 2) * a - b + F(1, 4) - y) * b for a, b, y in rows) / 3
    assert g2 == F(-10, 3)
    block = block.split("[exercise.claims]")[0] + '[exercise.claims]\ngb = "-10/3"\n'
    _, ex, err = check_json(write(tmp_path, block))
    assert diagnosis_of(ex, "gb")["mistake"] == "bias_gradient_with_x2"
    assert "warning" not in err
