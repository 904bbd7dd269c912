"""The docs' tables that only list declarations, written from them: the optimizers' options,
saved state, state quantities and named mistakes (derive/optimizers). Each sits in a page
between `<!-- generated: NAME -->` and `<!-- end generated -->`; `make regen` (through
tests/update_docs.py) rewrites it, and tests/test_docs.py fails while a page is not current.
"""

from __future__ import annotations

import re
from pathlib import Path

from derive.graph.words import parts_of
from derive.kernel.exact import decimal_str
from derive.optimizers import REGISTRY
from derive.recipes import RECIPES
from derive.recipes.optimizer_steps.mistakes import STEP_MISTAKES

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- generated: ([a-z_]+) -->\n)(.*?)(<!-- end generated -->)", re.S)


def _value(v) -> str:
    """An option's default as an exercise file writes it (1e-8 for 1/10⁸)."""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    q = v.q if v.is_Rational else 0
    if v.is_Rational and v.p == 1 and q >= 10**5 and 10 ** (len(str(q)) - 1) == q:
        return f"1e-{len(str(q)) - 1}"
    return decimal_str(v)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _words(words: str) -> str:
    """A mistake's words as the docs' Markdown: text, and each math span as `$…$` (its LaTeX
    as the module wrote it, derive/graph/words.py)."""
    return "".join(_cell(p) if isinstance(p, str) else f"${p.tex}$".replace("|", r"\vert ")
                   for p in parts_of(words))


def _owners(slot) -> str:
    return ", ".join(f"`{n}`" for n, spec in REGISTRY.items() if slot in spec.slots)


def optimizer_options() -> list[str]:
    out = ["| `name` | torch class | options and defaults |", "| --- | --- | --- |"]
    for name, spec in REGISTRY.items():
        options = ", ".join(f"`{o.name} = {_value(o.default)}`" for o in spec.options)
        out.append(f'| `"{name}"` | `torch.optim.{spec.torch_class}` | {options} |')
    return out


def optimizer_state() -> list[str]:
    out = ["| `name` | `state` holds (of b: `b_…`) | torch's state_dict keys |",
           "| --- | --- | --- |"]
    for name, spec in REGISTRY.items():
        keys = (["`step`"] if spec.keeps_step else []) + [
            f"`{s.key}`" + (f" ({_cell(s.used_text)})" if s.used_text else "")
            for s in spec.slots]
        torch_keys = (["`step`"] if spec.keeps_step else []) + [
            f"`{s.torch_key}`" for s in spec.slots]
        out.append(f'| `"{name}"` | {", ".join(keys) or "nothing"} | '
                   f'{", ".join(torch_keys) or "nothing"} |')
    return out


def optimizer_quantities() -> list[str]:
    """The claimable state quantities, in derivation order."""
    recipe = RECIPES["optimizer_steps"]
    state = {q.name for q in recipe.quantities if q.when is not None}
    out = ["| quantity | meaning | needs |", "| --- | --- | --- |"]
    for q in recipe.quantities:
        if q.name in state:
            needs = ", ".join([f"`{n}`" for n in q.needs] + [_cell(q.when_text)])
            out.append(f"| `{q.name}` | {_cell(q.doc)} | {needs} |")
    return out


def optimizer_mistakes() -> list[str]:
    """Every optimizer's named mistakes: the quantity each is for, in the module's words."""
    rows: dict[str, list] = {m.name: [m, ["every optimizer"]] for m in STEP_MISTAKES}
    for name, spec in REGISTRY.items():
        for m in spec.mistakes:
            row = rows.setdefault(m.name, [m, []])
            row[1].append(name)
    out = ["| mistake | optimizers | for | computes |", "| --- | --- | --- | --- |"]
    for m, names in rows.values():
        target = f"`{m.target}`" + (" and every later quantity it changes" if m.spreads else "")
        if m.at_step:  # named at each quantity its example claims
            target = ", ".join(f"`{q}`" for q in dict.fromkeys((m.target, *m.example[1])))
        shown = ", ".join(n if n == "every optimizer" else f"`{n}`" for n in names)
        out.append(f"| `{m.name}` | {shown} | {target} | "
                   f"{_words(m.en)} |")
    return out


TABLES = {"optimizer_options": optimizer_options, "optimizer_state": optimizer_state,
          "optimizer_quantities": optimizer_quantities, "optimizer_mistakes": optimizer_mistakes}


def rewritten(text: str) -> str:
    """The page with every generated block written from the declarations."""
    def fill(m):
        if m.group(2) not in TABLES:
            raise KeyError(f"no generated table {m.group(2)!r}")
        return m.group(1) + "\n".join(TABLES[m.group(2)]()) + "\n" + m.group(4)
    return BLOCK.sub(fill, text)


def pages() -> list[Path]:
    return sorted(p for p in (ROOT / "docs").rglob("*.md")
                  if "<!-- generated: " in p.read_text(encoding="utf-8"))


def main() -> None:
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = rewritten(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"rewrote the generated tables of {page.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
