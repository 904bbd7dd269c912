"""Formula answers: a claim `{ formula = "(w*x - y)*x" }` compared with the quantity's own
symbolic form by the proof kernel.

The comparison is made for the exercise's structure: its counts and sizes (N records, K
microbatches) take their values and every Σ is written out, while the real-valued inputs
(w, b, η, x_i, y_i) stay symbols. So `mean_i((w*x_i - y_i)*x_i)` and a form with the
exercise's N written in both hold for three records; for one record, x and y are the
record's own (x_1 is x). Status: `equivalent` when the kernel proves claim = form,
`wrong` with its exact witness (a point where both are defined and differ), else
`undecided` (not a pass).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from derive.exercises.author_facts import NONE, AuthorFacts, read_facts
from derive.exercises.errors import ExerciseNotSupported, did_you_mean
from derive.exercises.formula_names import _Symbols, _unnamed
from derive.exercises.formula_steps import StepForm, step_quantity
from derive.exercises.undecided import Undecided, because, left_open
from derive.exercises.values import Where
from derive.graph.domains import domain_facts
from derive.graph.formula_text import NotWritable, formula_text
from derive.graph.graph import Graph
from derive.graph.language import (
    DEFAULT_INDICES,
    FormulaError,
    FormulaNotSupported,
    _tokens,
    evaluated,
    parse_formula,
    written_name,
)
from derive.graph.notation import in_scope
from derive.graph.reader import formula_reader
from derive.graph.symbolic import (
    MAX_DERIVATIVES,
    Inliner,
    NoForm,
    Specialiser,
    TooLarge,
    derivatives_taken,
    symbolic_form,
    unsupported,
)
from derive.kernel.algebra import expansion_size
from derive.kernel.binders import rename_bound
from derive.kernel.claims import NotSupported
from derive.kernel.decide import decide, refute
from derive.kernel.definedness import domain_fact, folded_away
from derive.kernel.exact import exact_str, to_expr
from derive.kernel.facts import hypothesis
from derive.kernel.functions import through_kink
from derive.kernel.reader import NotWritable as ReaderNotWritable
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes import formulas as author
from derive.recipes.base import Context, Recipe

FORMULA_SECONDS = 5.0
"""The time bound of one formula answer's decision (within the exercise's --time-limit)."""

MAX_MEMBERS = 20
"""Most members of a family quantity (a list claim) a formula is compared on, one by one."""

MAX_EXPANDED_TERMS = 2_000
"""A formula whose expansion could pass this many terms is only searched for a witness:
proving it would expand it (the kernel's normal form), which is not bounded in time."""

EQUIVALENT = "equivalent"
FORMULA_DOCS = "docs/formulas.md"


@dataclass(frozen=True)
class FormulaAnswer:
    """A formula claim, read and its names resolved to the graph's symbols (derivatives and
    Σ still unevaluated: they are taken when the claim is judged, within its time bound)."""

    text: str
    expr: sp.Expr
    domain: tuple = ()
    """The conditions (expression, Relation) under which the formula, as written, is defined
    (√x² is x to SymPy, but the formula needs x ≥ 0): facts of the comparison."""
    facts: AuthorFacts = NONE
    """What the exercise states about its givens (a one-hot label): the claim is judged under
    it, case by case (derive/exercises/author_facts.py)."""


@dataclass(frozen=True)
class Judgement:
    status: str
    """`equivalent`, `wrong` or `undecided`."""
    reason: str = ""
    witness: dict | None = None
    """{symbol: value, …, "claimed": value, "expected": value}, exact strings."""
    why: Undecided | None = None
    """For `undecided`: the declared reason (derive/exercises/undecided.py); `reason` is its
    English sentence."""


def undecided(why: Undecided) -> Judgement:
    """An undecided judgement for a declared reason."""
    return Judgement("undecided", str(why), why=why)


def _left_undecided(decision, seconds: float, graph: Graph) -> Undecided:
    """The declared reason of a decision that is neither a proof nor a witness, by what ended
    it: its time bound, a bound of the kernel, or a difference left open (what it depends on,
    in the exercise's notation)."""
    if decision.strategy == "time bound":
        return because("time", seconds=f"{seconds:g}")
    if decision.strategy in ("not supported", "internal limit"):
        return because("beyond")
    if decision.strategy == "too deep":
        return because("too_deep")
    with in_scope(graph.notation):
        return left_open(decision.residual)


def _columns(text: str) -> dict[str, int]:
    """The column of each name's first occurrence, by its canonical spelling (η and lr are
    eta)."""
    out: dict[str, int] = {}
    try:
        tokens = _tokens(text)
    except (FormulaError, FormulaNotSupported):
        return out
    subscripted: dict[str, int] = {}
    previous = None
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if t.kind == "name":
            rest = ""
            while (k + 2 < len(tokens) and tokens[k + 1].text == "_"
                   and tokens[k + 2].kind == "name" and len(tokens[k + 2].text) > 1):
                rest += "_" + tokens[k + 2].text  # lr_decay: one name, no alias of a part
                k += 2
            word = written_name(t.text, rest)
            after_underscore = previous is not None and previous.text == "_"
            (subscripted if after_underscore else out).setdefault(word, t.column)
        previous = tokens[k]
        k += 1
    return {**subscripted, **out}  # a name written bare is shown where it stands bare


def _derivatives(e: sp.Basic) -> int:
    """How many derivatives `e` asks for, nested or of higher order."""
    if isinstance(e, sp.Derivative):
        return sum(int(c) for _, c in e.variable_count) + _derivatives(e.expr)
    return sum(_derivatives(a) for a in e.args) if e.args else 0


COUNTS = {"i": "N", "k": "K"}
"""The input that counts each family of the given records (N records, K microbatches)."""


def _index_sizes(graph: Graph, symbols: _Symbols, ctx: Context | None = None
                 ) -> dict[str, sp.Expr]:
    """The exercise's families by index letter, each with its size: the graph's own size
    symbol (N, K: `mean_i` then divides by N, which takes the exercise's value when the
    formula is compared), or the number of members when the size is no such symbol; the
    records' count when no quantity is a family over them."""
    out: dict[str, sp.Expr] = {}
    for n in graph.nodes:
        for fam in (n.over, n.element):
            if fam is None or fam.index.name in out or len(fam.index.name) != 1:
                continue
            if fam.size.is_integer and fam.size.is_positive:
                out[fam.index.name] = fam.size
                continue
            try:
                size = symbols.spec(fam.size)
            except (NoForm, TooLarge):
                continue
            if size.is_Integer and 1 <= int(size) <= 1000:
                out[fam.index.name] = size
    for letter, count in COUNTS.items():  # records with no quantity over them: mean_i(x_i)
        if letter not in out and count in graph.inputs and ctx is not None:
            try:
                size = to_expr(graph.inputs[count](ctx))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
            if size.is_Integer and 1 <= int(size) <= 1000:
                out[letter] = size
    return out


def _block_meanings(recipe: Recipe, graph: Graph) -> dict:
    """The blocks and names an author's derivation over microbatches reads (B_k, n_k), so
    that a formula answer may write mean_{i in B_k}(…) as its define table does."""
    if recipe.name != author.RECIPE.name or not any(
            f is not None and f.index.name == "k" for n in graph.nodes
            for f in (n.over, n.element)):
        return {}
    return author.microbatch_meanings()


def given_facts(raw, recipe: Recipe, given: dict, where: Where) -> AuthorFacts:
    """The exercise's `facts` (derive/exercises/author_facts.py), read against the givens that
    are numbers: their symbols in the graph and their exact values."""
    ctx = Context(recipe, given)
    graph = recipe.graph(ctx) if recipe.graph is not None else None
    if graph is None:
        raise ExerciseNotSupported(where.path, where.exercise, "facts",
                                   f"facts for {recipe.name} (it has no derivation graph)",
                                   "state facts in a formulas exercise")
    symbols, values = {}, {}
    for name, sym in _Symbols(graph, Specialiser(graph, ctx), ctx).scalars.items():
        binder = graph.inputs.get(name)
        if binder is None:
            continue
        try:
            value = binder(ctx)
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        if isinstance(value, sp.Expr) and value.is_Rational:
            symbols[name], values[name] = sym, value
    return read_facts(raw, symbols, values, where)


def prepare(text: object, recipe: Recipe, given: dict, name: str, where: Where,
            key: str, facts: AuthorFacts = NONE) -> FormulaAnswer:
    """A formula claim read against the exercise: ExerciseError (invalid: not a formula, an
    unknown name, a family without its index) or ExerciseNotSupported (the quantity has no
    symbolic form, the formula asks for more than the language does)."""
    def not_supported(problem: str, expected: str = "claim its value instead"):
        raise ExerciseNotSupported(where.path, where.exercise, key, problem, expected)

    if not isinstance(text, str):
        where.fail(key, "is not text", 'write the formula as a string: { formula = "(w*x - y)*x" }')
    ctx = Context(recipe, given)
    tensor = getattr(recipe, "tensors", {}).get(name)
    if tensor is not None:
        not_supported(f"formula answers for {name}, a tensor of shape "
                      f"{'×'.join(map(str, tensor.shape))}",
                      "claim its value as a nested list, one number per entry")
    graph = recipe.graph(ctx) if recipe.graph is not None else None
    if graph is None or name not in graph.by_name:
        not_supported(f"formula answers for {recipe.name}'s {name} (it has no derivation "
                      "graph)")
    why = unsupported(graph, name)
    if why and step_quantity(graph, name):
        try:
            StepForm(graph, name)(graph.by_name[name].head)
            why = None
        except NoForm as exc:
            why = f"{why}; one step of it: {exc}"
    if why:
        not_supported(f"formula answers for {name}: {why}")
    hidden = _unnamed(graph, name)
    if hidden:
        not_supported(f"formula answers for {recipe.name}'s {name}: it reads "
                      f"{', '.join(hidden)}, which the formula language cannot name")
    spec = Specialiser(graph, ctx)
    symbols = _Symbols(graph, spec, ctx)
    shown = text if len(text) <= 60 else text[:57] + "…"
    written: list = []
    try:
        e = evaluated(parse_formula(text, _index_sizes(graph, symbols, ctx),
                                    **_block_meanings(recipe, graph)), written)
    except FormulaNotSupported as exc:
        not_supported(f"{shown!r}: {exc}", f"see {FORMULA_DOCS} for the language's limits")
    except FormulaError as exc:
        if str(exc).startswith("unknown block") and not _block_meanings(recipe, graph):
            not_supported(f"{shown!r}: a sum or mean over a block (i in B_k) in a formula "
                          f"answer for {recipe.name}'s {name}",
                          "write the block's records out, or claim the value")
        where.fail(key, f"{shown!r}: {exc}", f"write a formula in derive's formula language "
                   f"({FORMULA_DOCS}), such as \"(w*x - y)*x\"")
    except RecursionError:
        not_supported(f"{shown!r}: a formula nested too deeply")
    if _derivatives(e) > MAX_DERIVATIVES:
        not_supported(f"{shown!r}: more than {MAX_DERIVATIVES} derivatives")
    expr, subs = _resolve(e, text, shown, graph, symbols, name, where, key)
    if step_quantity(graph, name):
        try:
            StepForm(graph, name)(expr)
        except NoForm as exc:
            not_supported(f"{shown!r}: {exc}", "write it from the step before: members t "
                          "and t-1 (w_{t-1}, g_t)")
    return FormulaAnswer(text, expr, tuple(folded_away(
        [(c.xreplace(subs), relation) for c, relation in written], expr)), facts)


def _resolve(e: sp.Expr, text: str, shown: str, graph: Graph, symbols: _Symbols, name: str,
             where: Where, key: str) -> tuple[sp.Expr, dict]:
    """The formula with its names replaced by the graph's symbols (an unknown name, a family
    without an index or a scalar with one is invalid, with its column), and the replacement."""
    node = graph.by_name[name]
    columns = _columns(text)
    problems: list[tuple[int, str, str]] = []

    def problem(word: str, what: str, right: str) -> None:
        col = columns.get(word, 0)
        problems.append((col, f"{word!r} at column {col} {what}" if col else f"{word!r} {what}",
                         right))

    subs: dict[sp.Basic, sp.Basic] = {}
    labels = set()
    for a in e.atoms(sp.Indexed):
        label = a.base.label.name
        labels.add(a.base.label)
        if label in symbols.families:
            subs[a.base] = symbols.families[label]
        elif label in symbols.scalars:
            problem(label, "has no members", f"write {label} without an index")
        else:
            _unknown(label, symbols, name, problem)
    # i, k, t, j are indices wherever written, with the graph's own families' letters
    index_letters = {f.index.name for n in graph.nodes for f in (n.over, n.element)
                     if f is not None} | set(DEFAULT_INDICES)
    sizes = {f.size.name: f.name for n in graph.nodes for f in (n.over, n.element)
             if f is not None and isinstance(f.size, sp.Symbol)}
    own = {i.name: i for i in node.indices if isinstance(i, sp.Symbol)}
    for s in e.atoms(sp.Symbol):
        if s in labels or s.is_integer and s.name in index_letters:
            continue
        if s.name in own and s.name not in symbols.scalars:
            subs[s] = own[s.name]  # the member's own index as a value: t in lr*min(1, t/2)
            continue
        if s.name in symbols.scalars:
            subs[s] = symbols.scalars[s.name]
        elif s.name in index_letters:
            what = "a number" if not node.indices else "one value per " + node.over.name
            problem(s.name, f"is an index written as a value, but {name} is {what}",
                    _index_hint(s.name, graph, symbols, node))
        elif s.name in symbols.families:
            count = symbols.members(s.name)
            if count == 1:
                subs[s] = symbols.families[s.name][1]
            else:
                problem(s.name, f"is one value per member ({count or 'several'} here)",
                        f"write {s.name}_i (inside sum_i(…) or mean_i(…)), or one member "
                        f"such as {s.name}_1")
        elif s.name in sizes:
            problem(s.name, f"is a size (the number of {sizes[s.name]}), not a symbol of {name}",
                    f"write the number itself; the symbols here: "
                    f"{', '.join(symbols.names(name)[:12])}")
        else:
            _unknown(s.name, symbols, name, problem)
    if problems:
        _, what, right = min(problems, key=lambda p: (p[0] == 0, p[0]))
        where.fail(key, f"{shown!r}: {what}", right)
    out = e.xreplace(subs)
    free = {s for s in out.free_symbols if isinstance(s, sp.Symbol) and s.is_integer
            and s.name in index_letters} - set(node.indices)
    if free:
        letter = sorted(s.name for s in free)[0]
        what = "a number" if not node.indices else "one value per " + node.over.name
        where.fail(key, f"{shown!r}: the index {letter!r} is free, but {name} is {what}",
                   _index_hint(letter, graph, symbols, node))
    return out, subs


def _index_hint(letter: str, graph: Graph, symbols: _Symbols, node) -> str:
    """What to write for an index that is free where it may not be: inside a sum over its
    family when the exercise has one, else the quantity's own index or a number."""
    if letter in _index_sizes(graph, symbols):
        return f"write it inside sum_{letter}(…) or mean_{letter}(…)"
    if node.indices:
        return f"write {node.indices[0].name}, the index of {node.name}'s members, or a number"
    return f"this exercise has no family over {letter}: write a number or a symbol"


def _unknown(word: str, symbols: _Symbols, name: str, problem) -> None:
    names = symbols.names(name)
    hint = did_you_mean(word, names)
    listed = ", ".join(names[:12])
    problem(word, f"is not a symbol of {name}",
            (hint + " " if hint else "") + f"the symbols here: {listed}")


def _terms(e: sp.Basic, limit: int = MAX_EXPANDED_TERMS) -> int:
    """An upper bound on the terms of `e` expanded, or of a Σ's summand, a derivative's
    expression or a denominator expanded on the way (capped just past `limit`): the kernel's
    estimate (algebra.expansion_size), at most C(D + v, v) for total degree D in v atoms."""
    return expansion_size(e, limit + 1)


def _same(claimed: sp.Expr, expected: sp.Expr) -> bool:
    """Whether the claim is the form itself, up to the names of its Σ indices, or differs from
    it only by terms that cancel as written (claimed − expected evaluates to 0): then both have
    the same subexpressions, so they are defined at the same points and equal there, with no
    expansion."""
    if claimed == expected:
        return True
    try:
        a, b = rename_bound(claimed), rename_bound(expected)
    except (NotSupported, RecursionError):
        return False
    return a == b or sp.Add(a, -b) == 0


def _natural(name: str) -> tuple:
    """x_2 before x_10: a member's number compared as a number."""
    base, _, member = name.rpartition("_")
    return (base, int(member)) if base and member.isdigit() else (name, -1)


def _witness(decision, member: int | None, case: tuple = ()) -> dict:
    """The witness as exact strings; with the exercise's facts, the values its case fixed (a
    one-hot label, a given eliminated by an equation, at the witness's point) too."""
    w = decision.witness
    out = {}
    named = [(label.replace("[", "_").replace("]", ""), value) for label, value in w.assignment]
    at = dict(w.symbols)
    have = {label for label, _ in named}
    for s, e in case:
        if s.name not in have:
            named.append((s.name, to_expr(e).xreplace(at)))
    for label, value in sorted(named, key=lambda lv: _natural(lv[0])):
        out[label] = exact_str(value)
    out["claimed"] = exact_str(w.lhs)
    out["expected"] = exact_str(w.rhs)
    if member is not None:
        out["member"] = str(member)
    return out


def _at_member(e: sp.Basic, at: dict) -> sp.Basic:
    """`e` with its free indices set to a member's numbers; an index a sum binds is left
    alone inside it (`w*x_i - mean_i(y_i)` at i = 1 is w·x₁ − mean over every record of y,
    never a sum from 1 to 1 over 1)."""
    if not at or not (e.free_symbols & set(at)):
        return e
    if isinstance(e, sp.Sum):
        bound = {v for v, _, _ in e.limits}
        inner = {k: v for k, v in at.items() if k not in bound}
        return sp.Sum(_at_member(e.function, inner),
                      *[(v, _at_member(a, at), _at_member(b, at)) for v, a, b in e.limits])
    if not e.args:
        return at.get(e, e)
    return e.func(*[_at_member(a, at) for a in e.args])


def judge_formula(answer: FormulaAnswer, recipe: Recipe, given: dict, name: str,
                  seconds: float = FORMULA_SECONDS) -> Judgement:
    """The claim compared with the quantity's symbolic form, member by member for a family
    quantity: equivalent when every member is proved, wrong at the first refuted one."""
    ctx = Context(recipe, given)
    graph = recipe.graph(ctx)
    spec = Specialiser(graph, ctx)
    node = graph.by_name[name]
    members: list[int | None] = [None]
    if node.over is not None:
        try:
            size = spec(node.over.size)
        except (NoForm, TooLarge):
            return undecided(because("members_unknown", name=name))
        if not size.is_Integer:
            return undecided(because("members_unknown", name=name))
        if int(size) > MAX_MEMBERS:
            return undecided(because("too_many_members", name=name, size=f"{int(size):,}",
                                     most=MAX_MEMBERS))
        members = list(range(1, int(size) + 1))
    step = StepForm(graph, name) if step_quantity(graph, name) else None
    if step is not None:
        proved = _every_step(answer, step, spec, node, seconds)
        if proved is not None:
            return proved

    def written(e: sp.Basic, m: int | None) -> sp.Basic:
        if step is not None:  # step m of a per-step quantity, from the members of step m − 1
            return spec(step.at_step(step(e), m))
        return spec(_at_member(e, {} if m is None else {node.indices[0]: sp.Integer(m)}))

    reasons = []
    for m, case in itertools.product(members, answer.facts.cases):
        sub = dict(case)
        try:
            expected = written(node.head, m).xreplace(sub)
            claimed = written(answer.expr, m).xreplace(sub)
            facts = tuple(domain_fact(written(c, m).xreplace(sub), relation)
                          for c, relation in answer.domain)
            facts += answer.facts.kernel_facts(case)
            facts += domain_facts(claimed.free_symbols | expected.free_symbols)
        except TooLarge:
            if m is not None:
                return undecided(because("too_large"))
            return _general(answer, graph, node, seconds)
        except NoForm:
            return undecided(because("no_form", name=name))
        except RecursionError:
            return undecided(because("too_deep"))
        if through_kink(expected):  # a witness still shows a wrong formula; no proof is sought
            d = refute(claimed, expected, facts=facts, seconds=min(seconds, 1.0))
            if d.witness is not None:
                return Judgement("wrong", witness=_witness(d, m, case))
            return undecided(because("kink", name=name))
        if _same(claimed, expected):
            continue  # equal wherever defined, whatever the size of their expansion
        if _terms(claimed) > MAX_EXPANDED_TERMS or _terms(expected) > MAX_EXPANDED_TERMS:
            d = refute(claimed, expected, facts=facts, seconds=min(seconds, 1.0))
            if d.witness is None:
                reasons.append(because("expansion", terms=f"{MAX_EXPANDED_TERMS:,}",
                                       name=name))
                continue
        else:
            d = decide(claimed, expected, facts, seconds)
        if d.witness is not None:
            return Judgement("wrong", witness=_witness(d, m, case))
        if not d.proved:
            reasons.append(_left_undecided(d, seconds, graph))
    if reasons:
        return undecided(reasons[0])
    return Judgement(EQUIVALENT)


def _every_step(answer: FormulaAnswer, step: StepForm, spec: Specialiser, node,
                seconds: float) -> Judgement | None:
    """A per-step claim proved for general t ≥ 1, the members of step t − 1 free: equivalent,
    else None (then it is compared step by step)."""
    t = step.t
    try:
        expected = spec(step(node.head))
        claimed = spec(step(answer.expr))
        facts = tuple(domain_fact(spec(step(c)), relation) for c, relation in answer.domain)
        facts += domain_facts(claimed.free_symbols | expected.free_symbols)
        facts += (hypothesis(t - 1, "a step t >= 1"),)
    except (NoForm, TooLarge, RecursionError):
        return None
    if _same(claimed, expected):
        return Judgement(EQUIVALENT)
    if _terms(claimed) > MAX_EXPANDED_TERMS or _terms(expected) > MAX_EXPANDED_TERMS:
        return None
    d = decide(claimed, expected, facts, seconds / 2, search=False)
    return Judgement(EQUIVALENT) if d.proved else None


def _general(answer: FormulaAnswer, graph: Graph, node, seconds: float) -> Judgement:
    """Too many records to write out: the formula compared with the general form, sizes
    symbolic. A proof holds for every size, the exercise's among them; a witness at another
    size says nothing about this exercise, so it leaves the claim undecided."""
    try:
        inline = Inliner(graph)
        expected = derivatives_taken(inline(node.head))
        claimed = derivatives_taken(inline(answer.expr))
        facts = tuple(domain_fact(derivatives_taken(inline(c)), relation)
                      for c, relation in answer.domain)
        facts += domain_facts(claimed.free_symbols | expected.free_symbols)
    except (NoForm, TooLarge, RecursionError):
        return undecided(because("general_failed"))
    if _same(claimed, expected):
        return Judgement(EQUIVALENT)
    if _terms(claimed) > MAX_EXPANDED_TERMS:
        return undecided(because("general_failed"))
    d = decide(claimed, expected, facts, seconds)
    if d.proved:
        return Judgement(EQUIVALENT)
    if d.witness is not None:
        return undecided(because("general_witness", name=node.name))
    return undecided(because("general_open"))


def quantity_formula(recipe: Recipe, given: dict, name: str,
                     seconds: float = FORMULA_SECONDS) -> str | None:
    """The quantity's symbolic form in the formula language, as a formula answer would write
    it: the general form over the index (mean over N records) or the form written out for the
    exercise (one record: x and y), whichever is shorter; None when it has none, or when it
    takes longer than `seconds` to write (`derive key` renders it outside the exercise's
    bound)."""
    return quantity_formulas(recipe, given, name, {}, seconds)[0]


def quantity_formulas(recipe: Recipe, given: dict, name: str, spelled: dict[str, str],
                      seconds: float = FORMULA_SECONDS) -> tuple[str | None, str | None]:
    """The quantity's form in the formula language (`quantity_formula`) and the same form as a
    reader writes it (derive/graph/reader.py: w − lr·x·(w·x − y), the exercise's notation,
    the author's spelling of a name in `spelled`); the second None when the reader form
    cannot write it (then the first is shown)."""
    try:
        with time_bound(seconds):
            got = _quantity_formula(recipe, given, name)
            if got is None:
                return None, None
            text, expr, graph = got
            try:
                with in_scope(graph.notation):
                    return text, formula_reader(expr, spelled)
            except (ReaderNotWritable, RecursionError):
                return text, None
    except DecisionTimeout:
        return None, None


def _quantity_formula(recipe: Recipe, given: dict, name: str):
    """(text, expression, graph) of the quantity's shorter symbolic form, or None."""
    ctx = Context(recipe, given)
    graph = recipe.graph(ctx) if recipe.graph is not None else None
    if graph is None or name not in graph.by_name or unsupported(graph, name) or \
            _unnamed(graph, name):
        return None
    spec = Specialiser(graph, ctx)
    candidates = []
    try:
        general = symbolic_form(graph, name)
        structural = {k for k, v in spec.structural.items() if isinstance(v, dict)}
        if not any(a.base.label.name in structural for a in general.atoms(sp.Indexed)):
            candidates.append((formula_text(general), general))
    except (NoForm, TooLarge, NotWritable, RecursionError):
        pass
    node = graph.by_name[name]
    if node.over is None or _Symbols(graph, spec).members(node.key) == 1:
        try:
            one = spec(node.head.xreplace({i: sp.Integer(1) for i in node.indices}))
            candidates.append((formula_text(one), one))
        except (NoForm, TooLarge, NotWritable, RecursionError):
            pass
    if not candidates:
        return None
    text, expr = min(candidates, key=lambda c: len(c[0]))
    return text, expr, graph
