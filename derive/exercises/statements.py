"""Statements in TOML (`derive prove FILE.toml`): `[[statement]]` tables read into the same
`Statement`s as the files of proofs/, so they get the same verdicts, JSON and exit codes.

The two sides are formulas in derive's language (derive/graph/language.py); nothing in the file
is evaluated. `[statement.given]` says what the names are. With `window = "microbatches"`,
k = 1…K runs over K ≥ 1 microbatches of n_k ≥ 1 records, N = Σ_k n_k, block B_k holds the
records c_{k−1}+1 … c_k with c_k = n_1 + … + n_k, and i = 1…N runs over the records: the
objects of derive/model/objective.py, so the kernel proves A2 from a file as it proves
proofs/a2.py. `functions = ["ell"]` declares undefined functions: ell_i(θ) is ℓ(i, θ).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import sympy as sp

from derive.errors import quoted
from derive.exercises.errors import did_you_mean
from derive.exercises.reader import read_toml
from derive.exercises.statement_files import (
    DOCS,
    StatementError,
    StatementNotSupported,
    read_paths,
)
from derive.exercises.tensor_statements import DOCS as TENSOR_DOCS
from derive.exercises.tensor_statements import is_tensor_statement, tensor_statement
from derive.exercises.values import id_problem, kind_of, shown
from derive.graph.language import (
    ALIASES,
    DEFAULT_INDICES,
    RESERVED,
    FormulaError,
    FormulaNotSupported,
    evaluated,
    parse_formula,
)
from derive.kernel import Family, InvalidClaim, NotSupported, Verdict, hypothesis, nonzero, positive
from derive.kernel.claims import ContradictoryFacts
from derive.kernel.decide import _prepare_facts
from derive.kernel.definedness import domain_fact, folded_away
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.model import objective
from derive.statements.registry import proofs_module
from derive.statements.statement import ID_PATTERN, Statement

STATEMENT_KEYS = ("id", "title", "title_zh", "expect", "lhs", "rhs", "assumptions", "given",
                  "search")
"""The keys of a [[statement]] table."""
GIVEN_KEYS = ("window", "functions", "sizes", "tensors")
"""The keys of its [statement.given] table."""
FILE_KEYS = ("statement", "exercise", "notation")  # [notation]: derive.exercises.notation
"""Top-level keys of a file `derive prove` reads (its exercises are for `derive check`)."""

MAX_STATEMENTS = 100
"""Most statements in one file."""
MAX_TEXT = 300
"""Longest title, in characters."""
MAX_ASSUMPTIONS = 20
"""Most assumptions of one statement."""
MAX_FUNCTIONS = 20
"""Most declared functions of one statement."""

EXPECTS = {"proved": Verdict.PROVED, "refuted": Verdict.REFUTED}


@dataclass
class _At:
    path: str
    statement: str | None

    def fail(self, key, problem, expected=""):
        raise StatementError(self.path, self.statement, key, problem, expected)

    def unsupported(self, key, problem, expected=""):
        raise StatementNotSupported(self.path, self.statement, key, problem, expected)


# ------------------------------------------------------------------ windows and searches

@dataclass(frozen=True)
class Window:
    """What a window's names mean in a formula, and the assumption it stands for."""

    describe: str
    indices: dict
    blocks: dict
    names: dict


def _microbatch_block(i, k):
    """B_k = records c_{k−1}+1 … c_k, of n_k records (objective.block_sum's bounds)."""
    return objective.boundary(k - 1) + 1, objective.boundary(k), objective.n(k)


WINDOWS = {
    "microbatches": Window(
        describe="k = 1…K over K ≥ 1 microbatches of n_k ≥ 1 records, N = Σ_k n_k, block B_k "
                 "= records c_{k−1}+1 … c_k (c_k = n_1 + … + n_k), records i = 1…N",
        indices={"i": objective.N, "k": objective.K},
        blocks={"B": _microbatch_block},
        names={"n": objective.n, "N": objective.N, "K": objective.K},
    ),
}
"""The windows a statement's names may come from."""


def _microbatch_search() -> Family:
    """proofs/families.py: every tuple of microbatch sizes, smallest N first, on the lesson's
    model (ℓ_i(θ) = (θ·x_i − y_i)²/2, θ = w, symbolic records)."""
    families = proofs_module("families")
    return Family(families.partitions, families.lesson_window)


SEARCHES: dict[str, tuple[str, Callable[[], Family]]] = {
    "microbatches": ("microbatches", _microbatch_search),
}
"""Witness searches by name: (the window they interpret, the family of shapes)."""


# ------------------------------------------------------------------------------ reading

def load_statements(path: Path) -> list[Statement]:
    """The statements of a file's [[statement]] tables, validated (StatementError or
    StatementNotSupported otherwise; ExerciseError for a file that cannot be read)."""
    return statements_of(read_toml(path), str(path))


def statements_of(doc: dict, name: str) -> list[Statement]:
    at = _At(name, None)
    for key in doc:
        if key not in FILE_KEYS:
            hint = did_you_mean(key, FILE_KEYS)
            at.fail(key, "is not a top-level key of a statement file",
                    hint or "write statements as [[statement]] tables")
    tables = doc.get("statement")
    if tables is None:
        what = " (its [[exercise]] tables are for `derive check`)" if "exercise" in doc else ""
        at.fail(None, f"holds no [[statement]] table{what}",
                f"write [[statement]] tables for `derive prove`; {DOCS}")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict)
                                                             for t in tables):
        at.fail("statement", f"is {kind_of(tables)}", "write one or more [[statement]] tables")
    if len(tables) > MAX_STATEMENTS:
        at.fail("statement", f"has {len(tables)} tables",
                f"at most {MAX_STATEMENTS} statements in one file; split it")
    out, seen = [], set()
    for n, table in enumerate(tables):
        s = _bounded_statement(table, name, n)
        if s.id in seen:
            _At(name, s.id).fail("id", "is also the id of an earlier statement in this file",
                                 "give every statement its own id")
        seen.add(s.id)
        out.append(s)
    return out


def _text(table: dict, key: str, at: _At, required: bool) -> str:
    value = table.get(key)
    if value is None:
        if required:
            at.fail(key, "is missing", f"write {key} = \"…\"")
        return ""
    if not isinstance(value, str):
        at.fail(key, f"is {kind_of(value)}", f"write {key} as text")
    if len(value) > MAX_TEXT or "\n" in value or not value.isprintable():
        at.fail(key, "is not one printable line of at most 300 characters",
                "write one short line")
    return value


READ_SECONDS = 20.0
"""The time bound on reading one statement (its sides, assumptions and their consistency):
the bound of one decision, so that no file is read outside every bound."""


def _bounded_statement(table, path: str, index: int) -> Statement:
    """`statement`, within READ_SECONDS; past it, StatementNotSupported naming the statement."""
    try:
        with time_bound(READ_SECONDS):
            return statement(table, path, index)
    except DecisionTimeout:
        sid = table.get("id") if isinstance(table, dict) else None
        _At(path, sid if isinstance(sid, str) else f"#{index + 1}").unsupported(
            None, f"reading it (its sides and assumptions) takes more than {READ_SECONDS:g} s",
            "write smaller sides and assumptions")


def statement(table: dict, path: str, index: int) -> Statement:
    """A validated Statement from the `index`-th [[statement]] table of a file."""
    at = _At(path, None)
    sid = table.get("id")
    problem = id_problem(sid, ID_PATTERN.match)
    if problem:
        at.statement = f"#{index + 1}"
        at.fail("id", problem,
                "give each statement an id: A1, A2, … or lowercase words joined by hyphens, "
                "such as \"mean-of-means-toml\"")
    at.statement = sid
    for key in table:
        if key not in STATEMENT_KEYS:
            hint = did_you_mean(key, STATEMENT_KEYS)
            at.fail(key, "is not a key of a [[statement]] table",
                    hint or f"use one of: {', '.join(STATEMENT_KEYS)}")
    title = _text(table, "title", at, required=True)
    title_zh = _text(table, "title_zh", at, required=False)
    expect = table.get("expect")
    if expect == "unknown":
        at.fail("expect", "is \"unknown\", which is never a success",
                "expect \"proved\" (an identity) or \"refuted\" (a non-identity)")
    if not isinstance(expect, str) or expect not in EXPECTS:
        at.fail("expect", "is missing" if expect is None else f"is {shown(expect)}",
                "write expect = \"proved\" or \"refuted\"")
    if is_tensor_statement(table.get("given")):
        parts = tensor_statement(table, at, lambda facts, where: _consistent(facts, where, False),
                                 MAX_ASSUMPTIONS)
        try:
            return Statement(id=sid, title=title, title_zh=title_zh, expect=EXPECTS[expect],
                             claim=f"{table['lhs']} = {table['rhs']}",
                             assumptions=parts.pop("assumptions") + tuple(
                                 table.get("assumptions", [])), **parts)
        except NotSupported as exc:
            at.unsupported(None, str(exc))
        except (InvalidClaim, ValueError) as exc:
            at.fail(None, str(exc), TENSOR_DOCS)
    window, functions = _given(table.get("given", {}), at)
    meaning = _meaning(window, functions)
    written: list = []
    lhs = _side(table, "lhs", at, meaning, written)
    rhs = _side(table, "rhs", at, meaning, written)
    same = _one_symbol_per_name((lhs, rhs))
    lhs, rhs = lhs.xreplace(same), rhs.xreplace(same)
    ranged, ranges = _free_indices(lhs, rhs, meaning)
    lhs, rhs = lhs.xreplace(ranged), rhs.xreplace(ranged)
    written_domain = tuple(domain_fact(*c) for c in folded_away(
        [(e.xreplace(same).xreplace(ranged), relation) for e, relation in written], lhs, rhs))
    claim_symbols = lhs.free_symbols | rhs.free_symbols | {
        x for f in ranges for x in f.expr.free_symbols}  # N in i > N is the claim's size
    facts, notes = _assumptions(table.get("assumptions", []), at, meaning, claim_symbols,
                                ranged, ranges)
    family = _search(table.get("search"), at, window)
    assumptions = ((WINDOWS[window].describe,) if window else ()) + tuple(
        table.get("assumptions", []))
    try:
        return Statement(id=sid, title=title, title_zh=title_zh, expect=EXPECTS[expect],
                         claim=f"{table['lhs']} = {table['rhs']}", assumptions=assumptions,
                         lhs=lhs, rhs=rhs, facts=facts + written_domain, family=family,
                         notes=notes)
    except NotSupported as exc:
        at.unsupported(None, str(exc))
    except (InvalidClaim, ValueError) as exc:
        at.fail(None, str(exc), DOCS)


def _given(given: object, at: _At) -> tuple[str | None, tuple[str, ...]]:
    """The window and the declared functions of [statement.given]."""
    if not isinstance(given, dict):
        at.fail("given", f"is {kind_of(given)}", "write a [statement.given] table")
    for key in given:
        if key not in GIVEN_KEYS:
            if key in STATEMENT_KEYS:
                at.fail(f"given.{key}", "is a key of the [[statement]] table, not of "
                        "[statement.given]", f"write {key} before the [statement.given] "
                        "header")
            hint = did_you_mean(key, GIVEN_KEYS)
            at.fail(f"given.{key}", "is not a key of [statement.given]",
                    hint or f"use one of: {', '.join(GIVEN_KEYS)}")
    window = given.get("window")
    if window is not None and (not isinstance(window, str) or window not in WINDOWS):
        hint = did_you_mean(window, WINDOWS) if isinstance(window, str) else ""
        at.fail("given.window", f"is {shown(window)}, not a known window",
                hint or f"known windows: {', '.join(WINDOWS)}")
    raw = given.get("functions", [])
    if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
        at.fail("given.functions", f"is {kind_of(raw)}",
                "write a list of names, such as functions = [\"ell\"]")
    if len(raw) > MAX_FUNCTIONS:
        at.fail("given.functions", f"has {len(raw)} names", f"at most {MAX_FUNCTIONS}")
    taken = set(WINDOWS[window].names) | {"B", "i", "k"} if window else set()
    functions = []
    for name in raw:
        word = ALIASES.get(name, name)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9]{0,30}", word) or word in RESERVED \
                or word in taken or word in functions:
            why = ("is used by the window" if word in taken else "is declared twice"
                   if word in functions else "is a word of the formula language"
                   if word in RESERVED else "is not a name")
            at.fail("given.functions", f"{shown(name)} {why}",
                    "declare each function once by a name of ASCII letters and digits "
                    "that the window does not use (n, N, K, B, i, k)")
        functions.append(word)
    return window, tuple(functions)


def _meaning(window: str | None, functions: tuple[str, ...]) -> dict:
    """The keyword arguments of parse_formula for a statement's names."""
    w = WINDOWS.get(window) if window else None
    return dict(indices=w.indices if w else DEFAULT_INDICES,
                blocks=w.blocks if w else {},
                names=w.names if w else {},
                functions={f: sp.Function(f, real=True) for f in functions})


def _formula(text: object, key: str, at: _At, meaning: dict, offset: int = 0,
             whole: str | None = None, domain: list | None = None) -> sp.Expr:
    """A formula of the file as an (evaluated) SymPy expression; an error names the key, the
    text (`whole`, when the formula is part of it, at `offset`) and the column. `domain`
    receives the conditions under which the formula, as written, is defined."""
    if not isinstance(text, str):
        at.fail(key, "is missing" if text is None else f"is {kind_of(text)}",
                f"write {key} as a formula in quotes, such as \"d(mean_i(ell_i(θ)))/d(θ)\"")
    try:
        return evaluated(parse_formula(text, **meaning), domain)
    except FormulaNotSupported as exc:
        call = re.match(r"the function '([A-Za-z][A-Za-z0-9]*)'", str(exc))
        hint = (f"declare it in [statement.given]: functions = [\"{call.group(1)}\"]"
                if call else "see docs/formulas.md")
        at.unsupported(key, f"{shown(whole or text)}: {exc}", hint)
    except FormulaError as exc:
        message = str(exc)
        if exc.column is not None and offset:
            message = message.rsplit(" at column ", 1)[0] + f" at column {exc.column + offset}"
        at.fail(key, f"{shown(whole or text)}: {message}", "see docs/formulas.md")


def _side(table: dict, key: str, at: _At, meaning: dict, domain: list) -> sp.Expr:
    return _formula(table.get(key), key, at, meaning, domain=domain)


def _one_symbol_per_name(exprs, claim: dict | None = None) -> dict:
    """One symbol for each name: `i` written as a letter (a real) and as the index of `x_i`
    (an integer) are the same i, taken as the integer; a name of the claim (`claim`, name to
    symbol) keeps the claim's symbol in an assumption."""
    by_name: dict[str, set] = {}
    for e in exprs:
        for x in e.free_symbols:
            if type(x) is sp.Symbol:
                by_name.setdefault(x.name, set()).add(x)
    mapping = {}
    for name, found in by_name.items():
        if claim and name in claim:
            chosen = claim[name]
        elif len(found) > 1:
            chosen = max(found, key=lambda x: (bool(x.is_integer), bool(x.is_positive),
                                               sp.default_sort_key(x)))
        else:
            continue
        mapping.update({x: chosen for x in found if x != chosen})
    return mapping


def _variables(*exprs: sp.Expr) -> frozenset:
    """The symbols some derivative of `exprs` is taken with respect to: real variables, even
    when named like an index."""
    return frozenset(v for e in exprs for d in e.atoms(sp.Derivative) for v in d.variables)


def _as_indices(e: sp.Expr, meaning: dict, held: frozenset = frozenset()) -> sp.Expr:
    """`e` with each index letter written as a value (the i of `(-1)^i`, a real symbol as
    parsed) made the integer it stands for, as in `x_i`; a derivative's variable is left."""
    return e.xreplace({s: sp.Symbol(s.name, integer=True) for s in e.free_symbols
                       if type(s) is sp.Symbol and s.name in meaning["indices"]
                       and not s.is_integer and s not in held})


def _free_indices(lhs: sp.Expr, rhs: sp.Expr, meaning: dict):
    """An index letter free in the claim (`x_i` outside sum_i, the k of `B_k`, the i of
    `(-1)^(2*i)`) ranges over its family, as the window says: 1 ≤ i ≤ N. Its symbol becomes a
    positive integer, and i ≤ N a fact, so that no witness takes a member the family does not
    have (x_0), nor a value that is no member (i = 1/2). A letter some derivative is taken with
    respect to stays a real variable."""
    sizes = meaning["indices"]
    size_names = {v: k for k, v in meaning["names"].items() if isinstance(v, sp.Expr)}
    held = _variables(lhs, rhs)
    mapping, facts = {}, []
    for s in sorted(lhs.free_symbols | rhs.free_symbols, key=lambda x: x.name):
        if not (type(s) is sp.Symbol and s.name in sizes and s not in held
                and s.is_positive is not True):
            continue
        size = sizes[s.name]
        ranged = sp.Symbol(s.name, integer=True, positive=True)
        if size.has(ranged) or size.has(s):
            continue
        mapping[s] = ranged
        shown_size = size_names.get(size) or (size.name if isinstance(size, sp.Symbol)
                                              else str(size))
        facts.append(hypothesis(size - ranged, f"1 <= {s.name} <= {shown_size}"))
    return mapping, tuple(facts)


COMPARISONS = (">=", "<=", "!=", "==", "≥", "≤", "≠", ">", "<", "=")
_COMPARISON = re.compile("|".join(re.escape(c) for c in COMPARISONS))
RELATIONS = {">=": ">=", "≥": ">=", ">": ">", "!=": "!=", "≠": "!=", "<=": "<=", "≤": "<=",
             "<": "<"}


def _assumptions(raw: object, at: _At, meaning: dict, claim_symbols: set,
                 ranged: dict | None = None, ranges: tuple = ()):
    """Facts from assumptions written as `a >= b`, `a > b`, `a != b` (or ≤, <): an
    assumption about every member of a family (a free index such as k) is kept only when the
    window's declarations already give it (n_k ≥ 1), as a note."""
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        at.fail("assumptions", f"is {kind_of(raw)}",
                "write a list of facts as text, such as assumptions = [\"eta > 0\"]")
    if len(raw) > MAX_ASSUMPTIONS:
        at.fail("assumptions", f"has {len(raw)} facts", f"at most {MAX_ASSUMPTIONS}")
    facts = list(ranges)
    sizes = {s for v in (*meaning["indices"].values(), *meaning["names"].values())
             if isinstance(v, sp.Expr) for s in v.free_symbols}  # N, K, T: one value each
    notes = [f"the free index {f.reason.split()[2]} ranges over its family: {f.reason}"
             for f in ranges]
    for n, text in enumerate(raw):
        key = f"assumptions[{n}]"
        found = _COMPARISON.findall(text)
        if len(found) != 1:
            at.fail(key, f"{shown(text)} has {len(found) or 'no'} comparisons",
                    "write one comparison, such as \"n_k >= 1\" or \"eta > 0\"")
        op = found[0]
        if op in ("=", "=="):
            at.unsupported(key, f"{shown(text)}: an equation as an assumption",
                           "write facts with >=, >, != (or ≤, <), or substitute the value")
        m = _COMPARISON.search(text)
        left = _formula(text[:m.start()], key, at, meaning, whole=text)
        right = _formula(text[m.end():], key, at, meaning, offset=m.end(), whole=text)
        relation = RELATIONS[op]
        # as written, never expanded: (a+b+c)^1000 would be 501,501 terms before any bound
        difference = left - right if relation in (">=", ">", "!=") else right - left
        difference = difference.xreplace(ranged or {})
        claim = {x.name: x for x in claim_symbols if type(x) is sp.Symbol}
        difference = difference.xreplace(_one_symbol_per_name((difference,), claim))
        difference = _as_indices(difference, meaning, _variables(difference))
        free_indices = {s for s in difference.free_symbols
                        if s.is_integer and s not in claim_symbols and s not in sizes}
        implied = {">=": difference.is_nonnegative, "<=": difference.is_nonnegative,
                   ">": difference.is_positive, "<": difference.is_positive,
                   "!=": difference.is_nonzero}[relation]
        if free_indices:
            if implied is not True:
                shown_ix = ", ".join(sorted(s.name for s in free_indices))
                at.unsupported(key, f"{shown(text)}: an assumption about every {shown_ix} "
                               "(free in the assumption, not in the claim)",
                               "state facts about the claim's own symbols")
            notes.append(f"assumption '{quoted(text)}' holds by the window's declarations")
            continue
        make = {">=": hypothesis, "<=": hypothesis, ">": positive, "<": positive,
                "!=": nonzero}[relation]
        try:
            facts.append(make(difference, text))
        except NotSupported as exc:
            at.unsupported(key, f"{shown(text)}: {exc}")
        except (InvalidClaim, ValueError) as exc:
            at.fail(key, f"{shown(text)}: {exc}", "write a fact that can hold")
    if facts:
        _consistent(tuple(facts), at, bool(meaning["names"]))
    return tuple(facts), tuple(notes)


def _consistent(facts: tuple, at: _At, window: bool) -> None:
    """Refuse facts that contradict each other or the symbols' domains (the kernel's own
    check, run once when reading rather than at every decision)."""
    try:
        _prepare_facts(facts)
    except NotSupported as exc:
        at.unsupported("assumptions", str(exc))
    except ContradictoryFacts as exc:  # said by the file's own texts, not SymPy's forms
        shown = ", ".join(f"'{quoted(r)}'" for r in exc.reasons)
        what = (f"the facts {shown} cannot hold together" if len(exc.reasons) > 1
                else f"the fact {shown} cannot hold")
        where = (" in the window (K, n_k >= 1)" if window
                 else "" if len(exc.reasons) > 1 else " for any values of its symbols")
        them = "them" if len(exc.reasons) > 1 else "it"
        at.fail("assumptions", f"{what}{where}: every claim would follow from {them}",
                "state facts that can hold together")
    except (InvalidClaim, ValueError) as exc:
        at.fail("assumptions", str(exc), "state facts that can hold together")


def _search(name: object, at: _At, window: str | None) -> Family | None:
    if name is None:
        return None
    if not isinstance(name, str) or name not in SEARCHES:
        hint = did_you_mean(name, SEARCHES) if isinstance(name, str) else ""
        at.fail("search", f"is {shown(name)}, not a known search",
                f"{hint + ' ' if hint else ''}known searches: {', '.join(SEARCHES)}")
    needs, family = SEARCHES[name]
    if window != needs:
        at.fail("search", f"{shown(name)} interprets the {needs} window",
                f"add window = \"{needs}\" to [statement.given]")
    return family()


def load_paths(paths: list[str]) -> list[tuple[Statement, str]]:
    """(statement, file) for every [[statement]] table of the files named and of the *.toml
    files under the folders named (a folder's files without statements are left out)."""
    return statements_in(read_paths(paths))


def statements_in(read: list[tuple[dict, str, str]]) -> list[tuple[Statement, str]]:
    """(statement, file) for the documents `read_paths` read."""
    return [(s, where) for doc, name, where in read for s in statements_of(doc, name)]
