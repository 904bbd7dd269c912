"""Carried forward through rounding (issue 34, item 3): a claim computed from the author's
unrounded wrong value, that value claimed rounded, is carried from it when some value that
rounds to the earlier claim gives it. Every claimed value here is worked out with Fractions
from the exercise's numbers by hand (never derive's own values); each near miss is one unit in
the last place past every value the earlier claim's interval gives."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
import sympy as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from derive.exercises import diagnosis
from derive.exercises.bank import load_file
from derive.exercises.check import check_exercise
from derive.exercises.claims import accepted, holds, literal
from derive.kernel import intervals
from derive.render.labels import explanation
from tests.fraction_reference import half_away
from tests.support import examples

UNIT = F(1, 10_000)
HALF = UNIT / 2


def text4(q: F) -> str:
    """q rounded half away from zero to 4 places, as torch prints it (a decimal string)."""
    r = half_away(q, 4)
    n = abs(r.numerator * (10_000 // r.denominator))
    return f"{'-' if r < 0 else ''}{n // 10_000}.{n % 10_000:04d}"


def check(tmp_path, text: str) -> dict:
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    return {c.name: c for c in check_exercise(load_file(path)[0]).claims}


# A loss written as the root mean square error; its gradient reads the loss (d√M/dw = M'/2√M).
RMSE = """[[exercise]]
id = "rmse"
recipe = "formulas"
[exercise.given]
w = 0.5
lr = 2
records = {{ columns = ["x", "y"], rows = [[1.3, 0.2], [2.1, 0.2], [3.4, 0.2]] }}
[exercise.define]
loss = "sqrt(mean_i((w*x_i - y_i)^2))"
gradient = "mean_i((w*x_i - y_i)*x_i)/loss"
w_new = "w - lr*gradient"
[exercise.claims]
loss = "{loss}"
{later}
"""
W, LR = F("0.5"), F("2")
RECORDS = [(F("1.3"), F("0.2")), (F("2.1"), F("0.2")), (F("3.4"), F("0.2"))]
M = sum((W * x - y) * x for x, y in RECORDS) / len(RECORDS)
"""mean_i((w·x_i − y_i)·x_i) = 2.49: the gradient is M/loss."""
WRONG_LOSS = F(607, 640)
"""The lecturer's wrong loss, 0.9484375: claimed 0.9484, carried unrounded."""


def test_the_reference_is_what_the_test_says():
    assert M == F("2.49")
    assert text4(WRONG_LOSS) == "0.9484"
    assert text4(M / WRONG_LOSS) == "2.6254"  # 2.625370…
    assert text4(W - LR * M / WRONG_LOSS) == "-4.7507"  # −4.750741…
    # the claimed decimals themselves give other roundings: the old diagnosis found nothing
    assert text4(M / F("0.9484")) == "2.6255"  # 2.625474…
    assert text4(W - LR * F("2.6254")) == "-4.7508"


def test_a_chain_from_the_unrounded_wrong_loss_is_carried(tmp_path):
    later = 'gradient = "2.6254"\nw_new = "-4.7507"'
    got = check(tmp_path, RMSE.format(loss="0.9484", later=later))
    assert [got[n].status for n in ("loss", "gradient", "w_new")] == ["wrong"] * 3
    g, w = got["gradient"].diagnosis, got["w_new"].diagnosis
    assert g.carried_from == "loss" and g.carried == ("loss",) and g.mistake is None
    assert g.explanation == ("follows correctly from a value that rounds to your wrong loss: "
                             "the error is carried forward")
    assert explanation(g, "zh") == "由一个舍入后等于你错误的 loss 的值正确推出:错误被带到了后面"
    assert g.as_dict()["carried_from"] == "loss"
    assert g.as_dict()["carried_from_all"] == ["loss"]
    assert w.carried == ("gradient",)
    assert "a value that rounds to your wrong gradient" in w.explanation


def test_the_old_diagnosis_misses_it(tmp_path, monkeypatch):
    """Without the interval path (the code before it), nothing is carried: the claimed 0.9484
    itself gives 2.6255, and the claimed 2.6254 gives −4.7508."""
    monkeypatch.setattr(diagnosis, "_carried_rounding", lambda *args: None)
    later = 'gradient = "2.6254"\nw_new = "-4.7507"'
    got = check(tmp_path, RMSE.format(loss="0.9484", later=later))
    assert got["gradient"].diagnosis.carried == ()
    assert got["w_new"].diagnosis.carried == ()


def _image_ends() -> tuple[F, F]:
    """M/L over the values that round to 0.9484, [0.94835, 0.94845): M > 0, so M/L falls,
    from M/0.94835 (reached) down to M/0.94845 (not reached)."""
    return M / (F("0.9484") + HALF), M / (F("0.9484") - HALF)


def test_the_ends_of_the_interval_are_carried_and_one_unit_past_them_is_not(tmp_path):
    low, high = _image_ends()
    top, bottom = half_away(high, 4), half_away(low, 4)
    # each end strictly inside its own rounding cell: the cell meets the image
    assert top - HALF < high < top + HALF and bottom - HALF < low < bottom + HALF
    assert (text4(top), text4(bottom)) == ("2.6256", "2.6253")
    for claimed, carried in [("2.6256", True), ("2.6253", True),
                             ("2.6257", False), ("2.6252", False)]:
        got = check(tmp_path, RMSE.format(loss="0.9484", later=f'gradient = "{claimed}"'))
        d = got["gradient"].diagnosis
        assert got["gradient"].status == "wrong"
        assert (d.carried == ("loss",)) is carried, claimed


def test_a_claim_stated_with_places_stands_for_its_own_interval(tmp_path):
    # { value = 2.62537, places = 4 }: the cell of 2.6254, as the decimal claim's
    later = 'gradient = { value = "2.62537", places = 4 }'
    got = check(tmp_path, RMSE.format(loss="0.9484", later=later))
    assert got["gradient"].diagnosis.carried == ("loss",)
    # an exact later claim (a fraction): M/L = 2.625370… is no fraction of small terms, and
    # 21/8 = 2.625 lies below every value of the image (from 2.62533…)
    got = check(tmp_path, RMSE.format(loss="0.9484", later='gradient = "21/8"'))
    assert got["gradient"].diagnosis.carried == ()


TWO = """[[exercise]]
id = "two"
recipe = "formulas"
[exercise.given]
w = 0.5
b = 0.25
lr = 0.1
records = {{ columns = ["x", "y"], rows = [[1.3, 9.7], [2.1, 9.7]] }}
[exercise.define]
loss = "mean_i((w*x_i + b - y_i)^2)"
gw = "grad(loss, w)"
gb = "grad(loss, b)"
w_new = "w - lr*gw"
b_new = "b - lr*gb"
loss_new = "mean_i((w_new*x_i + b_new - y_i)^2)"
[exercise.claims]
w_new = "{w_new}"
b_new = "{b_new}"
loss_new = "{loss_new}"
"""


def _two() -> tuple[F, F, F]:
    """The author's w_new and b_new stepped with 7/6 of the gradient, and loss_new from
    them, unrounded (Fractions)."""
    w, b, lr = F("0.5"), F("0.25"), F("0.1")
    rec = [(F("1.3"), F("9.7")), (F("2.1"), F("9.7"))]
    r = [w * x + b - y for x, y in rec]
    gw = sum(2 * ri * x for ri, (x, _) in zip(r, rec)) / 2
    gb = sum(2 * ri for ri in r) / 2
    wn, bn = w - F(7, 6) * lr * gw, b - F(7, 6) * lr * gb
    return wn, bn, sum((wn * x + bn - y) ** 2 for x, y in rec) / 2


def test_two_rounded_claims_together(tmp_path):
    wn, bn, ln = _two()
    claims = text4(wn), text4(bn), text4(ln)
    assert claims == ("3.8927", "2.2567", "3.1064")
    w_c, b_c = F(claims[0]), F(claims[1])
    assert text4(sum((w_c * x + b_c - F("9.7")) ** 2 for x in (F("1.3"), F("2.1"))) / 2) \
        == "3.1063"  # the claimed decimals themselves: not carried before
    got = check(tmp_path, TWO.format(w_new=claims[0], b_new=claims[1], loss_new=claims[2]))
    d = got["loss_new"].diagnosis
    assert d.carried == ("w_new", "b_new") and d.carried_from == "w_new"
    assert d.explanation == ("follows correctly from values that round to your wrong w_new "
                             "and b_new together: the errors are carried forward")
    assert explanation(d, "zh") == ("由舍入后分别等于你错误的 w_new、b_new 的值一起正确推出:"
                                    "这些错误被带到了后面")


BOX_X = (F("1.3"), F("2.1"))


def _loss_new(wn: F, bn: F) -> F:
    return sum((wn * x + bn - F("9.7")) ** 2 for x in BOX_X) / 2


def _corners() -> dict[tuple[int, int], F]:
    return {(sw, sb): _loss_new(F("3.8927") + sw * HALF, F("2.2567") + sb * HALF)
            for sw in (-1, 1) for sb in (-1, 1)}


def _reach_of_two(claimed: F) -> bool:
    """Whether some (w', b') that round to (3.8927, 2.2567) give a loss_new that rounds to
    `claimed` (a positive 4-place decimal, its cell [c − ½u, c + ½u)): loss_new falls in
    both w' and b' on the box (see the test), so its values there run from the (+, +)
    corner's (not reached: those ends do not round to the claims) up to the (−, −) corner's
    (reached), every value between reached (the box is connected)."""
    c = _corners()
    return claimed - HALF <= c[-1, -1] and c[1, 1] < claimed + HALF


def test_two_rounded_claims_one_unit_past_their_values_are_not_carried(tmp_path):
    # the partial derivatives of loss_new, affine in (w', b'), are negative at every corner,
    # so on the whole box: loss_new falls in each
    for sw in (-1, 1):
        for sb in (-1, 1):
            wn, bn = F("3.8927") + sw * HALF, F("2.2567") + sb * HALF
            r = [wn * x + bn - F("9.7") for x in BOX_X]
            assert sum(ri * x for ri, x in zip(r, BOX_X)) < 0 and sum(r) < 0
    c = _corners()
    assert (text4(c[1, 1]), text4(c[-1, -1])) == ("3.1061", "3.1065")
    for claimed, carried in [("3.1060", False), ("3.1061", True), ("3.1063", True),
                             ("3.1065", True), ("3.1066", False)]:
        assert _reach_of_two(F(claimed)) is carried
        got = check(tmp_path, TWO.format(w_new="3.8927", b_new="2.2567", loss_new=claimed))
        assert got["loss_new"].status == "wrong"
        found = got["loss_new"].diagnosis.carried == ("w_new", "b_new")
        assert found is carried, claimed


SGD = """[[exercise]]
id = "sgd"
recipe = "sgd_step"
[exercise.given]
w = {w}
lr = {lr}
records = [[{x1}, {y1}], [{x2}, {y2}]]
[exercise.claims]
gradient = "{g}"
w_new = "{w_new}"
"""

decimals4 = st.integers(-30_000, 30_000).map(lambda n: F(n, 10_000))


def _cell(c: F) -> tuple[F, bool, F, bool]:
    """The values that round half away from zero to the 4-place decimal c: (lo, lo in, hi, hi
    in), written out by hand (a positive c's cell holds its lower end, a negative one's its
    upper end, 0's neither)."""
    return c - HALF, c > 0, c + HALF, c < 0


def _meet(a: tuple[F, bool, F, bool], b: tuple[F, bool, F, bool]) -> bool:
    lo, lo_in = max((a[0], a[1]), (b[0], b[1]), key=lambda e: (e[0], not e[1]))
    hi, hi_in = min((a[2], a[3]), (b[2], b[3]), key=lambda e: (e[0], e[1]))
    return lo < hi or (lo == hi and lo_in and hi_in)


@examples(25, slow=200)
@given(w=decimals4, lr=st.integers(1, 10_000).map(lambda n: F(n, 10_000)),
       xs=st.lists(decimals4, min_size=2, max_size=2),
       ys=st.lists(decimals4, min_size=2, max_size=2),
       g=decimals4, step=st.integers(-3, 3))
def test_sgd_step_carried_exactly_when_some_rounded_gradient_gives_w_new(
        tmp_path_factory, w, lr, xs, ys, g, step):
    """sgd_step, torch-printed decimals: a claimed gradient g and a claimed w_new a few units
    from w − lr·g are carried exactly when some value that rounds to g gives a value that
    rounds to the claimed w_new (the image of g's cell under v ↦ w − lr·v, by hand)."""
    right_g = sum((w * x - y) * x for x, y in zip(xs, ys)) / 2
    assume(half_away(right_g, 4) != g)  # the gradient claim is wrong
    claimed = half_away(w - lr * g, 4) + step * UNIT
    right_w = w - lr * right_g
    assume(half_away(right_w, 4) != claimed)  # and the w_new claim too
    assume((right_w * 20_000).denominator != 1)  # no tie: no half-to-even story before it
    lo, lo_in, hi, hi_in = _cell(g)
    image = (w - lr * hi, hi_in, w - lr * lo, lo_in)  # v ↦ w − lr·v falls
    expected = _meet(image, _cell(claimed))
    text = SGD.format(w=w, lr=lr, x1=xs[0], y1=ys[0], x2=xs[1], y2=ys[1], g=text4(g),
                      w_new=text4(claimed))
    path = tmp_path_factory.mktemp("sgd") / "ex.toml"
    path.write_text(_decimals(text), encoding="utf-8")
    got = {c.name: c for c in check_exercise(load_file(path)[0]).claims}
    assert got["gradient"].status == "wrong" and got["w_new"].status == "wrong"
    assert (got["w_new"].diagnosis.carried == ("gradient",)) is expected


def _decimals(text: str) -> str:
    """Fractions of the template written as exact decimals (n/10000 → its 4 places)."""
    import re
    return re.sub(r"(-?\d+)/(\d+)", lambda m: _exact_decimal(F(int(m[1]), int(m[2]))), text)


def _exact_decimal(q: F) -> str:
    assert (q * 10_000).denominator == 1
    return text4(q)


@examples(60)
@given(n=st.integers(-10**6, 10**6), places=st.integers(0, 5),
       probe=st.integers(-2_000, 2_000))
def test_the_accepted_set_is_the_claims_own(n, places, probe):
    """accepted(claim) against holds: a decimal with d places holds exactly on its cell, its
    ends as the claim says (checked on the ends and on points a fraction of the cell away)."""
    c = F(n, 10**places)
    text = f"{'-' if c < 0 else ''}{abs(n) // 10**places}" + (
        f".{abs(n) % 10**places:0{places}d}" if places else ".0")
    claim = literal(text)
    got = accepted(claim)
    h = F(1, 2 * 10**max(places, 1))
    c = half_away(F(text), max(places, 1))
    assert (got.lo, got.hi) == (c - h, c + h)
    point = c + probe * h / 1_000
    assert holds(claim, sp.Rational(point.numerator, point.denominator)) is (
        c - h < point < c + h or (point == c - h and c > 0) or (point == c + h and c < 0))
    assert got.lo_in is (c > 0) and got.hi_in is (c < 0)


def test_an_integer_or_a_fraction_is_a_point_and_sig_is_not_an_interval():
    assert accepted(literal("3")).point and accepted(literal("7/5")).lo == sp.Rational(7, 5)
    from derive.exercises.claims import Claim
    assert accepted(Claim(sp.Rational(1), "1 (sig 2)", test="sig",
                          tolerance=sp.Integer(2))) is None


def test_an_enclosure_over_a_box_certifies_continuity_or_says_none():
    v = sp.Dummy("v", real=True)
    assert intervals.enclose_box(1 / (v - 1), {v: (0, sp.Rational(1, 2))}) == (-2, -1)
    assert intervals.enclose_box(1 / (v - 1), {v: (0, 2)}) is None  # a pole inside
    assert intervals.enclose_box(sp.log(v), {v: (0, 1)}) is None  # log 0
    assert intervals.enclose_box(sp.sqrt(v), {v: (-1, 1)}) is None
    assert intervals.enclose_box(sp.sign(v), {v: (1, 2)}) is None  # no jump is enclosed
    assert intervals.enclose_box(sp.floor(v), {v: (1, 2)}) is None
    u = sp.Dummy("u", real=True)
    assert intervals.enclose_box(u * v, {v: (0, 1)}) is None  # u outside the box
    e = v ** 2 + 1
    assert intervals.enclose_box(e, {v: (0, 1)}) == (1, 2)
    assert intervals.enclose_box(e, {v: (2, 3)}) == (5, 10)  # not the first box's, cached
    assert intervals.enclose(sp.Integer(2) + sp.sqrt(2), 64) is not None
    with pytest.raises(ValueError):
        intervals.enclose_box(e, {v: (1, 0)})


JUMP = """[[exercise]]
id = "jump"
recipe = "formulas"
[exercise.given]
w = 1
[exercise.define]
z = "w - 1 + 1/8"
s = "{s}"
[exercise.claims]
z = "0.0"
s = "0.3"
"""


@pytest.mark.parametrize("s", ["sign(z)/2", "1/(40*z)"])
def test_a_jump_inside_the_interval_is_not_carried(tmp_path, s):
    """z = 1/8 claimed 0.0 (wrong), so z stands for (−0.05, 0.05). sign(z)/2 there is
    −1/2, 0 or 1/2; 1/(40z) is below −1/2 or above 1/2: the ends of the interval give values
    on either side of 0.3, but nothing in between gives 0.3. Continuity is not certified (the
    evaluator decides no sign of a symbol; no enclosure divides by an interval that holds 0),
    so nothing is carried."""
    got = check(tmp_path, JUMP.format(s=s))
    assert got["z"].status == "wrong" and got["s"].status == "wrong"
    assert got["s"].diagnosis.carried == ()


def test_an_end_that_rounds_to_the_claim_carries_without_continuity(tmp_path):
    """z = 1/4 claimed 0.1 stands for [0.05, 0.15), its lower end included (0.05 rounds to
    0.1). relu(z − 1/20)·10 at z = 0.05 is 0, the claimed s: a value that rounds to 0.1 gives
    it, though relu's kink at that end leaves continuity uncertified."""
    text = """[[exercise]]
id = "end"
recipe = "formulas"
[exercise.given]
w = 1
[exercise.define]
z = "w - 3/4"
s = "relu(z - 1/20)*10"
[exercise.claims]
z = "0.1"
s = "0"
"""
    got = check(tmp_path, text)
    # z is 1/4 (0.25, not 0.1); s is relu(1/5)·10 = 2, claimed 0; from 0.1 itself, 0.5
    assert got["z"].status == "wrong" and got["s"].status == "wrong"
    assert got["s"].diagnosis.carried == ("z",)
    # z claimed 0.2 stands for [0.15, 0.25), where relu(z − 1/20)·10 is at least 1: s = 0
    # is not reached
    got = check(tmp_path, text.replace('z = "0.1"', 'z = "0.2"'))
    assert got["s"].diagnosis.carried == ()


ELEMENTWISE = """[[exercise]]
id = "elementwise"
recipe = "formulas"
[exercise.given]
w = 0.5
records = {{ columns = ["x", "y"], rows = [[1.3, 0.2], [2.1, 1.9], [3.4, -1.1]] }}
[exercise.define]
z = "w*x_i - y_i"
q = "10*z_i^2"
[exercise.claims]
z = [{z}]
q = [{q}]
"""
ELEMENT_X = [(F("1.3"), F("0.2")), (F("2.1"), F("1.9")), (F("3.4"), F("-1.1"))]


def _elementwise() -> tuple[list[F], list[str], list[str]]:
    """The author's z, 7/6 of the right w·x_i − y_i, unrounded; z and q = 10·z_i² at 4
    places from it."""
    z = [(F("0.5") * x - y) * F(7, 6) for x, y in ELEMENT_X]
    return z, [text4(v) for v in z], [text4(10 * v * v) for v in z]


def _quoted(texts) -> str:
    return ", ".join(f'"{t}"' for t in texts)


def test_a_list_whose_elements_read_their_own_rounded_numbers_is_carried(tmp_path,
                                                                          monkeypatch):
    z, zs, qs = _elementwise()
    assert zs == ["0.5250", "-0.9917", "3.2667"] and qs == ["2.7563", "9.8340", "106.7111"]
    # from the claimed decimals themselves, q's last two elements round otherwise
    assert [text4(10 * F(t) ** 2) for t in zs] == ["2.7563", "9.8347", "106.7133"]
    text = ELEMENTWISE.format(z=_quoted(zs), q=_quoted(qs))
    d = check(tmp_path, text)["q"].diagnosis
    assert d.carried == ("z",)
    assert d.explanation == ("follows correctly from values that round to your wrong z: the "
                             "error is carried forward")
    assert explanation(d, "zh") == "由一组舍入后等于你错误的 z 的值正确推出:错误被带到了后面"
    monkeypatch.setattr(diagnosis, "_carried_rounding", lambda *args: None)
    assert check(tmp_path, text)["q"].diagnosis.carried == ()


def test_one_element_one_unit_past_its_values_is_not_carried(tmp_path):
    _, zs, qs = _elementwise()
    # 10·z² rises with z > 0: over [3.26665, 3.26675) it stays below 10·3.26675² = 106.7165…
    top = 10 * (F("3.2667") + HALF) ** 2
    assert text4(top) == "106.7166" and F("106.7166") - HALF < top < F("106.7166") + HALF
    for last, carried in [("106.7166", True), ("106.7167", False)]:
        text = ELEMENTWISE.format(z=_quoted(zs), q=_quoted([*qs[:2], last]))
        assert (check(tmp_path, text)["q"].diagnosis.carried == ("z",)) is carried, last


def test_elements_that_read_one_rounded_number_are_not_carried_element_by_element(tmp_path):
    """p = v·x_i with x = (1000, −1000) and v claimed 0.5000, [0.49995, 0.50005): 500.04 needs
    v ≥ 0.500035, −499.96 needs v ≤ 0.499965. Each element alone is reached by some v, the
    two together by none: not carried."""
    text = """[[exercise]]
id = "shared"
recipe = "formulas"
[exercise.given]
w = 0.3
records = [[1000, 0], [-1000, 0]]
[exercise.define]
v = "w + 1/10"
p = "v*x_i"
[exercise.claims]
v = "0.5000"
p = ["500.04", "-499.96"]
"""
    lo, hi = F("0.5") - HALF, F("0.5") + HALF  # v's cell, [lo, hi)
    # 1000·v in [500.035, 500.045) (500.04's cell) for v in [0.500035, 0.500045); −1000·v in
    # (−499.965, −499.955] (−499.96's) for v in [0.499955, 0.499965): both inside [lo, hi),
    # and apart
    first, second = (F("0.500035"), F("0.500045")), (F("0.499955"), F("0.499965"))
    assert lo <= second[0] < second[1] < first[0] < first[1] <= hi
    assert half_away(1000 * first[0], 2) == F("500.04") == half_away(1000 * first[1] - UNIT, 2)
    assert half_away(-1000 * second[1] + UNIT, 2) == F("-499.96") == \
        half_away(-1000 * second[0], 2)
    got = check(tmp_path, text)
    assert got["v"].status == "wrong" and got["p"].status == "wrong"
    assert got["p"].diagnosis.carried == ()
