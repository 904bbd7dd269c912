"""Answer keys and check reports: JSON objects, text tables and Markdown documents."""

from __future__ import annotations

import sympy as sp

from derive.exercises.check import Report
from derive.exercises.writer import value as toml_value
from derive.wording import plural
from derive.render.escape import escape_markdown, terminal_line
from derive.render.values import bracketed, decimal_text, exact_text, flat, latex_text

LABELS = {
    "en": {"key": "Answer key", "quantity": "Quantity", "exact": "Exact", "decimal": "Decimal",
           "formula": "Formula", "recipe": "recipe", "given": "Given", "wrong": "(a wrong scheme)"},
    "zh": {"key": "参考答案", "quantity": "量", "exact": "精确值", "decimal": "小数",
           "formula": "公式", "recipe": "配方", "given": "已知", "wrong": "(错误做法)"},
}


def quantities_json(report: Report) -> dict:
    return {name: {"exact": exact_text(v), "decimal": decimal_text(v), "latex": latex_text(v)}
            for name, v in report.values.items()}


def key_json(report: Report) -> dict:
    ex = report.exercise
    return {"id": ex.id, "recipe": ex.recipe.name, "title": ex.title, "path": ex.path,
            "quantities": quantities_json(report)}


def check_json(report: Report) -> dict:
    out = key_json(report)
    out["ok"] = report.ok
    out["outcome"] = "undecided" if report.undecided else ("ok" if report.ok else "wrong")
    if report.undecided:
        out["undecided"] = report.undecided
    out["claims"] = [
        {"name": c.name, "claimed": c.claimed_json, "status": c.status,
         "expected": exact_text(c.expected) if c.expected is not None else None,
         "decimal": decimal_text(c.expected) if c.expected is not None else None,
         "diagnosis": c.diagnosis.as_dict() if c.diagnosis else None}
        for c in report.claims]
    return out


def _given_text(value) -> str:
    """A given value in Markdown: numbers as derive writes them; a value shown as text (a
    ledger table, a string, an optimizer table) escaped."""
    if isinstance(value, dict):
        return escape_markdown(toml_value(value))  # a ledger table, as the file writes it
    if not isinstance(value, (list, tuple, sp.Basic, int)):
        return escape_markdown(str(value))  # a string or an optimizer table
    return flat(value)


def key_markdown(reports: list[Report], lang: str = "en") -> str:
    """A printed answer key: one section per exercise, a table of every quantity. The author's
    words (id, title, values shown as text) pass through `escape_markdown`."""
    t = LABELS[lang]
    lines = [f"# {t['key']}", ""]
    for r in reports:
        ex = r.exercise
        title = escape_markdown(ex.title)
        lines += [f"## {escape_markdown(ex.id)}" + (f" — {title}" if title else ""), "",
                  f"{t['recipe']}: `{ex.recipe.name}`", ""]
        given = [f"{k} = {_given_text(v)}" for k, v in ex.given.items() if v is not None]
        if given:
            lines += [f"{t['given']}: " + "; ".join(given), ""]
        lines += [f"| {t['quantity']} | {t['formula']} | {t['exact']} | {t['decimal']} |",
                  "| --- | --- | --- | --- |"]
        for name, value in r.values.items():
            q = ex.recipe.quantity(name)
            label = (q.zh if lang == "zh" and q.zh else name)
            if lang == "zh":
                label = f"{label} (`{name}`)"
            else:
                label = f"`{name}`"
            if q.wrong:
                label += f" {t['wrong']}"
            dec = bracketed(decimal_text(value))
            formula = quantity_formula(ex, name).replace("|", "\\|")
            lines.append(f"| {label} | ${formula}$ | ${latex_text(value)}$ | {dec} |")
        lines.append("")
    return "\n".join(lines)


def quantity_formula(ex, name):
    from derive.render.derivation import quantity_formula as formula
    return formula(ex, name)


def check_text(reports: list[Report]) -> str:
    """A table per exercise, then a summary line."""
    lines = []
    counts = {"exact": 0, "rounded": 0, "within": 0, "wrong": 0, "undecided": 0}
    for r in reports:
        ex = r.exercise
        mark = "UNDECIDED" if r.undecided else "ok" if r.ok else "WRONG"
        title = f" — {terminal_line(ex.title)}" if ex.title else ""
        lines.append(f"{terminal_line(ex.id)} ({ex.recipe.name}) {mark}{title}")
        if r.undecided:
            lines.append(f"  undecided: {r.undecided}")
        if not r.claims:
            lines.append("  (no claims: `derive key` prints its answer key)")
            lines.append("")
            continue
        rows = [("claim", "claimed", "status", "expected", "diagnosis")]
        for c in r.claims:
            counts[c.status] += 1
            diag = ""
            if c.diagnosis:
                d = c.diagnosis
                name = d.mistake or (f"carried from {d.carried_from}" if d.carried_from else "")
                diag = f"{name}: {d.explanation}" if name else d.explanation
            expected = flat(c.expected) if c.expected is not None else "—"
            rows.append((c.name, c.claimed, c.status, expected, diag))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        for row in rows:
            lines.append(("  " + "  ".join(row[i].ljust(widths[i]) for i in range(4))
                          + "  " + row[4]).rstrip())
        lines.append("")
    n_claims = sum(counts.values())
    bad = sum(1 for r in reports if not r.ok and not r.undecided)
    late = sum(1 for r in reports if r.undecided)
    summary = [] if bad or late else ["every claim holds"]
    if bad:
        summary.append(f"{bad} exercise{'s' if bad > 1 else ''} with wrong claims")
    if late:
        summary.append(f"{late} exercise{'s' if late > 1 else ''} undecided (time bound)")
    undecided = f", {counts['undecided']} undecided" if counts["undecided"] else ""
    lines.append(f"{plural(len(reports), 'exercise')}, {plural(n_claims, 'claim')}: "
                 f"{counts['exact']} exact, "
                 f"{counts['rounded']} rounded, {counts['within']} within, {counts['wrong']} "
                 f"wrong{undecided}; " + ", ".join(summary))
    return "\n".join(lines)
