"""What students read (issue 37, "internal names reach students"): the Given line shows the
author's givens only; a question names its quantity by the course's or the author's words, or by
its symbol, never by an internal name; a working's long fraction is shown by its decimal; a
declared label, prompt and precision reach the page, judged in Chromium. Expected strings are
hand-written.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
import sympy as sp
from browser import feedback_text, open_page
from test_page_browser import _keys, ask

from derive.cli.main import main
from derive.render.numbers import readable_latex

ROOT = Path(__file__).resolve().parent.parent

ADAM = """[[exercise]]
id = "adam-one"
title = "One Adam step"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.1
batches = [[[1, 2]]]
optimizer = { name = "adam", betas = [0.9, 0.99] }
"""

OWN = """[[exercise]]
id = "own"
recipe = "formulas"
[exercise.given]
w = 2
x = 3
[exercise.define]
gw = "w*x"
"""


def _sheet(tmp_path: Path, text: str, *more: str) -> str:
    path = tmp_path / "ex.toml"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["export", str(path), "--questions", "--format", "md", *more]) == 0
    return out.getvalue()


def test_the_given_line_is_what_the_author_gave(tmp_path):
    md = _sheet(tmp_path, ADAM)
    assert r"\text{optimizer} = \text{adam(betas=[0.9, 0.99])}" in md
    for default in ("eps", "amsgrad", "maximize", "weight\\_decay"):
        assert default not in md


def test_no_internal_name_in_a_question(tmp_path):
    md = _sheet(tmp_path, OWN)
    assert "Quantity" not in md and "`gw`" not in md
    assert "1. $g_{w} = ?$" in md or "1. $gw = ?$" in md or "1. $\\mathrm{gw} = ?$" in md, md
    zh = _sheet(tmp_path, OWN, "--lang", "zh")
    assert "量" not in zh.split("求:")[1]
    adam = _sheet(tmp_path, ADAM)
    assert "`w_steps`" not in adam and "`gradient_steps`" not in adam


def test_a_declared_label_and_prompt_name_the_question(tmp_path):
    md = _sheet(tmp_path, OWN + """[exercise.ask.gw]
label = { en = "gradient", zh = "梯度" }
""")
    assert "1. gradient: $" in md
    zh = _sheet(tmp_path, OWN + """[exercise.ask.gw]
label = { en = "gradient", zh = "梯度" }
""", "--lang", "zh")
    assert "1. 梯度: $" in zh
    md = _sheet(tmp_path, OWN + """[exercise.ask.gw]
prompt = "Multiply <w> by x."
""")
    assert "1. Multiply &lt;w&gt; by x. $\\mathrm{gw} = ?$" in md  # escaped: author text


def test_a_long_fraction_is_read_as_a_decimal():
    assert readable_latex(sp.Rational(259200001440000002, 160000000800000001)) == \
        r"\approx 1.620000"
    assert readable_latex(sp.Rational(14, 3)) == r"\frac{14}{3} \approx 4.666667"
    assert readable_latex(sp.Rational(18, 25)) == "0.72"
    assert readable_latex(sp.Rational(16063328781, 15625000000)) == r"\approx 1.028053"


PAGE = """[[exercise]]
id = "mb"
title = "three microbatches"
recipe = "accumulation"
[exercise.given]
w = 0
lr = 0.1
microbatches = [[[1, -0.2]], [[1, -0.54]], [[1, 5.52]]]
[exercise.claims]
microbatch_mean_gradients = [0.2, 0.36, -5.5]
gradient = -1.6
[exercise.ask.gradient]
places = 1
label = { en = "mean gradient", zh = "平均梯度" }
"""


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    folder = tmp_path_factory.mktemp("declared")
    (folder / "mb.toml").write_text(PAGE, encoding="utf-8")
    out = {}
    for lang in ("en", "zh"):
        out[lang] = folder / f"mb-{lang}.html"
        with contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            assert main(["export", str(folder / "mb.toml"), "--format", "html", "-o",
                         str(out[lang]), "--lang", lang]) == 0
    return out


def test_the_page_asks_as_declared_and_never_from_a_claim(browser, declared):
    """[0.2, 0.36, -5.5] was claimed for [0.2, 0.54, -5.52]: "0.2, 0.5, -5.5" passed at 1
    place; the means are now asked exactly. The gradient (0.2 + 0.54 - 5.52)/3 = -1.593333…
    is declared at 1 place and labelled "mean gradient"."""
    keys = _keys(declared["en"])
    with open_page(browser, declared["en"]) as opened:
        page = opened.page
        means, gradient = keys["microbatch_mean_gradients"], keys["gradient"]
        assert page.locator(f"#{means}-hint").inner_text() == (
            "3 numbers, separated by commas. Give the exact values (an integer, a fraction or "
            "a decimal that terminates).")
        assert page.locator(f"#{gradient}-hint").inner_text() == (
            "A number: an integer, a decimal or a fraction (14/3). Give it rounded to 1 "
            "decimal place.")
        assert "mean gradient" in page.locator(f"li[data-q='{gradient}']").inner_text()
        assert ask(page, means, "0.2, 0.5, -5.5")[0] == "rounded"  # not right: exact asked
        assert ask(page, means, "0.2, 0.54, -5.52") == ("right", "Right.")
        assert ask(page, gradient, "-1.6") == (
            "right", "Right: the exact value rounded to 1 place.")
        assert ask(page, gradient, "-2.5")[0] == "wrong"
        assert opened.errors == []
    with open_page(browser, declared["zh"], lang="zh") as opened:
        page = opened.page
        assert "平均梯度" in page.locator(f"li[data-q='{keys['gradient']}']").inner_text()
        assert page.locator(f"#{keys['gradient']}-hint").inner_text().endswith(
            "结果四舍五入,保留 1 位小数。")
        assert feedback_text(page, keys["gradient"]) == ""


def test_a_working_offers_the_exact_fraction_on_request(tmp_path):
    """lesson03-resume: the loss after step 3, 16063328781/15625000000 (12 places), is shown
    as ≈ 1.028053 in the working, its fraction in the line's title (hand-written)."""
    out = tmp_path / "p.html"
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["export", str(ROOT / "proofs" / "course" / "lesson03-resume.toml"),
                     "--format", "html", "-o",
                     str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert 'title="Exact: 16063328781/15625000000"' in html
    assert "16063328781}{15625000000" not in html  # no \frac of it in a line
