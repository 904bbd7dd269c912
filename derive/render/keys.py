"""Answer keys and check reports as data (JSON objects), and the `check` report as a document
(rendered as plain text by `derive.render.document.to_text`). The answer key as a document is
`derive.render.derivation.key_document`."""

from __future__ import annotations

from collections import Counter

from derive import limits
from derive.exercises.check import Report, quantity_key
from derive.exercises.errors import ExerciseNotSupported
from derive.exercises.report import formula_of
from derive.kernel.dag import TextBudget, TextTooLong
from derive.render.document import Author, Document, Heading, Paragraph, Table, to_text
from derive.render.numbers import decimal_text, exact_text, flat, latex_text, writable
from derive.wording import joined, plural


def json_budget() -> TextBudget:
    """The characters of exact text one exercise's JSON may hold (`JSON_EXACT_CHARS`)."""
    return TextBudget(limits.JSON_EXACT_CHARS)  # read at each call: a bound one can change


def _exact(report: Report, key: str, value, budget: TextBudget | None):
    """`exact_text(value)` charged to `budget`; past it, ExerciseNotSupported naming the
    file, the exercise and the quantity (or claim), never a text of hundreds of MB."""
    try:
        return exact_text(value, budget)
    except TextTooLong:
        ex = report.exercise
        raise ExerciseNotSupported(
            ex.path, ex.id, key,
            f"its exact value would take the exercise's JSON past {budget.chars:,} characters",
            "check it with --format text, write its key with --format md or tex, or give "
            "fewer steps") from None


def quantities_json(report: Report, budget: TextBudget | None = None) -> dict:
    """Each quantity's exact value, decimal and LaTeX, and `formula`: its symbolic form in
    the formula language (what a formula answer would write; null when it has none). The
    exact texts are charged to `budget` (by default `json_budget()`)."""
    budget = json_budget() if budget is None else budget
    writable(report)
    ex = report.exercise
    return {name: {"exact": _exact(report, quantity_key(ex, name), v, budget),
                   "decimal": decimal_text(v), "latex": latex_text(v),
                   "formula": formula_of(report, name)}
            for name, v in report.values.items()}


def key_json(report: Report, budget: TextBudget | None = None) -> dict:
    ex = report.exercise
    return {"id": ex.id, "recipe": ex.recipe.name, "title": ex.title, "path": ex.path,
            "quantities": quantities_json(report, budget)}


def check_json(report: Report) -> dict:
    """The key of the exercise, then its claims; one budget of exact text for both."""
    budget = json_budget()
    out = key_json(report, budget)
    out["ok"] = report.ok
    out["outcome"] = report.outcome
    if report.undecided:
        out["undecided"] = report.undecided
    if report.warnings:
        out["warnings"] = list(report.warnings)
    out["claims"] = [
        {"name": c.name, "claimed": c.claimed_json, "status": c.status,
         "expected": (_exact(report, f"claims.{c.name}", c.expected, budget)
                      if c.expected is not None else c.formula),
         "decimal": decimal_text(c.expected) if c.expected is not None else None,
         "expected_text": _expected_text(c),
         "diagnosis": c.diagnosis.as_dict() if c.diagnosis else None,
         **({"shape": list(c.shape), "entries": c.entries} if c.shape is not None else {})}
        for c in report.claims]
    return out


MAX_POSITIONS = 8
"""Most wrong entries of a tensor claim the text report lists (then how many more)."""


def wrong_entries(c, lang: str = "en") -> str:
    """Which entries of a tensor claim are wrong, 1-based as W_{1,2} is written: `at (1,2),
    (2,1) of 2×3` (`错在 (1,2)、(2,1)，共 2×3` in Chinese); "" for any other claim."""
    at = c.wrong_at
    if c.status != "wrong" or not at or c.shape is None:
        return ""
    sep = "、" if lang == "zh" else ", "
    shown = sep.join("(" + ",".join(map(str, p)) + ")" for p in at[:MAX_POSITIONS])
    dims = "×".join(map(str, c.shape))
    if lang == "zh":
        more = f" 等 {len(at)} 处" if len(at) > MAX_POSITIONS else ""
        return f"错在 {shown}{more}，共 {dims}"
    more = f" and {len(at) - MAX_POSITIONS} more" if len(at) > MAX_POSITIONS else ""
    return f"at {shown}{more} of {dims}"


def status_text(c) -> str:
    """A claim's status as the text report writes it: for a tensor claim with wrong entries,
    which ones (`wrong at (1,2), (2,1) of 2×3`)."""
    where = wrong_entries(c)
    return f"{c.status} {where}" if where else c.status


def _expected_text(c) -> str | None:
    """The expected column of the text report, as a reader reads it: the value in the reader
    form with its decimal (bounded by `limits.SHOWN_DIGITS`), or the quantity's formula with
    the exercise's names; None when there is neither (an undecided exercise)."""
    if c.expected is not None:
        return flat(c.expected)
    return c.formula_read or c.formula


CHECK_COLUMNS = ("claim", "claimed", "status", "expected", "diagnosis")


def check_document(reports: list[Report]) -> Document:
    """The `check` report as a document: per exercise a heading (id, recipe, outcome, title)
    and a table of its claims, then a summary."""
    blocks: list = []
    counts = {"exact": 0, "rounded": 0, "within": 0, "equivalent": 0, "wrong": 0,
              "undecided": 0}
    for r in reports:
        ex = r.exercise
        mark = {"ok": "ok", "wrong": "WRONG", "undecided": "UNDECIDED"}[r.outcome]
        blocks.append(Heading((Author(ex.id), f" ({ex.recipe.name}) {mark}"), 1, ex.title))
        if r.undecided:
            blocks.append(Paragraph(f"undecided: {r.undecided}"))
        if not r.claims:
            blocks.append(Paragraph("(no claims: `derive key` prints its answer key)"))
            continue
        rows = []
        for c in r.claims:
            counts[c.status] += 1
            diag = ""
            if c.diagnosis:
                d = c.diagnosis
                name = d.mistake or (f"carried from {joined(d.carried)}" if d.carried else "")
                diag = f"{name}: {d.explanation}" if name else d.explanation
            expected = (flat(c.expected) if c.expected is not None else
                        Author(c.formula_read or c.formula) if c.formula else "—")
            rows.append((c.name, Author(c.claimed), status_text(c), expected, diag))
        blocks.append(Table(CHECK_COLUMNS, tuple(rows)))
    n_claims = sum(counts.values())
    bad = sum(1 for r in reports if r.outcome == "wrong")
    late = Counter(r.undecided_by for r in reports if r.undecided)
    open_ = sum(1 for r in reports if r.outcome == "undecided" and not r.undecided)
    summary = [] if bad or late or open_ else ["every claim holds"]
    if bad:
        summary.append(f"{bad} exercise{'s' if bad > 1 else ''} with wrong claims")
    if open_:
        summary.append(f"{open_} exercise{'s' if open_ > 1 else ''} with undecided claims")
    for by, n in late.items():
        summary.append(f"{n} exercise{'s' if n > 1 else ''} undecided ({by})")
    undecided = f", {counts['undecided']} undecided" if counts["undecided"] else ""
    equivalent = f", {counts['equivalent']} equivalent" if counts["equivalent"] else ""
    line = (f"{plural(len(reports), 'exercise')}, {plural(n_claims, 'claim')}: "
            f"{counts['exact']} exact, {counts['rounded']} rounded, {counts['within']} within"
            f"{equivalent}, {counts['wrong']} wrong{undecided}; " + ", ".join(summary))
    return Document("", tuple(blocks), "en", end=(Paragraph(line),))


def check_text(reports: list[Report]) -> str:
    """A table per exercise, then a summary line (`check_document` as plain text)."""
    return to_text(check_document(reports))
