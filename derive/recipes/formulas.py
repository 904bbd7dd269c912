"""`formulas`: a derivation the author writes (docs/authoring.md).

An exercise's `[exercise.define]` table lists named quantities in derivation order, each a
formula of derive's formula language (derive.graph.language) over the givens and the quantities
before it. A quantity with a free index is a family: one value per record (i), microbatch (k)
or step (t); a step family with a `start` is a recurrence (w_t from w_{t−1}). Every derivative
is taken by `sympy.diff` of the quantities it names, written out down to the givens (or to the
quantity it is taken with respect to: ∂ℓ_i/∂ŷ_i). The result is one derivation graph, so such an
exercise gets everything a built-in recipe gets. A given written as a nested list is a
tensor: a define that reads one is parsed by the tensor language (derive.graph.
tensor_language) into one scalar node per entry, and claimed as a whole, entry by entry.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from functools import lru_cache

import sympy as sp

from derive.graph import Family, Node
from derive.graph.evaluate import NotEvaluable, TooLarge, UndecidedSign, Undefined
from derive.graph.graph import Graph, members
from derive.graph.language import (
    FormulaError,
    FormulaNotSupported,
    parse_formula,
)
from derive.graph.notation import DECLARED, Notations, written_as
from derive.graph.tensor import Tensor, symbols
from derive.graph.tensor_language import OPS, Ops, parse_tensor, reads_tensor
from derive.kernel.constants import RepeatedMax, RepeatedMin
from derive.kernel.exact import to_expr
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.recipes import own_terms, partials
from derive.recipes.base import (
    Input,
    Later,
    Quantity,
    QuantityUndefined,
    Recipe,
    TensorQuantity,
)
from derive.recipes.formula_table import (  # noqa: F401 (names other modules read here)
    DEFAULT_COLUMNS,
    DEFINE_KEYS,
    FAMILIES,
    MAX_DEFINES,
    MAX_NAME,
    MAX_OPS,
    MAX_STEPS,
    MAX_TITLE,
    MICROBATCHES,
    NAME,
    RECORDS,
    RESERVED,
    STEPS,
    TABLES,
    TENSOR,
    DefineError,
    Rows,
    _Define,
    _defines,
    _hint,
    _kinds,
    _looks_numeric,
    _quoted,
    _unknown,
    canonical,
    check_name,
    columns_of,
    reserved,
    tensor_shape,
)
from derive.recipes.graphed import Graphed, mutation_mistakes, one_member_a_number
from derive.recipes.tensor_variants import quantities_of, tensor_mistakes


def recipe_for(raw_given: Mapping, raw_define) -> Recipe:
    """The exercise's own recipe: its givens, and its quantities as one derivation graph.
    Raises DefineError for what is not valid or not supported (one line, with the key)."""
    if not isinstance(raw_given, dict):
        raise DefineError("given", "is not a table", "write an [exercise.given] table")
    kinds = _kinds(raw_given)
    taken = reserved(raw_given)
    columns = ()
    for table in (RECORDS, MICROBATCHES):
        if table in raw_given:
            columns = columns_of(raw_given[table], f"given.{table}", taken)
    defines = _defines(raw_define, taken)
    tensors = tuple((n, tensor_shape(raw_given[n], f"given.{n}"), _labels(raw_given[n]))
                    for n, k in sorted(kinds.items()) if k == TENSOR)
    key = (tuple(sorted(kinds.items())), columns,
           tuple((d.name, d.text, d.start, d.title, d.title_zh) for d in defines), tensors)
    return _recipe(key)


def _labels(raw) -> tuple | None:
    """A tensor given's entries when every one is a TOML integer (class indices, 0-based, as
    torch's targets are): onehot(y, C) and cross_entropy(Z, y) read them when the formula is
    read, so they are part of the recipe's key; None for any other tensor."""
    flat = []

    def walk(v):
        if isinstance(v, list):
            for x in v:
                walk(x)
        else:
            flat.append(v)
    walk(raw)
    if all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**31 for v in flat):
        return tuple(flat)
    return None


WORDS = ("Quantity", "量")
"""The heading of a quantity the exercise defines, when its author wrote no title (a title
is the author's words: `Recipe.node_titles`)."""

BUILD_SECONDS = 10.0
"""The bound on reading one exercise's derivation (parsing, and every derivative taken)."""


def _claim_shape(ctx, node, value):
    """A quantity per step is a list, one value per step, even for one step (a run of
    T = 1 is claimed as [w_1]); a quantity per record is a number for one record."""
    if node.over is not None and node.over.name == STEPS:
        return value
    return one_member_a_number(ctx, node, value)


@lru_cache(maxsize=256)
def _recipe(key) -> Recipe:
    kind_items, columns, define_items, tensor_items = key
    kinds = dict(kind_items)
    defines = tuple(_Define(*d) for d in define_items)
    try:
        with time_bound(BUILD_SECONDS):
            builder = _Builder(kinds, columns, tensor_items)
            graph = builder.graph(defines)
    except DecisionTimeout:
        raise DefineError("define", f"takes more than {BUILD_SECONDS:g} s to derive (its "
                          "derivatives grow too large)", "write smaller formulas",
                          supported=False) from None
    names = [d.name for d in defines]
    tensors = {d.name: builder.tensors[canonical(d.name)] for d in defines
               if canonical(d.name) in builder.quantity_tensors}
    graphed = Graphed(lambda ctx: graph, names, shape=_claim_shape,
                      stand_in=lambda ctx: _claimed_entries(ctx, tensors))
    quantities = tuple(
        Quantity(d.name, "a quantity the exercise defines",
                 _guarded(d.name, _tensor_value(graphed, tensors[d.name]) if d.name in tensors
                          else graphed.value(d.name)),
                 words=WORDS)
        for d in defines)
    inputs = tuple(Input(name, kind, "a given of the exercise") for name, kind in kinds.items())
    entries = frozenset(s.name for t in tensors.values() for s in t.entries)
    rebuild = _rebuild(kinds, columns, tensor_items, defines) if tensors else None
    shown = {d.name: TensorQuantity(tensors[d.name].shape, d.text, tuple(
        e.name for e in tensors[d.name].entries)) for d in defines if d.name in tensors}

    def mistakes():
        if rebuild is not None:  # the whole-tensor mistakes first: the course's own
            yield from tensor_mistakes(
                lambda ctx: graph, quantities_of([(d.name, d.text) for d in defines], shown),
                lambda ops: rebuild(ops).nodes, OPS, graph.nodes, graph.notation)
        yield from mutation_mistakes(graphed, graph, names, skip=entries)
    return Recipe(name="formulas", title=TITLE, doc=__doc__, inputs=inputs,
                  quantities=quantities,
                  mistakes=Later(mistakes),
                  rebuild=rebuild,
                  tensors=shown,
                  graph=lambda ctx: graph,
                  node_titles={d.name: (d.title, d.title_zh) for d in defines if d.title})


def _rebuild(kinds, columns, tensor_items, defines):
    """The exercise's graph with its tensor formulas parsed under other operations (`Ops` with
    one replaced: a whole-tensor mistake, declared once as the operation the student got
    wrong), every derivative taken again from them; one graph per Ops, built when first
    asked for, under the same time bound as the exercise's own."""
    @lru_cache(maxsize=32)
    def rebuild(ops: Ops) -> Graph:
        try:
            with time_bound(BUILD_SECONDS):
                return _Builder(kinds, columns, tensor_items, ops).graph(defines)
        except DecisionTimeout:
            raise DefineError("define", f"takes more than {BUILD_SECONDS:g} s to derive "
                              "under a mistaken operation", "write smaller formulas",
                              supported=False) from None
    return rebuild


def _tensor_value(graphed: Graphed, t: Tensor):
    """A tensor quantity's value: its entry nodes' exact values as nested lists (a vector a
    list, a matrix a list of rows), what a claim of it is judged against entry by entry."""
    def compute(ctx):
        scope = graphed.scope(ctx)
        return Tensor(t.shape, tuple(scope.compute(e.name) for e in t.entries)).nested()
    return compute


def _claimed_entries(ctx, tensors: Mapping[str, Tensor]) -> dict[str, sp.Expr]:
    """A claimed tensor standing in for its computed value (an error carried forward): each
    entry node defined as the claimed entry. A claim of another shape stands in for nothing
    (the diagnosis never carries one)."""
    out = {}
    for name, t in tensors.items():
        if name not in ctx.overrides:
            continue
        try:
            claimed = Tensor.of(ctx.overrides[name])
        except (ValueError, TypeError):
            continue
        if claimed.shape == t.shape:
            try:  # exact values only (a claim's Rationals): text is never parsed
                out.update({e.name: to_expr(v) for e, v in zip(t.entries, claimed.entries)})
            except TypeError:
                continue
    return out


def _guarded(name, compute):

    def value(ctx):
        try:
            return compute(ctx)
        except (Undefined, ZeroDivisionError) as exc:
            raise QuantityUndefined(name, str(exc) or "a division by zero") from None
        except KeyError as exc:  # x_3 of two records, w_0 of a family without a start
            raise QuantityUndefined(name, f"it reads a member that does not exist ({exc})"
                                    ) from None
        except UndecidedSign as exc:  # relu(sin(1)² + cos(1)² − 1 + e^(−10⁵))
            raise QuantityUndefined(name, str(exc), supported=False, undecided=True,
                                    expected="write the comparison so that its sides "
                                    "differ, or as one closed form") from None
        except NotEvaluable as exc:  # a construct the evaluator does not handle
            raise QuantityUndefined(name, str(exc), supported=False,
                                    expected="write the comparison so that its sides "
                                    "differ, or as one closed form") from None
        except RecursionError:
            raise QuantityUndefined(name, "a value nested too deeply", supported=False,
                                    expected="use fewer steps") from None
        except TooLarge as exc:
            raise QuantityUndefined(name, str(exc), supported=False) from None
    return value


class _Builder:
    """Parses the author's formulas into the nodes of one graph, in order."""

    def __init__(self, kinds: Mapping[str, str], columns: tuple[str, ...], tensors=(),
                 ops: Ops = OPS):
        self.kinds = kinds
        self.base_ops = ops
        """The tensor operations formulas are parsed with: torch's, or one replaced (a
        whole-tensor mistake, `Recipe.rebuild`)."""
        self.families = {}
        if RECORDS in kinds or MICROBATCHES in kinds:
            self.families["i"] = FAMILIES["i"]
        if MICROBATCHES in kinds:
            self.families["k"] = FAMILIES["k"]
        if STEPS in kinds:
            self.families["t"] = FAMILIES["t"]
        self.scalars = {}
        for n, k in kinds.items():
            if k != "number":
                continue
            if canonical(n) in self.scalars:
                raise DefineError(f"given.{n}", f"names the same number as "
                                  f"given.{self.scalars[canonical(n)]} (formulas read both as "
                                  f"{canonical(n)})", "give it once")
            self.scalars[canonical(n)] = n
        self.columns = {canonical(c): c for c in columns}
        clash = set(self.scalars) & set(self.columns)
        if clash:
            raise DefineError(f"given.{sorted(clash)[0]}", "is both a given and a column",
                              "rename one of them")
        self.notation = Notations(parent=DECLARED)
        """The exercise's own names, written from their spelling: never a recipe's."""
        for n in [*self.scalars, *self.columns]:
            self.notation.declare(n, written_as(n))
        self.tensors: dict[str, Tensor] = {}
        """Tensor givens and tensor quantities (canonical name → the Tensor of its entry
        symbols, `W1[1,2]`)."""
        self.tensor_givens: dict[str, tuple[str, tuple[int, ...]]] = {}
        """A tensor given's written name and its shape, by canonical name."""
        self.labels: dict[sp.Symbol, sp.Integer] = {}
        """The entries of the tensor givens written as integers: the class indices onehot and
        cross_entropy read when the formula is read."""
        self.quantity_tensors: set[str] = set()
        for n, shape, labels in tensors:
            canon = canonical(n)
            if canon in self.scalars or canon in self.tensors:
                raise DefineError(f"given.{n}", "names a given twice (formulas read "
                                  f"{n} as {canon})", "give it once")
            t = symbols(canon, shape)
            self.tensors[canon] = t
            self.tensor_givens[canon] = (n, shape)
            self.notation.declare(canon, written_as(canon))
            self._declare_entries(canon, t)
            if labels is not None:
                self.labels.update(zip(t.entries, map(sp.Integer, labels)))
        self.step = None  # the index of the quantity being read, if it is per step
        self.nodes: dict[str, Node] = {}   # by canonical name
        self.bodies: dict[str, sp.Expr] = {}  # each node's definition, evaluated, for diff

    # ---------------------------------------------------------------- the graph
    def graph(self, defines) -> Graph:
        self.pending = self._recurrences(defines)
        spelling = {**{c: n for c, n in self.scalars.items()},
                    **{canonical(d.name): d.name for d in defines}}
        self.loop = partials.Loop(self.nodes, self.bodies, dict(self.pending),
                                  self._same_step(defines), spelling)
        for d in defines:
            self._define(d)
            self.pending.pop(canonical(d.name), None)
        inputs = {}
        for canon, written in self.scalars.items():
            inputs[canon] = (lambda w: lambda c: c.given[w])(written)
        for canon, (written, _) in self.tensor_givens.items():
            for ix, e in zip(self.tensors[canon].indices(), self.tensors[canon].entries):
                inputs[e.name] = _entry(written, ix)
        table = RECORDS if RECORDS in self.kinds else MICROBATCHES
        for j, canon in enumerate(self.columns):
            inputs[canon] = _column(table, j)
        if self.columns:
            inputs["N"] = lambda c: sp.Integer(len(c.given[table].rows))
        if MICROBATCHES in self.kinds:
            inputs["K"] = lambda c: sp.Integer(len(c.given[MICROBATCHES].sizes))
            inputs["n"] = lambda c: members([sp.Integer(s) for s in c.given[MICROBATCHES].sizes])
            inputs["c"] = lambda c: _boundaries(c.given[MICROBATCHES].sizes)
        if STEPS in self.kinds:
            inputs["T"] = lambda c: c.given[STEPS]
        try:
            return Graph(tuple(self.nodes.values()), inputs, notation=self.notation)
        except ValueError as exc:  # a cycle through quantities with no start
            raise DefineError("define", str(exc), "give a recurrence a start") from None

    def _recurrences(self, defines) -> dict[str, Family]:
        """The recurrences (quantities with a start) and their families: a formula may read
        an earlier step of one defined after it (loss_t reads w_{t−1}; w_t reads g_t)."""
        out = {}
        for d in defines:
            if d.start is None:
                continue
            key = f"define.{d.name}"
            expr = self._parse(key, d.text)
            free = {s.name for s in expr.free_symbols if s.name in self.families and s.is_integer}
            if len(free) != 1 or free - {"t", "k"}:
                raise DefineError(f"{key}.start", "is given for a quantity that is not one "
                                  "family over steps t or microbatches k",
                                  "a start belongs to a recurrence: w = { formula = "
                                  '"w_{t-1} - lr*g_t", start = "w0" }')
            out[canonical(d.name)] = self.families[free.pop()]
        return out

    def _same_step(self, defines) -> dict[str, frozenset[str]]:
        """For each quantity over steps or microbatches, the quantities it reads at its own
        member (w_t reads u_t). A formula that does not read yet is left to its turn."""
        out = {}
        for d in defines:
            try:
                expr = self._parse(f"define.{d.name}", d.text)
            except DefineError:
                continue
            ix = [s for s in expr.free_symbols if s.is_integer and s.name in ("t", "k")]
            if len(ix) == 1:
                out[canonical(d.name)] = frozenset(
                    x.base.label.name for x in _leaves(expr)
                    if isinstance(x, sp.Indexed) and x.indices[0] == ix[0])
        return out

    def _parse(self, key: str, text: str) -> sp.Expr:
        indices = {n: f.size for n, f in self.families.items()}
        micro = "k" in self.families
        try:
            e = parse_formula(text, indices, **(microbatch_meanings() if micro else {}))
        except FormulaError as exc:
            raise DefineError(key, f"{_quoted(text)}: {exc}", "see docs/formulas.md") from None
        except FormulaNotSupported as exc:
            raise DefineError(key, f"{_quoted(text)}: {exc}", "see docs/formulas.md",
                              supported=False) from None
        # a plain index letter in a formula is the index itself (lr_t = eta*min(1, t/W))
        letters = {sp.Symbol(n, real=True): f.index for n, f in self.families.items()}
        return e.xreplace(letters)

    def _define(self, d: _Define) -> None:
        key = f"define.{d.name}"
        canon = canonical(d.name)
        if canon in self.nodes or canon in self.scalars or canon in self.columns or \
                canon in self.tensors:
            raise DefineError(key, f"defines {d.name!r} again (a given, a column or an "
                              "earlier quantity has that name)", "give each quantity its own name")
        if reads_tensor(d.text, frozenset(self.tensors)):
            self._define_tensor(d, key, canon)
            return
        expr = self._parse(key, d.text)
        _rebinding(key, expr)
        free = sorted({s.name for s in expr.free_symbols if s.name in self.families
                       and s.is_integer})
        if len(free) > 1:
            raise DefineError(key, f"has the free indices {', '.join(free)}",
                              "one index per quantity: write the rest inside mean_i(…) or "
                              "sum_i(…)", supported=False)
        over = self.families[free[0]] if free else None
        start = None
        if d.start is not None:
            if over is None or over.index.name not in ("t", "k"):
                raise DefineError(f"{key}.start", "is given for a quantity that is not per step",
                                  "a start belongs to a recurrence over steps t (w_{t-1})")
            start = self._parse(f"{key}.start", d.start)
            self._check_names(f"{key}.start", start, d.name, over=None, start=False)
            if any(s.is_integer and s.name in self.families for s in start.free_symbols):
                raise DefineError(f"{key}.start", "reads an index",
                                  "a start is member 0: a formula of the givens, such as w0")
        self._check_names(key, expr, d.name, over, start is not None)
        self.notation.declare(canon, written_as(canon))
        sym = (sp.IndexedBase(sp.Symbol(canon, real=True)) if over is not None
               else sp.Symbol(canon, real=True))
        self.step = over.index if over is not None and over.index.name in ("t", "k") else None
        expr = self._derivatives(key, expr)
        self.nodes[canon] = Node(d.name, sym, expr, over, start=start)
        self.bodies[canon] = expr

    # ---------------------------------------------------------------- tensors
    def _define_tensor(self, d: _Define, key: str, canon: str) -> None:
        """A define that reads a tensor (or writes tensor syntax), parsed by the tensor
        parser: a result of shape () is an ordinary scalar node under the define's name;
        otherwise one scalar node per entry, `z1[1,2]`, each its entry's expression with its
        derivatives taken as a scalar quantity's are (grad(L, W1) is sympy.diff of L written
        out, entry by entry: W1.grad's layout)."""
        if d.start is not None:
            raise DefineError(f"{key}.start", "is given for a tensor quantity",
                              "a recurrence over tensors is not supported: write each step",
                              supported=False)
        try:
            t = parse_tensor(d.text, self._tensor_names(), ops=self._ops)
        except FormulaNotSupported as exc:
            raise DefineError(key, f"{_quoted(d.text)}: {exc}", "see docs/formulas.md",
                              supported=False) from None
        except FormulaError as exc:  # TensorShapeError too: both shapes, the operation
            raise DefineError(key, f"{_quoted(d.text)}: {exc}", "see docs/formulas.md") from None
        self.step = None
        if t.is_scalar:
            expr = self._derivatives(key, t.item)
            self.notation.declare(canon, written_as(canon))
            sym = sp.Symbol(canon, real=True)
            self.nodes[canon] = Node(d.name, sym, expr)
            self.bodies[canon] = expr
            return
        heads = symbols(canon, t.shape)
        self.notation.declare(canon, written_as(canon))
        self.tensors[canon] = heads
        self.quantity_tensors.add(canon)
        self._declare_entries(canon, heads)
        for head, e in zip(heads.entries, t.entries):
            expr = self._derivatives(key, e, refold=False)
            self.nodes[head.name] = Node(head.name, head, expr)
            self.bodies[head.name] = expr

    def _tensor_names(self) -> dict[str, Tensor]:
        """What a tensor formula may read: scalar givens and scalar quantities as shape-()
        Tensors of their symbols, tensor givens and tensor quantities as Tensors of their
        entry symbols (a family quantity or a column is not a tensor: not here)."""
        out = {c: Tensor.scalar(sp.Symbol(c, real=True)) for c in self.scalars}
        out.update({c: Tensor.scalar(n.symbol) for c, n in self.nodes.items()
                    if n.over is None and n.element is None and isinstance(n.symbol, sp.Symbol)
                    and n.symbol.name == c})
        for family in self.families.values():  # a family's size (N, K, T) is no tensor; an
            out.pop(family.size.name, None)     # exercise without steps may name its own T
        out.update(self.tensors)
        return out

    @property
    def _ops(self):
        """torch's operations, with the class indices of onehot and cross_entropy read from
        the tensor givens written as integers (a label is a value, not a symbol)."""
        labels, base = self.labels, self.base_ops

        def valued(t: Tensor) -> Tensor:
            return t.map(lambda e: labels.get(e, e)) if labels else t

        def onehot(y, classes, column=None):
            return base.onehot(valued(y), classes, column=column)

        def cross_entropy(z, y, label_smoothing=sp.S.Zero, column=None):
            if y.shape != z.shape:
                y = valued(y)
            return base.cross_entropy(z, y, label_smoothing=label_smoothing, column=column)
        return dataclasses.replace(base, onehot=onehot, cross_entropy=cross_entropy)

    def _declare_entries(self, canon: str, t: Tensor) -> None:
        """Each entry written as the tensor's name with its 1-based index as a subscript:
        z[1,2] is z_{1,2}; a name with a subscript of its own keeps it first, apart from the
        index (W1[1,2] is W_{1;1,2}: W_{1,1,2} would read as an entry of a 3-d tensor)."""
        base = written_as(canon)
        for ix, e in zip(t.indices(), t.entries):
            at = ",".join(str(i + 1) for i in ix)
            self.notation.declare(e.name, dataclasses.replace(
                base, sub=f"{base.sub};{at}" if base.sub else at))

    def _check_names(self, key, expr, name, over, start: bool) -> None:
        """Every name the formula reads is a given, a column, an earlier quantity or a family's
        size, indexed as its kind is (x_i for a column, w for a number)."""
        canon = canonical(name)
        known = [*self.scalars, *self.columns, *self.nodes]
        for e in _leaves(expr):
            if isinstance(e, sp.Indexed):
                base = e.base.label.name
                family = self._family_of(base)
                if base == canon or base in self.pending:
                    if base == canon and not start:
                        raise DefineError(key, f"{name} reads itself",
                                          "a recurrence needs { formula = …, start = … }")
                    family = over if base == canon else self.pending[base]
                    back = family.index - e.indices[0]
                    if not (back.is_Integer and back >= 1):
                        raise DefineError(key, f"reads {base}_{{{e.indices[0]}}} before "
                                          f"{base} is computed for that step",
                                          f"read an earlier step: {base}_{{{family.index}-1}}")
                elif family is None:
                    raise DefineError(key, _unknown(base, known, indexed=True), _hint(base, known))
                if family is False:
                    raise DefineError(key, f"{base} is a number, not a family",
                                      f"write {base} without an index")
                ix = e.indices[0]
                letters = {s.name for s in ix.free_symbols}
                if letters - {family.index.name, family.size.name}:
                    raise DefineError(key, f"{base} is indexed by {family.index.name}, not "
                                      f"{', '.join(sorted(letters))}",
                                      f"write {base}_{family.index.name}")
                self._check_member(key, base, family, ix)
            elif isinstance(e, sp.Symbol) and not e.is_integer:
                n = e.name
                if n in self.scalars or n in ("N", "K", "T"):
                    continue
                family = self._family_of(n)
                if family is None:
                    raise DefineError(key, _unknown(n, known), _hint(n, known))
                if family is not False:
                    raise DefineError(key, f"{n} has one value per member of "
                                      f"{family.index.name}",
                                      f"write {n}_{family.index.name}, or mean_"
                                      f"{family.index.name}({n}_{family.index.name})")

    def _check_member(self, key: str, base: str, family: Family, ix: sp.Expr) -> None:
        """A member is the quantity's own (x_i), a fixed one (x_1, w_0), or for a recurrence
        the step before (w_{t−1}): x_{i−1} has no member at i = 1."""
        if ix == family.index or ix.is_Integer or (
                isinstance(ix, sp.Symbol) and ix.name == family.size.name):
            return  # x_i, x_1, x_N (x_3 of two records is found when computed)
        node = self.nodes.get(base)
        recurrence = (node is not None and node.start is not None) or base in self.pending
        if recurrence and ix == family.index - 1:
            return
        if base == "c" and ix == family.index - 1:  # a block's first record, c_{k−1} + 1
            return
        shown = str(ix).replace(" ", "")
        if recurrence:
            raise DefineError(key, f"reads {base}_{{{shown}}}: a formula reads a recurrence at "
                              "its own step or the step before (derivatives through time are "
                              "not supported)",
                              f"read the step before, {base}_{{{family.index}-1}}",
                              supported=False)
        raise DefineError(key, f"reads {base}_{{{shown}}}, a member that does not exist for "
                          f"every {family.index}", f"read {base}_{family.index}")

    def _family_of(self, name: str):
        """The family of a column or an earlier quantity; False for a number; None if
        unknown."""
        if name in self.columns:
            return self.families["i"]
        if name in self.nodes:
            return self.nodes[name].over or False
        if name in getattr(self, "pending", {}):
            return self.pending[name]
        if name in ("n", "c") and "k" in self.families:
            return self.families["k"]
        if name in self.scalars:
            return False
        return None

    # ---------------------------------------------------------------- derivatives
    def _derivatives(self, key: str, expr: sp.Expr, refold: bool = True) -> sp.Expr:
        """Each ∂f/∂v in the formula replaced by `sympy.diff` of f written out in the givens
        (every quantity inlined but v's own). Partial derivatives only where they are the
        derivative meant: see `_variable` and `_through`."""
        if not expr.has(sp.Derivative):
            return expr

        def taken(e):
            if isinstance(e, sp.Derivative):
                out = taken(e.expr)
                for v, order in e.variable_count:  # d(d(f)/d(w))/d(b): one variable at a time
                    self._variable(key, v)
                    f = self._inline(out, keep=v)
                    self._through(key, f, v)
                    self._no_repeat(key, f, v)
                    out = _diff(f, v, order)
                    if out.has(sp.Derivative, sp.Subs):  # a kink's steps are taken at points
                        raise DefineError(key, "has a derivative derive cannot take exactly",
                                          "write the derivative out", supported=False)
                    if sp.count_ops(out) > MAX_OPS:
                        raise DefineError(key, "has a derivative too large to write out",
                                          f"at most {MAX_OPS:,} operations", supported=False)
                    out = self._refolded(out, v) if refold else out
                return out
            if not e.args:
                return e
            return e.func(*[taken(a) for a in e.args])
        try:
            return taken(expr)
        except RecursionError:
            raise DefineError(key, "is nested too deeply", "", supported=False) from None

    def _no_repeat(self, key: str, f: sp.Expr, v) -> None:
        """Refuse a derivative through a max or min written with an argument twice that
        depends on v (max(w, 1, w)): SymPy keeps the argument once and would split a tie ½,
        where torch gives ¾ or ⅔ (a tie of three, docs/formulas.md)."""
        for m in f.atoms(RepeatedMax, RepeatedMin):
            if m.has(v):
                kind = "min" if isinstance(m, sp.Min) else "max"
                raise DefineError(key, f"takes a derivative through {kind} with an argument "
                                  "written twice (or two equal constants), which at a tie is "
                                  f"a tie of three: torch's derivative there depends on how "
                                  f"the {kind} is nested", "write each argument once",
                                  supported=False)

    def _variable(self, key: str, v) -> None:
        """A derivative is taken with respect to a given number, an earlier quantity, or a
        member of a family; never a size (N) or an index."""
        if isinstance(v, sp.Symbol) and (v.is_integer or v.name in ("N", "K", "T")):
            raise DefineError(key, f"takes a derivative with respect to {v.name}, a count",
                              "differentiate with respect to a given such as w",
                              supported=False)

    def _through(self, key: str, f: sp.Expr, v) -> None:
        """Refuse a derivative that `sympy.diff` of the written-out f would get wrong: a
        recurrence's member it holds fixed that is not a leaf of v's step (derive.recipes.
        partials), or a family member of v's family at another member (∂L/∂ŷ_1 through a Σ
        over i, or ŷ_i against ŷ_j)."""
        try:
            partials.check(self.loop, f, v, _leaves, step=self.step)
        except partials.PartialRefused as exc:
            raise DefineError(key, exc.problem, exc.expected, supported=False) from None
        if isinstance(v, sp.Indexed):
            base = v.base
            for x in sp.preorder_traversal(f):
                if isinstance(x, sp.Indexed) and x.base == base and x != v:
                    raise DefineError(key, f"takes a derivative with respect to "
                                      f"{_member_text(v)} of a formula that also reads "
                                      f"{_member_text(x)}",
                                      "take it per member, as in grad(ell_i, yhat_i)",
                                      supported=False)
                family = self._family_of(base.label.name)
                bound = {lim[0] for lim in x.limits} if isinstance(x, sp.Sum) else set()
                if family and family.index in bound and x.has(base):
                    raise DefineError(key, f"takes a derivative with respect to "
                                      f"{_member_text(v)} through a Σ over its family",
                                      "take it per member, as in grad(ell_i, yhat_i)",
                                      supported=False)

    def _refolded(self, result: sp.Expr, keep) -> sp.Expr:
        """The derivative written with the quantities it came from where they reappear
        (p_i for 1/(1 + exp(−b − w·x_i)), z_i for b + w·x_i): the latest quantity first. Kept
        only when writing every quantity out again gives the derivative back exactly (the
        same expanded expression); else the derivative as `sympy.diff` gave it. Then
        simplified in those quantities where the kernel proves it equal (`own_terms`):
        (p_i − y_i)·x_i."""
        out = result
        for name in reversed(list(self.nodes)):
            node = self.nodes[name]
            if node.start is not None or node.head == keep:
                continue
            body = self._inline(self.bodies[name], keep)
            if body.is_Atom or isinstance(body, sp.Indexed) or not body.free_symbols:
                continue
            out = _substituted(out, body, node.head)
        if out != result:
            try:
                same = sp.expand(self._inline(out, keep) - result) == 0
            except (RecursionError, ValueError, TypeError):
                same = False
            out = out if same else result
        definitions = [(n.head, self.bodies[name]) for name, n in self.nodes.items()
                       if n.start is None and n.head != keep]
        return own_terms.Rewriter(definitions, lambda e: self._inline(e, keep))(out)

    def _inline(self, e: sp.Expr, keep) -> sp.Expr:
        """e with every quantity replaced by its definition, down to the givens; `keep` (the
        variable of a derivative) and a recurrence's members stay as they are, but for those
        of the step after keep's, written out once (`partials.written_out`)."""
        return partials.written_out(self.loop, e, keep)


def _rebinding(key: str, expr: sp.Expr, bound: frozenset = frozenset()) -> None:
    """A Σ inside a Σ over the same index (sum_i(sum_i(x_i))) is refused: its inner index
    hides the outer one."""
    if isinstance(expr, sp.Sum):
        names = [lim[0] for lim in expr.limits]
        if len(names) > 1 or names[0] in bound:
            raise DefineError(key, f"sums over {names[-1]} inside a sum over {names[-1]}",
                              "one index per sum: the inner one would hide the outer",
                              supported=False)
        bound = bound | set(names)
    for a in expr.args:
        if isinstance(a, sp.Basic):
            _rebinding(key, a, bound)


_member_text = partials.member_text


def _substituted(e: sp.Expr, old: sp.Expr, new: sp.Expr) -> sp.Expr:
    """`e.subs(old, new)` inside Σ bodies as well: p_i for its definition in Σ_i (SymPy's subs
    leaves a Σ alone when `old` reads the Σ's own index; here that index is the one meant)."""
    if isinstance(e, sp.Sum):
        return sp.Sum(_substituted(e.function, old, new), *e.limits)
    if e.has(sp.Sum):
        return e.func(*[_substituted(a, old, new) for a in e.args])
    return e.subs(old, new)


def _leaves(e: sp.Basic):
    """Every symbol and family member a formula reads (an index in a member's subscript
    included, the family's own name not)."""
    if isinstance(e, sp.Indexed):
        yield e
        for ix in e.indices:
            yield from _leaves(ix)
    elif isinstance(e, sp.Symbol):
        yield e
    else:
        for a in e.args:
            yield from _leaves(a)


def _diff(f: sp.Expr, v, order: int) -> sp.Expr:
    """∂ⁿf/∂vⁿ by `sympy.diff`; a family member (w_{t−1}, ŷ_i) as a plain variable."""
    if isinstance(v, sp.Indexed):
        d = sp.Dummy("v", real=True)
        return sp.diff(f.xreplace({v: d}), d, order).xreplace({d: v})
    return sp.diff(f, v, order)


_n = sp.IndexedBase(sp.Symbol("n", integer=True, positive=True))
_c = sp.IndexedBase(sp.Symbol("c", integer=True))


def _block(i: sp.Symbol, k: sp.Expr):
    """B_k, the records of microbatch k: c_{k−1}+1 … c_k, n_k of them."""
    return _c[k - 1] + 1, _c[k], _n[k]


def microbatch_meanings() -> dict:
    """What a formula over microbatches reads that its text cannot say, as `parse_formula`'s
    keyword arguments: the blocks B_k and the sizes n_k of this recipe's graph."""
    return {"blocks": {"B": _block}, "names": {"n": _n}}


def _entry(written: str, index: tuple[int, ...]):
    """One entry of a tensor given (0-based index into its nested lists)."""
    def read(c):
        v = c.given[written]
        for i in index:
            v = v[i]
        return v
    return read


def _column(table: str, j: int):
    """Column j of the records as a family (member m is record m's value)."""
    return lambda c: members([r[j] for r in c.given[table].rows])


def _boundaries(sizes) -> dict[int, sp.Integer]:
    """c_k = n_1 + … + n_k, c_0 = 0: microbatch k holds records c_{k−1}+1 … c_k."""
    out, total = {0: sp.Integer(0)}, 0
    for m, s in enumerate(sizes, 1):
        total += int(s)
        out[m] = sp.Integer(total)
    return out


TITLE = "A derivation written as formulas (docs/authoring.md)"

RECIPE = Recipe(
    name="formulas", title=TITLE, doc=__doc__, quantities=(), inputs=(
        Input("NAME", "number", "any number the formulas read: w = 0.5, lr = 0.1, eps = 1e-8",
              required=False),
        Input("NAME", TENSOR, "a vector or a matrix as nested lists: x = [2, 1], W1 = [[0.1, "
              "-0.2], [0.4, 0.5]] (up to 4 dimensions, 256 entries); tensor formulas read it",
              required=False),
        Input(RECORDS, "rows", 'records: [[x, y], …], or { columns = ["x1", "x2", "y"], '
              "rows = [[…], …] }; each column is a family x1_i", required=False),
        Input(MICROBATCHES, "row_groups", "records grouped into microbatches: [[[x, y], …], "
              "…]; k, n_k, N and mean_{i in B_k}(…)", required=False),
        Input(STEPS, "steps", f"the steps T of a recurrence (at most {MAX_STEPS:,})",
              required=False),
    ))
"""The entry `derive recipes` lists: an exercise's own recipe is built from its define table
(`recipe_for`)."""
