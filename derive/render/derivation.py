"""Documents for statements, exercises and answer keys: the one place that decides what a
derivation shows; `document` decides how it looks."""

from __future__ import annotations

import re
import unicodedata

from derive.exercises.check import Report, quantity_key
from derive.exercises.errors import ExerciseNotSupported
from derive.exercises.report import Rows
from derive.exercises.working import TooLarge, Working, given_symbols
from derive.graph.formula_limits import FormulaError
from derive.graph.language import ALIASES
from derive.graph.notation import GREEK_LATEX, in_scope, notation_of
from derive.graph.tensor_latex import tensor_latex
from derive.kernel.exact import to_expr
from derive.render.document import (
    Author,
    Document,
    Heading,
    InlineMath,
    Items,
    Math,
    Paragraph,
    Table,
)
from derive.render.escape import escape_latex
from derive.render.formula_tex import symbol_tex
from derive.render.keys import wrong_entries
from derive.render.labels import STATUS, explanation, in_language, words
from derive.render.latex import number
from derive.render.ledger import component_rows
from derive.render.numbers import (
    decimal_line,
    exact_latex,
    exact_matrix_latex,
    exact_plain,
    given_latex,
    given_matrix_latex,
    is_readable,
    key_rounding_rule,
    matrix_latex,
    readable_latex,
    result_latex,
    rounding_rule,
    tensor_result_latex,
    writable,
)
from derive.render.printer import latex
from derive.render.said import typeset
from derive.render.steps import steps_table
from derive.render.symbols import math_symbols
from derive.render.working import formula_tex, tensor_line, tensor_symbols
from derive.render.working import lines as working_lines
from derive.statements import Outcome

# ------------------------------------------------------------------------------- exercises

def input_symbols(ex) -> dict[str, str]:
    """Each input that is one symbol of the exercise's graph, as the working writes it (lr is
    \\eta, params is P, or what a course's [notation] says); other inputs are shown by name."""
    graph, symbols = given_symbols(ex.recipe, ex.given)
    if graph is None:
        return {}
    columns = {c for v in ex.given.values() if isinstance(v, Rows) for c in v.columns}
    with in_scope(graph.notation):
        out = {name: symbol_tex(symbol).text for name, symbol in symbols.items()}
        out.update(tensor_symbols(ex.recipe, ex.given))
        for c in columns:  # a record's column is the family its formulas index (x1 is x_{1,i})
            if c in graph.inputs and c not in out and notation_of(c) is not None:
                out[c] = symbol_tex(c).text
        return out


def _lists(v):
    return [_lists(x) for x in v] if isinstance(v, (list, tuple)) else v


def given_math(ex, authored: bool = False) -> Math:
    """The exercise's inputs as one line of math: w = 1, η = 0.1, records = [[2, 4]]. Names and
    values shown as text are escaped for `\\text{…}` in math (LaTeX and KaTeX). With `authored`
    (what students read) only what the author wrote: an optimizer's own options,
    sgd(momentum=0.9), not every default torch would take (eps, maximize, amsgrad …)."""
    parts, sizes = [], {}
    symbols = input_symbols(ex)
    tensors = {i.name for i in getattr(ex.recipe, "inputs", ()) if i.kind == "tensor"}
    raw = ex.raw.get("given", {}) if isinstance(ex.raw, dict) else {}
    for name, v in ex.given.items():
        if v is None:
            continue
        written = raw.get(name) if isinstance(raw, dict) else None
        symbol = symbols.get(name, rf"\text{{{escape_latex(name, math=True)}}}")
        if isinstance(v, Rows):  # records with named columns, grouped into microbatches
            cols = ", ".join(symbols.get(c, rf"\text{{{escape_latex(c, math=True)}}}")
                             for c in v.columns)
            rows = [list(r) for r in v.rows]
            if v.sizes is not None:
                groups, at = [], 0
                for size in v.sizes:
                    groups.append(rows[at:at + size])
                    at += size
                rows = groups
            symbol = rf"{symbol}\ ({cols})"
            shown = given_latex(written, rows)
        elif isinstance(v, dict):  # a ledger: bytes per parameter by component
            shown = r",\ ".join(rf"\texttt{{{escape_latex(c, math=True)}}} = {exact_latex(b)}"
                                for c, b in v.items())
            shown = rf"\{{ {shown} \}}"
        elif name in tensors:  # a vector or a matrix: a column or a bmatrix
            shown = given_matrix_latex(written, _lists(v))
        elif isinstance(v, (list, tuple, int)) or hasattr(v, "is_number"):
            shown = given_latex(written, _lists(v))
        else:  # a loss convention or an optimizer table, shown as text
            text = str(v)
            if authored and isinstance(written, dict) and hasattr(v, "shown"):
                text = v.shown(set(written) - {"name"})
            shown = rf"\text{{{escape_latex(text, math=True)}}}"
        parts.append(f"{symbol} = {shown}")
        sizes[name] = len(parts[-1])
    longest = max(sizes, key=sizes.get, default=None)  # what a refusal of its length names
    return Math((r",\quad ".join(parts),),
                source=(ex.path, ex.id, None if longest is None else f"given.{longest}"))


def quantity_formula(ex, name: str) -> str:
    """A quantity's formula in LaTeX: from its node where the recipe has a graph."""
    got = formula_tex(ex.recipe, ex.given, name)
    if got is None:
        raise ValueError(f"{ex.recipe.name} has no node {name!r}")
    return got


def _claim_note(c, lang: str, declared: tuple[str, ...] = ()):
    """The claim's status and diagnosis; the words of a mistake the author declared are
    author text (escaped), never prose read for formulas."""
    t = words(lang)
    note = f" — {STATUS[lang][c.status]}"
    where = wrong_entries(c, lang)
    if where:
        note += f" {where}"
    said: tuple = ()
    if c.diagnosis:
        d = c.diagnosis
        name_ = d.mistake or (f"← {', '.join(d.carried)}" if d.carried else "")
        note += f"; {t['diagnosis']}: " + (f"{name_}: " if name_ else "")
        author = d.mistake in declared or any(  # a tie or offer quotes declared words too
            m in declared for m in getattr(d, "candidates", ()))
        said = typeset(explanation(d, lang), author=author)
    shown = _claimed_matrix(c)
    claimed = Author(c.claimed, number=True) if shown is None else InlineMath(shown, c.claimed)
    return Paragraph((f"{t['claimed']}: ", claimed, note, *said), emphasis=True)


_WRITTEN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?(/[0-9]+)?")
"""A claim's entry that is a plain number as written (-0.5, 14/3): set in math as it is."""


def _claimed_matrix(c) -> str | None:
    """A claim of a tensor in the tensor's shape as a matrix (a vector a column) of its
    entries as written: a plain number in math, anything else escaped text; None for any
    other claim (a table per entry, another shape), which is shown as written."""
    if c.shape is None or c.entries is None or len(c.shape) > 2:
        return None

    def entries(v, shape):
        if shape:
            if not isinstance(v, list) or len(v) != shape[0]:
                raise ValueError
            return [entries(x, shape[1:]) for x in v]
        if not isinstance(v, (str, int)) or isinstance(v, bool):
            raise ValueError
        text = str(v).strip()
        if _WRITTEN_NUMBER.fullmatch(text):
            return text
        return rf"\text{{{escape_latex(text, math=True)}}}"
    try:
        return matrix_latex(entries(c.claimed_json, c.shape))
    except ValueError:
        return None


EXACT_ON_REQUEST = 100
"""A decimal's exact fraction is offered on a page (a title) up to this many digits above
and below; a longer one only in the answer key."""


def _digits_at_most(v, limit: int = EXACT_ON_REQUEST) -> bool:
    e = to_expr(v) if not isinstance(v, list) else None
    if e is None or not e.is_Rational:
        return False
    return max(abs(e.p), e.q).bit_length() <= limit * 3.3


def _with_result(line: str, v, students: bool = False) -> str:
    """The line completed by its exact result (not repeated when the substitution already is
    the result: S_2 = 9, not S_2 = 9 = 9); for `students` a result whose fraction is long
    (`readable_latex`: 259200001440000002/160000000800000001) by its decimal after ≈."""
    result = readable_latex(v) if students else result_latex(v)
    if line.rsplit(" = ", 1)[-1] == result:
        return line
    # a closed form too large to show is its decimal: ≈ 0.7538, not = ≈ 0.7538
    return line + (" " if result.startswith(r"\approx") else " = ") + result


def _heading(recipe, name: str, q, lang: str, students: bool = False):
    """A node's heading: the course's words (or the author's, escaped), then its name (not
    for students: `gradient_steps` is an internal name)."""
    t = words(lang)
    tail = ""
    if q is not None:
        tail = ("" if students else f"(`{name}`)") + (f" ({t['wrong_scheme']})" if q.wrong
                                                      else "")
        tail = tail.strip()
    title = recipe.node_titles.get(name)
    if title is not None:
        en, zh = title
        label = Author(zh if lang == "zh" and zh else en)
        return (label, " ", tail + ":") if tail else (label, ":")
    said = in_language(recipe.words_of(name), lang)
    if students and said in GENERIC:  # an author's quantity without a title: its name
        said = f"`{name}`"
    return said + (" " + tail if tail else "") + ":"


GENERIC = ("Quantity", "量")
"""The words of an author's quantity that has no title (derive.recipes.formulas.WORDS): not
shown to students, who read its name or its declared label instead."""


def graph_sections(report: Report, lang: str, claims: bool = True,
                   students: bool = False) -> list[tuple[str, list]]:
    """The working of a graph recipe, node by node in derivation order: (node name, its
    formula → substitution → exact result, one line per member of a family); a steps table
    last, under the name "". Without `claims`, the author's claims are not shown (a page
    that asks for them); for `students`, no internal name in a heading and no long fraction
    in a result (`_with_result`)."""
    t = words(lang)
    ex = report.exercise
    work = Working(ex.recipe, ex.given)
    claimed = {c.name: c for c in report.claims} if claims else {}
    sections: list[tuple[str, list]] = []
    tensors = getattr(ex.recipe, "tensors", {})
    last_entry = {t.entries[-1]: name for name, t in tensors.items()}
    entries = {e for t in tensors.values() for e in t.entries}
    for node in work.graph.nodes:
        if node.name in last_entry:  # a tensor quantity, whole, after its last entry
            name = last_entry[node.name]
            if name in report.values:
                sections.append((name, _tensor_section(report, name, lang,
                                                      claimed.get(name), students)))
        if node.name in entries:
            continue
        q = ex.recipe.quantity(node.name)
        if q is not None and node.name not in report.values:
            continue
        blocks: list = [Paragraph(_heading(ex.recipe, node.name, q, lang, students))]
        table = ex.recipe.node_tables.get(node.name)
        if table is not None:
            blocks.append(Table(*NODE_TABLES[table](work, lang)))
        lines = working_lines(work, node.name)
        shown = [_with_result(text, v, students) if v is not None else text for text, v in lines]
        if len(shown) > 1:  # a family's lines aligned at their first =
            shown = [line.replace(" = ", " &= ", 1) for line in shown]
        exact = "; ".join(e for e in (exact_plain(v) for _, v in lines if students and v is
                                      not None and not is_readable(v) and _digits_at_most(v))
                          )
        blocks.append(Math(tuple(shown), source=(ex.path, ex.id, quantity_key(ex, node.name)),
                           exact=f"{words(lang)['exact']}: {exact}" if exact else ""))
        hidden = work.hidden(node.name) if not ex.recipe.steps_columns else 0
        if hidden:
            blocks.append(Paragraph(t["more_members"].format(count=hidden)))
        if node.name in claimed:
            blocks.append(_claim_note(claimed[node.name], lang,
                                      getattr(ex, "declared", ())))
        sections.append((node.name, blocks))
    if ex.recipe.steps_columns:

        columns = ex.recipe.steps_columns
        sections.append(("", steps_table(work, lang, tuple(columns), columns, students)))
    return sections


def _tensor_section(report: Report, name: str, lang: str, claim, students: bool = False
                    ) -> list:
    """A tensor quantity's working: its heading, then its formula in matrix form, the same
    with the numbers of its givens and earlier quantities substituted where short, and its
    value as a matrix (its entries' own formulas are sympy.diff written out: too long to show
    one by one), then its claim."""
    ex = report.exercise
    q = ex.recipe.quantity(name)
    values = {ALIASES.get(n, n): v for n, v in ex.given.items()
              if isinstance(v, (list, tuple)) or hasattr(v, "is_number")}
    values.update((ALIASES.get(n, n), v) for n, v in report.values.items() if n != name)
    line = tensor_line(ex.recipe, ex.given, name, values)
    result = tensor_result_latex(report.values[name])
    line += (" " if result.startswith(r"\approx") else " = ") + result
    blocks: list = [Paragraph(_heading(ex.recipe, name, q, lang, students)),
                    Math((line,), source=(ex.path, ex.id, quantity_key(ex, name)))]
    if claim is not None:
        blocks.append(_claim_note(claim, lang, getattr(ex, "declared", ())))
    return blocks


def graph_blocks(report: Report, lang: str) -> list:
    """The working of a graph recipe: every node in derivation order, as formula →
    substitution → exact result, one line per member of a family."""
    return [b for _, blocks in graph_sections(report, lang) for b in blocks]


def _components(work, lang):
    return component_rows(work, lang)


NODE_TABLES = {"components": _components}
"""The kinds of table a recipe can ask for before a node's formula (`Recipe.node_tables`)."""


def exercise_blocks(report: Report, lang: str) -> list:
    """One exercise: what is given, then every quantity as formula = numbers = result."""
    t = words(lang)
    ex = report.exercise
    blocks = [Heading(Author(ex.id), 2, ex.title),
              Paragraph(f"{t['recipe']}: `{ex.recipe.name}`. {t['given']}:"), given_math(ex)]
    return blocks + graph_blocks(report, lang)


def _too_large_unsupported(report: Report, doing: str, make, *args):
    """`make(*args)`; a value refused by the evaluator's bounds (TooLarge) as the one
    "not supported" line naming the file and the exercise, never an internal error."""
    try:
        return make(*args)
    except TooLarge as exc:
        ex = report.exercise
        raise ExerciseNotSupported(ex.path, ex.id, None,
                                   f"{doing} needs {exc}, past derive's bound on one "
                                   f"computation",
                                   "export fewer steps; `derive check` and `derive key` give "
                                   "its values") from None


def exercises_document(reports: list[Report], lang: str = "en", name: str = "") -> Document:
    """Every exercise's derivation; `name` (the file or folder) titles the document."""
    t = words(lang)
    blocks: list = [Paragraph(rounding_rule(lang))]
    for r in reports:
        blocks += _too_large_unsupported(r, "writing out its working", exercise_blocks,
                                         writable(r), lang)
    title = (Author(name) if name else Author(reports[0].exercise.id) if len(reports) == 1
             else t["exercises"])
    return Document((f"{t['derivation']}: ", title), tuple(blocks), lang)


def key_document(reports: list[Report], lang: str = "en") -> Document:
    """The answer key: a section per exercise (what is given, then a table of every quantity:
    formula, exact value, decimal). `derive key --format md|tex` and `notebook.key` render
    this one document."""
    t = words(lang)
    blocks: list = [Paragraph(key_rounding_rule(lang))]
    for r in map(writable, reports):
        ex = r.exercise
        blocks.append(Heading(Author(ex.id), 1, ex.title))
        blocks += [Paragraph(f"{t['recipe']}: `{ex.recipe.name}`. {t['given']}:"), given_math(ex)]
        rows = []
        for name, v in r.values.items():
            q = ex.recipe.quantity(name)
            zh = ex.recipe.words_of(name)[1]
            label = f"{zh} (`{name}`)" if lang == "zh" and zh else f"`{name}`"
            label += f" ({t['wrong_scheme']})" if q.wrong else ""
            exact = (exact_matrix_latex(v) if name in getattr(ex.recipe, "tensors", {})
                     else exact_latex(v))
            rows.append((label, ("math", quantity_formula(ex, name)),
                         ("math", exact, exact_plain(v)), decimal_line(v)))
        blocks.append(Table((t["quantity"], t["formula"], t["exact"], t["decimal"]),
                            tuple(rows)))
    return Document(t["key"], tuple(blocks), lang)


# ------------------------------------------------------------------------------ statements

def statement_document(outcome: Outcome, lang: str = "en") -> Document:
    """A statement as the reading would print it: claim, assumptions, the calc chain with its
    reasons, the verdict (and witness), and the course's numbers."""
    t = words(lang)
    s = outcome.statement
    if s.written is not None:  # a file's statement over tensors: the author's own words
        return _written_document(outcome, lang)
    blocks: list = [Paragraph(f"{t['claim']}: {s.claim}")]
    if s.lhs is not None and s.rhs is not None:
        blocks.append(Math((f"{latex(s.lhs)} = {latex(s.rhs)}",)))
    blocks += [Heading(t["assumptions"], 2), Items(s.assumptions)]
    facts = [f for f in outcome.facts]
    if facts:
        blocks += [Heading(t["facts"], 2),
                   Items(tuple(f"{name} — {reason}" + ("" if ok else " ✗")
                               for name, ok, reason, _ in facts))]
    if s.proof is not None:
        lines = [f"{latex(s.proof.start)} &= {latex(s.proof.steps[0].expr)} && \\text{{(1)}}"]
        lines += [f"&= {latex(st.expr)} && \\text{{({n})}}"
                  for n, st in enumerate(s.proof.steps[1:], 2)]
        blocks += [Heading(t["proof"], 2), Math(tuple(lines)),
                   Paragraph(t["steps"] + ":"),
                   Items(tuple(st.reason for st in s.proof.steps), numbered=True)]
    verdict = t[outcome.verdict.value]
    blocks += [Heading(t["verdict"], 2),
               Paragraph(f"{verdict} ({t['expected']}: {t[s.expect.value]}; "
                         f"{t['strategy']}: {outcome.strategy})")]
    if outcome.witness is not None:
        w = outcome.witness
        assignment = ", ".join(f"{math_symbols(n)} = {number(v, decimals=False).text}"
                               for n, v in w.assignment)
        blocks += [Paragraph(f"{t['witness']}: {w.shape}" if w.shape else t["witness"] + ":"),
                   Math((rf"{assignment}: \quad {number(w.lhs, decimals=False).text} \neq "
                         rf"{number(w.rhs, decimals=False).text}",))]
    if s.holds_when:
        blocks.append(Paragraph(f"{t['holds_when']}: " + ", ".join(s.holds_when)))
    if s.notes:
        blocks += [Heading(t["notes"], 2), Items(s.notes)]
    if outcome.instances:
        blocks.append(Heading(t["instances"], 2))
        for inst in outcome.instances:
            rows = []
            for name, want, got, ok in inst.checks:
                shown = getattr(want, "text", None)
                rows.append((name, ("math", exact_latex(got) if got is not None else "-"),
                             f"≈ {shown}" if shown else ("✓" if ok else "✗")))
            blocks += [Paragraph(f"{inst.label} — {inst.source}"),
                       Table((t["quantity"], t["computed"], ""), tuple(rows))]
    title = s.title_zh if lang == "zh" and s.title_zh else s.title
    return Document(f"{s.id} — {title}", tuple(blocks), lang)


def written_tensor_tex(text: str, scalars) -> str:
    """A side of a statement over tensors as the author wrote it, in the lecture's notation
    (derive/graph/tensor_latex.py: W.T is W^{\\top}, grad(L, W) a fraction of ∂); a text the
    printer cannot read (none known: the statement was read with the same grammar) in
    \\texttt, as written."""
    try:
        return tensor_latex(text, statement_name_tex, scalars=scalars)
    except FormulaError:
        return r"\texttt{" + escape_latex(text) + "}"


def _written_document(outcome: Outcome, lang: str) -> Document:
    """A statement of a file over tensors of symbolic size: its claim as the author wrote it,
    in the lecture's notation, the sizes and the entry it is decided at, the assumptions in
    the author's words, the verdict and its witness. Every author string is Author text."""
    t = words(lang)
    s = outcome.statement
    scalars = {name for name, shape in s.names if not shape}
    lhs, rhs = (written_tensor_tex(side, scalars) for side in s.written)
    blocks: list = [Paragraph((f"{t['claim']}: ", Author(s.claim))),
                    Math((f"{lhs} = {rhs}",))]
    shapes = [(f"{t['sizes']}: ", ", ".join(s.sizes))] if s.sizes else []
    declared = [f"{name} {_shape_text(shape)}" for name, shape in s.names
                if name not in s.sizes]
    if declared:
        shapes.append((f"{t['shapes']}: ", ", ".join(declared)))
    if s.indices:
        shapes.append((f"{t['entrywise']}: ", ", ".join(s.indices)))
    blocks += [Items(tuple(shapes))] if shapes else []
    if s.assumptions:
        blocks += [Heading(t["assumptions"], 2),
                   Items(tuple(Author(a) for a in s.assumptions))]
    verdict = t[outcome.verdict.value]
    blocks += [Heading(t["verdict"], 2),
               Paragraph(f"{verdict} ({t['expected']}: {t[s.expect.value]}; "
                         f"{t['strategy']}: {outcome.strategy})")]
    if outcome.witness is not None:
        w = outcome.witness
        blocks += [Paragraph((f"{t['witness']}: ", Author(w.shape)) if w.shape
                             else t["witness"] + ":")]
        entries = ", ".join(f"{_entry_tex(n)} = {number(v, decimals=False).text}"
                            for n, v in w.assignment)
        blocks.append(Math((rf"{entries}: \quad {number(w.lhs, decimals=False).text} \neq "
                            rf"{number(w.rhs, decimals=False).text}",)))
    title = s.title_zh if lang == "zh" and s.title_zh else s.title
    return Document((Author(s.id), " — ", Author(title)), tuple(blocks), lang)


def _shape_text(shape: tuple[str, ...]) -> str:
    return "(" + ", ".join(shape) + ("," if len(shape) == 1 else "") + ")"


_ENTRY = re.compile(r"([A-Za-z][A-Za-z0-9]*)\[([0-9, ]+)\]")


def _entry_tex(text: str) -> str:
    """A witness's entry `W[1, 2]` as W_{1,2}, a number `eps` as the notation writes it."""
    m = _ENTRY.fullmatch(text)
    if m is None:
        return statement_name_tex(text)
    core = statement_name_tex(m.group(1))
    if "_" in core:  # W_{1} at [1, 2]: (W_{1})_{1,2}
        core = f"({core})"
    return f"{core}_{{{m.group(2).replace(' ', '')}}}"


_NAMED = re.compile(r"([A-Za-z]+?)([0-9]*)")
_GREEK_NAMES = {"eps": "epsilon", "lambda": "lamda"}  # Unicode spells λ LAMDA


def statement_name_tex(word: str) -> str:
    """A declared name of a statement as the board writes it: delta2 is δ_{2}, W1 is W_{1},
    gamma is γ, eps is ε, x is x; another word upright (\\mathrm{loss}). Declared names are
    ASCII letters and digits (tensor_statements.py), anything else is set as escaped text."""
    m = _NAMED.fullmatch(word)
    if m is None:
        return r"\text{" + escape_latex(word, math=True) + "}"
    head, digits = m.groups()
    greek = None
    if len(head) > 1 and head.islower():
        try:
            greek = GREEK_LATEX.get(unicodedata.lookup(
                f"GREEK SMALL LETTER {_GREEK_NAMES.get(head, head).upper()}"))
        except KeyError:
            greek = None
    core = greek or (head if len(head) == 1 else rf"\mathrm{{{head}}}")
    return core + (f"_{{{digits}}}" if digits else "")


def statements_document(outcomes: list[Outcome], lang: str = "en", name: str = "") -> Document:
    """The statements of a file, one section each (`derive export FILE.toml`)."""
    blocks: list = []
    for o in outcomes:
        s = o.statement
        title = s.title_zh if lang == "zh" and s.title_zh else s.title
        # a file's id and title are its author's words, escaped as such (proofs/ are ours)
        blocks += [Heading((Author(s.id), " — ", Author(title)), 1),
                   *statement_document(o, lang).blocks]
    return Document(Author(name) if name else words(lang)["statements"], tuple(blocks), lang)
