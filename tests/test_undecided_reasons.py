"""Why a formula answer is undecided, said for a reader (derive/exercises/undecided.py): every
declared reason, filled, is one sentence of at most 200 characters in English and in Chinese,
with none of SymPy's names; no judgement is undecided without a declared reason; and claims
made undecided on purpose say the hand-written sentence, never a normal form."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
import sympy as sp

from derive.cli.main import main
from derive.exercises import check_exercise, load
from derive.exercises.undecided import REASONS, SIGN_CHARS, because
from derive.render.labels import explanation

ROOT = Path(__file__).resolve().parents[1]

FIELDS = {
    # the longest a field gets in practice, written by hand
    "name": "microbatch_gradient_sums",     # the longest quantity name of the core recipes
    "size": "100,000",                      # a list's most items (derive/exercises/claims.py)
    "most": "20",
    "terms": "100,000",
    "seconds": "4.2",
    "bits": "32,768",                       # intervals.MAX_BITS
    "sign": "x_1 + x_2 + x_3 + x_4 + x_5 + x_6 − y_12",  # SIGN_CHARS (40) characters
}

SYMPY_NAMES = re.compile(r"Abs|Heaviside|Piecewise|exp\(|sqrt\(|\bE\b|\boo\b|zoo|\bnan\b|"
                         r"Max\(|Min\(|sign\(|Symbol|Integer|Rational|\*\*|Indexed|Sum\(")


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def test_the_sign_field_is_within_its_bound():
    assert len(FIELDS["sign"]) <= SIGN_CHARS


@pytest.mark.parametrize("key", sorted(REASONS))
def test_every_reason_is_one_short_sentence(key):
    reason = REASONS[key]
    assert _fields(reason.en) == _fields(reason.zh), key  # both languages say the same
    why = because(key, **{f: FIELDS[f] for f in _fields(reason.en)})
    for lang, end in (("en", r"[.!?](\s|$)"), ("zh", r"[。!?]")):
        said = why.say(lang)
        assert len(said) <= 200, (lang, len(said), said)
        assert not re.search(end, said), (lang, said)  # one sentence: no full stop inside
        assert "\n" not in said and not SYMPY_NAMES.search(said), (lang, said)
        assert "{" not in said and "}" not in said, said


def test_no_judgement_is_undecided_without_a_declared_reason():
    """The only undecided Judgement derive makes is `undecided(why)` with a declared reason:
    no other line of derive/ builds one from a string."""
    hits = []
    for path in (ROOT / "derive").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"Judgement\((\"undecided\"|UNDECIDED)", line):
                hits.append((str(path.relative_to(ROOT)), line.strip()))
    assert hits == [("derive/exercises/formulas.py",
                     'return Judgement("undecided", str(why), why=why)')], hits


# ------------------------------------------------------------------ undecided on purpose

EXERCISES = """
[[exercise]]
id = "sign-left-open"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [[2, 4]]
[exercise.claims]
gradient = { formula = "(w*x - y)*x + sqrt(x^2 + 2*x + 1) - abs(x + 1)" }

[[exercise]]
id = "too-many-members"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.05
records = [RECORDS]
[exercise.claims]
prediction = { formula = "w*x_i" }
"""


def _bank(tmp_path, which: int) -> Path:
    """The file holding the `which`-th exercise of EXERCISES alone."""
    records = ", ".join(f"[{i}, {i + 1}]" for i in range(1, 22))
    one = EXERCISES.replace("RECORDS", records).split("[[exercise]]")[which + 1]
    path = tmp_path / "undecided.toml"
    path.write_text("[[exercise]]" + one, encoding="utf-8")
    return path


def test_a_claim_equal_only_by_a_sign_says_which_sign(tmp_path):
    """√(x² + 2x + 1) = |x + 1| for every real x, which the kernel neither proves nor refutes:
    the old reason printed its normal form (sqrt(x**2 + 2*x + 1) - Abs(x + 1)); now the
    sentence names the sign that is left open, in the reader form, in both languages."""
    ex = load([str(_bank(tmp_path, 0))])[0]
    c = {c.name: c for c in check_exercise(ex).claims}["gradient"]
    assert c.status == "undecided"
    assert c.diagnosis.explanation == (
        "undecided: the kernel's normal form of the difference still depends on the sign of "
        "x + 1 and no point tried makes the two sides differ; a fact giving that sign may "
        "decide it")
    assert explanation(c.diagnosis, "zh") == (
        "未判定:内核化简后两边之差仍取决于 x + 1 的符号,所试的点也都没有使两边不同;"
        "给出该符号的事实可能判定")


def test_too_many_members_is_said_with_its_numbers(tmp_path, capsys):
    """A formula for a family of 21 members (one prediction per record) is compared on at most
    20: undecided, the numbers in the sentence; check exits 1."""
    code = main(["check", str(_bank(tmp_path, 1)), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    claims = {c["name"]: c for e in doc["exercises"] for c in e["claims"]}
    assert claims["prediction"]["status"] == "undecided"
    assert claims["prediction"]["diagnosis"]["explanation"] == (
        "undecided: prediction has 21 members and a formula is compared on at most 20; "
        "claiming its values, or fewer records, would decide it")


def test_an_undecided_sign_is_written_in_the_reader_form(tmp_path):
    """relu(sin(1)² + cos(1)² − 1 + e^(−10⁵)): the sign no bound decides is written as a reader
    writes it (it was SymPy's -1 + exp(-100000) + cos(1)**2 + sin(1)**2)."""
    path = tmp_path / "sign.toml"
    path.write_text('[[exercise]]\nid = "u1"\nrecipe = "formulas"\n[exercise.given]\nx = 1\n'
                    '[exercise.define]\nq = "relu(sin(1)^2 + cos(1)^2 - 1 + exp(-10^5))"\n'
                    '[exercise.claims]\nq = 0\n', encoding="utf-8")
    report = check_exercise(load([str(path)])[0])
    assert report.undecided == (
        "define.q: computing it needs the sign of e^(−100000) + cos(1)² + sin(1)² − 1 (for "
        "relu), which exact arithmetic cannot decide (certified enclosures up to 32,768 bits "
        "contain 0, and no exact zero test shows it is 0)")


NEAR = """
[[exercise]]
id = "near"
recipe = "formulas"
[exercise.given]
x = 1
[exercise.define]
q = "sin(1)^2 + cos(1)^2 + exp(-10^5)"
h = "q - 1/2 + x*0"
s = "q/2 + x*0"
[exercise.claims]
q = 1
h = { value = 1, places = 0 }
s = { value = 0.5, abs = 0 }
"""


def test_a_number_no_bound_settles_says_why(tmp_path):
    """Values within e^(−10⁵) of the claim, below what 32,768 bits resolve: an exact claim, a
    rounding at a tie and a tolerance of 0 are undecided, each with its sentence (they had
    none), in English and in Chinese."""
    path = tmp_path / "near.toml"
    path.write_text(NEAR, encoding="utf-8")
    claims = {c.name: c for c in check_exercise(load([str(path)])[0]).claims}
    assert {n: c.status for n, c in claims.items()} == {
        "q": "undecided", "h": "undecided", "s": "undecided"}
    assert claims["q"].diagnosis.explanation == (
        "undecided: certified enclosures of up to 32,768 bits contain the claimed value and no "
        "exact zero test shows the difference is 0; a claim with a tolerance (abs = …) would "
        "decide it")
    assert claims["h"].diagnosis.explanation == (
        "undecided: the value lies too near a rounding boundary for certified enclosures of "
        "up to 32,768 bits to settle its rounding; a claim with a tolerance (abs = …) would "
        "decide it")
    assert claims["s"].diagnosis.explanation == (
        "undecided: certified enclosures of up to 32,768 bits do not settle whether the value "
        "is within the claim's tolerance; a looser or tighter tolerance may decide it")
    assert explanation(claims["h"].diagnosis, "zh") == (
        "未判定:该值离舍入边界太近,最多 32,768 位的可靠区间无法确定它的舍入;写明容差"
        "(abs = …)即可判定")


def test_an_unknown_statement_leaves_its_difference_as_a_reader_writes_it():
    """`derive prove`'s detail of an unknown verdict: the normal form in the reader form, never
    SymPy's text (docs/writing-statements.md: the ½ dropped, x*(w*x - y) before), and only its
    size when it is long."""
    from derive.kernel.decide import left_over

    x, w, y = sp.symbols("x w y")
    assert left_over(x * (w * x - y)) == "normal form of the difference: x·(w·x − y)"
    assert left_over(sp.sqrt(x**2 + 2 * x + 1) - sp.Abs(x + 1)) == \
        "normal form of the difference: √(x² + 2·x + 1) − |x + 1|"
    long = sp.Add(*[sp.Symbol(f"a{k}") ** k for k in range(60)])
    assert left_over(long) == ("the normal form of the difference is not 0 (a 454-character "
                               "expression, not shown)")
