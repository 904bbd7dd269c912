"""A vector's or a matrix's question on the self-check page: a grid of inputs, one per entry,
judged entry by entry (issue 35 item 6), in Debian's Chromium and, for the judge alone, in
QuickJS.

Every expected value is computed here with Fractions from the exercise's numbers (a matrix
product written out below), never read from derive or from the page's data; the feedback
texts are written by hand.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
import quickjs
from browser import PHONE, feedback_text, open_page
from hypothesis import given
from hypothesis import strategies as st
from support import examples

from derive.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
PAGE_JS = ROOT / "derive" / "render" / "web" / "page.js"

W = [[1, 0, -1, 2], [Fraction(1, 2), 1, 0, -1], [2, -1, 1, 0]]
X = [1, 2, -1, Fraction(1, 2)]
Y = [1, 0, 2]
A = [[1, 2], [3, 4]]
B = [[0, 1], [-1, 2]]
C = [[2, 0], [1, 1]]

GRID = """
[[exercise]]
id = "grid"
title = "A linear layer's gradient, and a product"
recipe = "formulas"

[exercise.given]
W = [[1, 0, -1, 2], [0.5, 1, 0, -1], [2, -1, 1, 0]]
x = [1, 2, -1, 0.5]
y = [1, 0, 2]
A = [[1, 2], [3, 4]]
B = [[0, 1], [-1, 2]]
C = [[2, 0], [1, 1]]

[exercise.define]
z = "W @ x"
gW = "grad(mse_loss(z, y), W)"
M = "A @ B"
N = "M @ C"

[exercise.claims]
z = [3, 2, -1]
gW = [["4/3", "8/3", "-4/3", "2/3"], ["4/3", "8/3", "-4/3", "2/3"], [-2, -4, 2, -1]]
M = [[-2, 5], [-4, 11]]
N = [[1, 5], [3, 11]]
"""


def _matmul(p, q):
    return [[sum(Fraction(p[i][k]) * q[k][j] for k in range(len(q))) for j in range(len(q[0]))]
            for i in range(len(p))]


def _z():
    return [sum(Fraction(w) * x for w, x in zip(row, X)) for row in W]


def _gW():
    """∂/∂W of mean((Wx − y)²): (2/n)(z_i − y_i) x_j, written out."""
    z = _z()
    return [[Fraction(2, len(Y)) * (z[i] - Y[i]) * x for x in X] for i in range(len(Y))]


def _text(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def _flat(m):
    return [e for row in m for e in row]


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("grid")
    (folder / "grid.toml").write_text(GRID, encoding="utf-8")
    out = {}
    for lang in ("en", "zh"):
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["export", str(folder / "grid.toml"), "--format", "html", "--lang",
                         lang, "-o", str(folder / f"grid-{lang}.html"), "--no-cache"])
        assert code == 0, err.getvalue()
        out[lang] = folder / f"grid-{lang}.html"
    return out


def _keys(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="derive-data">(.*?)</script>', text, re.S).group(1))
    (variant,) = data["variants"]
    return {q["name"]: key for key, q in variant["questions"].items()}


def fill_grid(page, key: str, texts: list[str]) -> tuple[str, str, list[int]]:
    """Type one text per cell (row-major), check, and read the status, the feedback and the
    cells marked wrong (aria-invalid, and the mark the stylesheet draws beside them)."""
    for i, t in enumerate(texts):
        page.locator(f"#{key}-cell-{i}").fill(t)
    page.locator(f"button.check[data-q='{key}']").click()
    marked = page.evaluate("""key => Array.from(document.querySelectorAll(
        '#' + key + '-input input')).map((c, i) => [i, c.getAttribute('aria-invalid'),
        c.parentNode.getAttribute('data-wrong'),
        getComputedStyle(c.parentNode, '::after').content,
        getComputedStyle(c).borderTopStyle])""", key)
    wrong = [i for i, invalid, *_ in marked if invalid == "true"]
    for i, invalid, box, mark, border in marked:  # the mark is a sign, not a colour alone
        if invalid == "true":
            assert (box, mark, border) == ("true", '"\u2717"', "dashed"), (i, box, mark, border)
        else:
            assert (invalid, box, mark, border) == (None, None, "none", "solid"), i
    feedback = page.locator(f"#{key}-feedback")
    return feedback.get_attribute("data-status"), feedback_text(page, key), wrong


def test_a_matrix_is_a_grid_not_left_out(pages):
    """Each entry its own input, inputmode decimal, labelled with its row and column; no
    tensor question left out (before: 'Not on this page: … a page cannot check a value of
    this shape')."""
    text = pages["en"].read_text(encoding="utf-8")
    keys = _keys(pages["en"])
    assert "Not on this page" not in text.split('id="derive-data"')[0]
    for name, rows, cols in [("z", 3, 1), ("gW", 3, 4), ("M", 2, 2)]:
        cells = re.findall(rf'<input id="{keys[name]}-cell-(\d+)"[^>]*>', text)
        assert [int(c) for c in cells] == list(range(rows * cols))
        for tag in re.findall(rf'<input id="{keys[name]}-cell-\d+"[^>]*>', text):
            assert 'inputmode="decimal"' in tag
    assert 'aria-label="gW, row 2, column 3"' in text
    assert 'aria-label="z, entry 3"' in text
    assert "gW,第 2 行第 3 列" in pages["zh"].read_text(encoding="utf-8")


def test_right_matrix_and_one_wrong_cell(browser, pages):
    keys = _keys(pages["en"])
    right = [_text(v) for v in _flat(_gW())]
    with open_page(browser, pages["en"]) as opened:
        page = opened.page
        assert fill_grid(page, keys["gW"], right) == ("right", "Right.", [])
        for k in (0, 6, 11):  # one cell one off, each corner and the middle in turn
            typed = list(right)
            typed[k] = _text(_flat(_gW())[k] + 1)
            r, c = divmod(k, 4)
            assert fill_grid(page, keys["gW"], typed) == (
                "wrong", f"Not right: the marked entry is wrong: ({r + 1},{c + 1}).", [k])
        typed = list(right)
        typed[1], typed[4] = "0.5", "abc"
        status, said, wrong = fill_grid(page, keys["gW"], typed[:2] + [""] + typed[3:])
        assert (status, wrong) == ("nan", [2, 4])
        assert said.startswith("\u201cabc\u201d is not a number")
        assert fill_grid(page, keys["gW"], right) == ("right", "Right.", [])  # marks cleared
        assert fill_grid(page, keys["z"], [_text(v) for v in _z()]) == ("right", "Right.", [])
        assert opened.errors == [] and opened.csp_violations == []


def test_a_transposed_matrix_is_named(browser, pages):
    """The built-in whole-tensor mistake `transposed` is named for the whole matrix, as derive
    check names it (an author's own "the product transposed" declared beside it would give the
    same value: a tie, named by neither); its wrong cells are marked: the two off the
    diagonal."""
    product = _matmul(A, B)
    transposed = [[product[j][i] for j in range(2)] for i in range(2)]
    assert transposed != product
    keys = _keys(pages["en"])
    with open_page(browser, pages["en"]) as opened:
        assert fill_grid(opened.page, keys["M"], [_text(v) for v in _flat(transposed)]) == (
            "wrong", "Not right. This is the value of a known mistake: the transpose of the right "
            "matrix (entry (i, j) written at (j, i))", [1, 2])
        assert fill_grid(opened.page, keys["M"], [_text(v) for v in _flat(product)]) == (
            "right", "Right.", [])
    keys = _keys(pages["zh"])
    with open_page(browser, pages["zh"], lang="zh") as opened:
        assert fill_grid(opened.page, keys["M"], [_text(v) for v in _flat(transposed)]) == (
            "wrong", "不正确。这正是以下错误会得到的值:写成了正确矩阵的转置(第 (i, j) 个元素写在了 "
            "(j, i) 处)", [1, 2])


def test_carried_from_a_wrong_matrix_names_nothing(browser, pages):
    """N = M C computed from the student's own wrong M: derive check says carried from M; the
    page cannot evaluate a form in a matrix's entries yet, so it names nothing (neither
    carried nor a mistake), and marks N's wrong entries."""
    keys = _keys(pages["en"])
    m = _matmul(A, B)
    assert _matmul(m, C) == [[1, 5], [3, 11]]
    wrong_m = [row[:] for row in m]
    wrong_m[0][0] += 1
    n = _matmul(wrong_m, C)
    with open_page(browser, pages["en"]) as opened:
        page = opened.page
        assert fill_grid(page, keys["M"], [_text(v) for v in _flat(wrong_m)])[2] == [0]
        assert fill_grid(page, keys["N"], [_text(v) for v in _flat(n)]) == (
            "wrong", "Not right: the marked entry is wrong: (1,1).", [0])


def test_a_3x4_matrix_fits_a_375px_phone(browser, pages):
    """At 375 px no horizontal page scroll: the 3×4 grid and its every cell lie within the
    viewport, the grid scrolls nowhere, and the cells are tall enough to touch."""
    phone = {**PHONE, "viewport": {"width": 375, "height": 812}}
    keys = _keys(pages["en"])
    for lang in ("en", "zh"):
        with open_page(browser, pages[lang], device=phone, lang=lang) as opened:
            page = opened.page
            grid = f"#{keys['gW']}-input"
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
            box = page.locator(grid).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 375
            assert page.evaluate(f"(g => g.scrollWidth <= g.clientWidth)("
                                 f"document.querySelector('{grid}'))")
            for i in range(12):
                cell = page.locator(f"#{keys['gW']}-cell-{i}").bounding_box()
                assert cell["x"] >= 0 and cell["x"] + cell["width"] <= 375
                assert cell["height"] >= 40 and cell["width"] >= 44
            row = [page.locator(f"#{keys['gW']}-cell-{i}").bounding_box()["y"]
                   for i in range(4)]
            assert len(set(row)) == 1  # a row of the matrix is one row of the grid
            typed = [_text(v) for v in _flat(_gW())]
            typed[5] = "-0.123456"
            assert fill_grid(page, keys["gW"], typed)[2] == [5]
            assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_a_grid_is_kept_on_reload(browser, pages):
    keys = _keys(pages["en"])
    typed = [_text(v) for v in _flat(_gW())]
    typed[3] = "7"
    with open_page(browser, pages["en"]) as opened:
        page = opened.page
        assert fill_grid(page, keys["gW"], typed)[2] == [3]
        page.reload(wait_until="load")
        assert [page.locator(f"#{keys['gW']}-cell-{i}").input_value() for i in range(12)] \
            == typed
        assert page.locator(f"#{keys['gW']}-cell-3").get_attribute("aria-invalid") == "true"
        page.locator("#derive-start-over").click()
        assert page.locator(f"#{keys['gW']}-cell-3").input_value() == ""
        assert page.locator(f"#{keys['gW']}-cell-3").get_attribute("aria-invalid") is None


# ------------------------------------------------------------ the judge alone, in QuickJS

_JS = quickjs.Context()
_JS.eval(PAGE_JS.read_text(encoding="utf-8"))
_JS.eval("""function T_grid(texts, q) {
  var r = DeriveCheck.classify(JSON.parse(texts), JSON.parse(q), {}, {}, {});
  return JSON.stringify([r.status, r.cells]); }""")


fractions = st.fractions(min_value=-50, max_value=50, max_denominator=12)


@examples(60)
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), data=st.data())
def test_each_wrong_entry_and_only_it_is_marked(rows, cols, data):
    """Any matrix up to 4×4, any entries typed exactly or changed: the cells marked are the
    entries that differ (Fraction comparison), the status is wrong exactly when one does."""
    n = rows * cols
    right = data.draw(st.lists(fractions, min_size=n, max_size=n))
    changed = data.draw(st.sets(st.integers(0, n - 1)))
    typed = list(right)
    for k in changed:
        typed[k] = right[k] + data.draw(st.sampled_from([1, -1, Fraction(1, 3), 7]))
    q = {"name": "G", "shape": [rows, cols], "size": n, "rule": {"kind": "exact"},
         "value": [{"q": _text(v)} for v in right], "mistakes": [], "early": [],
         "earlier": [], "artefact": [None] * n, "carried": {"single": {}, "all": None}}
    status, cells = json.loads(_JS.eval(
        f"T_grid({json.dumps(json.dumps([_text(v) for v in typed]))}, "
        f"{json.dumps(json.dumps(q))})"))
    assert cells == sorted(changed)
    assert status == ("wrong" if changed else "right")


def test_a_cell_label_is_escaped(tmp_path):
    """An author's title of a tensor quantity reaches each cell's aria-label as text."""
    (tmp_path / "h.toml").write_text("""
[[exercise]]
id = "h"
recipe = "formulas"
[exercise.given]
A = [[1, 2], [3, 4]]
[exercise.define]
M = { formula = "A @ A", title = "M \\"><img src=x onerror=alert(1)> & <b>" }
[exercise.claims]
M = [[7, 10], [15, 22]]
""", encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["export", str(tmp_path / "h.toml"), "--format", "html", "-o",
                     str(tmp_path / "h.html"), "--no-cache"]) == 0
    text = (tmp_path / "h.html").read_text(encoding="utf-8")
    assert "<img src=x" not in text
    assert text.count('aria-label="M &quot;&gt;&lt;img src=x onerror=alert(1)&gt; &amp; '
                      '&lt;b&gt;, row 2, column 1"') == 1
