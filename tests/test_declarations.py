"""Each quantity and each mistake is declared once: a quantity's words (English, Chinese), docs
line and steps-table header on its `Quantity`; a mistake's words, example, target and what it
computes in one declaration. The docs' tables of quantities and mistakes are checked against
the declarations, and every output reads a quantity's one label."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from derive.exercises import check_exercise, load
from derive.recipes import RECIPES
from derive.recipes.base import Quantity, Recipe
from derive.render.derivation import exercises_document, key_document
from derive.render.document import to_markdown
from tests import docs_tables

ROOT = Path(__file__).resolve().parents[1]

DECLARED = [r for r in RECIPES.values() if r.quantities]


@pytest.mark.parametrize("recipe", DECLARED, ids=[r.name for r in DECLARED])
def test_every_quantity_has_words_and_a_docs_line(recipe):
    zh_labels: dict[str, str] = {}
    en_labels: dict[str, str] = {}
    for q in recipe.quantities:
        en, zh = recipe.words_of(q.name)
        assert en.strip() and zh.strip() and q.doc.strip(), q.name
        assert zh not in zh_labels, f"{q.name} and {zh_labels[zh]} are both {zh!r}"
        assert en not in en_labels, f"{q.name} and {en_labels[en]} are both {en!r}"
        zh_labels[zh], en_labels[en] = q.name, q.name




@pytest.mark.parametrize("recipe", DECLARED, ids=[r.name for r in DECLARED])
def test_a_quantity_s_words_have_one_source(recipe):
    """The words are on the quantity; `node_words` holds only the graph's other nodes."""
    for q in recipe.quantities:
        assert q.words[0] and q.words[1], q.name
        assert q.name not in recipe.node_words, q.name


def _recipe(*quantities: Quantity, **kw) -> Recipe:
    return Recipe("toy", "a toy", "", (), quantities, **kw)


def test_steps_columns_are_the_quantities_headers_in_order():
    def nothing(ctx):
        return 0
    recipe = _recipe(Quantity("g", "g", nothing, words=("G", "梯度"), header="g_t"),
                     Quantity("u", "u", nothing, words=("U", "缓冲")),
                     Quantity("w", "w", nothing, words=("W", "权重"), header="w_t"))
    assert dict(recipe.steps_columns) == {"g": "g_t", "w": "w_t"}
    assert list(recipe.steps_columns) == ["g", "w"]
    assert dict(_recipe(Quantity("g", "g", nothing)).steps_columns) == {}


def test_words_of_reads_the_quantity_then_the_other_nodes():
    def nothing(ctx):
        return 0
    recipe = _recipe(Quantity("g", "the gradient", nothing, words=("Gradient", "梯度")),
                     node_words={"g": ("Ignored", "忽略"), "x": ("Input", "输入")})
    assert recipe.words_of("g") == ("Gradient", "梯度")
    assert recipe.words_of("x") == ("Input", "输入")
    assert recipe.words_of("unknown") == ("unknown", "")


# ------------------------------------------------------------------ the docs' tables

def _sections(page: str, level: str) -> dict[str, str]:
    """The page's sections headed `{level} \\`name\\`` by recipe name."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    parts = re.split(rf"(?m)^{level} `([a-z_]+)`\s*$", text)
    end = re.compile(rf"(?m)^#{{1,{len(level)}}} ")  # the next heading of its level or above
    return {parts[i]: end.split(parts[i + 1])[0] for i in range(1, len(parts), 2)}


def _tables(section: str, first: str) -> list[list[dict[str, str]]]:
    """The section's tables whose first column is headed `first`, each a list of rows."""
    out = []
    for block in re.findall(r"(?m)((?:^\|.*\|[ \t]*\n)+)", section):
        lines = block.strip().splitlines()
        head = [c.strip() for c in lines[0].strip()[1:-1].split("|")]
        if head[0] != first:
            continue
        out.append([dict(zip(head, (c.strip() for c in line.strip()[1:-1].split("|"))))
                    for line in lines[2:]])
    return out


def _names(cell: str) -> list[str]:
    return re.findall(r"`([a-z_0-9]+)`", cell)


RECIPE_SECTIONS = _sections("recipes.md", "##")


@pytest.mark.parametrize("name", [r.name for r in DECLARED])
def test_docs_list_each_recipe_s_quantities_as_declared(name):
    """docs/recipes.md's table of a recipe's quantities: the declared ones in derivation
    order, a wrong scheme marked as such, the inputs each needs."""
    recipe = RECIPES[name]
    tables = _tables(RECIPE_SECTIONS[name], "quantity")
    rows = [r for t in tables for r in t]
    order = [q.name for q in recipe.quantities]
    listed = [_names(r["quantity"])[0] for r in rows]
    assert sorted(listed) == sorted(order)
    for table in tables:  # each table in derivation order (optimizer_steps: the state apart)
        names = [_names(r["quantity"])[0] for r in table]
        assert names == sorted(names, key=order.index), names
    for row in rows:
        q = recipe.quantity(_names(row["quantity"])[0])
        if "wrong scheme" in row:
            assert bool(row["wrong scheme"]) == q.wrong, q.name
        if "needs" in row:
            needed = set(_names(row["needs"]))
            assert set(q.needs) <= needed, q.name
            assert all(n in q.when_text for n in needed - set(q.needs)), q.name


DIAGNOSIS_SECTIONS = _sections("diagnosis.md", "###")


@pytest.mark.parametrize("name", [r.name for r in DECLARED])
def test_docs_list_each_recipe_s_mistakes_as_declared(name):
    """docs/diagnosis.md's catalogue: every declared mistake with the quantities it is for
    (its target; a mistake of one name for several targets is one row), and the inputs it
    needs where the table has that column."""
    recipe = RECIPES[name]
    listed: dict[str, list[str]] = {}
    needs: dict[str, set[str]] = {}
    for rows in _tables(DIAGNOSIS_SECTIONS[name], "mistake"):
        for row in rows:
            mistake = _names(row["mistake"])[0]
            listed[mistake] = _names(row["for"].split(" and every")[0])
            if "only with" in row:
                needs[mistake] = set(_names(row["only with"]))
    declared: dict[str, list[str]] = {}
    for m in recipe.mistakes:
        declared.setdefault(m.name, []).append(m.target)
    assert listed == declared
    for m in recipe.mistakes:
        if m.name in needs:
            assert needs[m.name] == set(m.needs), m.name


# ------------------------------------------------------------------ one label in every output

ACCUMULATION = """
[[exercise]]
id = "two-microbatches"
recipe = "accumulation"
[exercise.given]
w = 1
lr = 0.1
microbatches = [[[1, 0], [2, 0]], [[3, 0]]]
[exercise.claims]
gradient = 5
"""


def test_the_key_and_the_working_print_one_label(tmp_path):
    path = tmp_path / "acc.toml"
    path.write_text(ACCUMULATION, encoding="utf-8")
    reports = [check_exercise(ex) for ex in load([str(path)])]
    key_zh = to_markdown(key_document(reports, "zh"))
    work_zh = to_markdown(exercises_document(reports, "zh"))
    work_en = to_markdown(exercises_document(reports, "en"))
    assert "累积梯度(A2) (`gradient`)" in key_zh
    assert "累积梯度(A2) (`gradient`):" in work_zh
    assert "The accumulated gradient (A2) (`gradient`):" in work_en
    assert "每个微批的记录数 (`microbatch_sizes`)" in key_zh
    assert "每个微批的记录数 (`microbatch_sizes`):" in work_zh


def test_the_generated_tables_are_current():
    """The docs' tables written from the optimizers' declarations (`make regen` rewrites
    them): a page that lists an optimizer, option, state or mistake by hand goes stale."""
    for page in docs_tables.pages():
        text = page.read_text(encoding="utf-8")
        assert docs_tables.rewritten(text) == text, f"{page.name}: run `make regen`"
