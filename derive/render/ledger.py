"""The memory ledger of every ZeRO stage as a table document, and as a stacked bar chart
(components coloured, GiB axis; matplotlib, an optional extra)."""

from __future__ import annotations

from derive.exercises.ledger import component_terms, per_card, rows, stage_working
from derive.graph.notation import in_scope
from derive.kernel.exact import decimal_str
from derive.model import memory as m
from derive.render.document import Document, Heading, Math, Paragraph, Table
from derive.render.formula_tex import formula
from derive.render.latex import number
from derive.render.numbers import Style, rounded_text
from derive.render.working import lines as working_lines

STAGE_NAMES = {0: "0 (DDP)", 1: "1 (P_os)", 2: "2 (P_os+g)", 3: "3 (P_os+g+p)"}
"""The stages as the ZeRO paper names them (the text table and the chart)."""
STAGE_WORDS = {0: "0: nothing sharded", 1: "1: optimizer states", 2: "2: gradients too",
               3: "3: parameters too"}
"""The stages in words (the Markdown and LaTeX table, where `_` would start a formula)."""
COLORS = {"param": "#4C72B0", "grad": "#DD8452", "grad_fp32_partition": "#DA8BC3",
          "master": "#55A868", "adam_m": "#C44E52",
          "adam_v": "#8172B3", "momentum": "#937860"}


LEDGER_STYLE = Style(places=3, terminating=3)
"""GB and GiB in the ledger's table: three places."""


def _d(v):
    """An exact decimal when it has at most 3 digits after the point, else rounded."""
    return rounded_text(v, LEDGER_STYLE)


def formula_lines(params, ledger, dp, activation_gib) -> tuple[str, ...]:
    """B = Σ_c b_c with the ledger's numbers, then B_card of each stage: the formulas of the
    `memory` recipe's graph, each term b_c or b_c/D as the stage shards it."""
    def work(stage):
        return stage_working(params, ledger, stage, dp, activation_gib)
    (line, value), = working_lines(work(0), "bytes_per_param")
    out = [rf"& {line} = {number(value).text}"]
    for stage in (0, 1, 2, 3):
        (line, value), = working_lines(work(stage), "card_bytes_per_param")
        out.append(rf"\text{{stage {stage}:}} \quad & {line} = {number(value).text}")
    return tuple(out)


def ledger_document(params, ledger, dp, activation_gib, lang="en") -> Document:
    blocks = [
        Paragraph(f"P = {decimal_str(params)} parameters, D = {dp} cards, activations "
                  f"{decimal_str(activation_gib)} GiB per card (never divided by D). "
                  f"Bytes per parameter, and on one card at each stage:"),
        Math(formula_lines(params, ledger, dp, activation_gib)),
        Paragraph("GB = 10⁹ bytes, GiB = 2³⁰ bytes; decimals rounded half away from zero to "
                  f"{LEDGER_STYLE.places} places, exact values in `derive key` of a memory "
                  "exercise."),
        Table(("stage", "sharded over D", "bytes per parameter per card", "state bytes", "state GB",
               "state GiB", "total GiB"),
              tuple((STAGE_WORDS[r["stage"]], ", ".join(f"`{c}`" for c in r["sharded"]) or "—",
                     ("math", number(r["card_bytes_per_param"]).text),
                     str(r["state_bytes"]) if r["state_bytes"].is_Integer else _d(r["state_bytes"]),
                     _d(r["state_gb"]), _d(r["state_gib"]), _d(r["total_gib"]))
                    for r in rows(params, ledger, dp, activation_gib))),
    ]
    return Document("Training-state memory per card", (Heading("ZeRO stages", 2), *blocks),
                    lang)


def ledger_text(params, ledger, dp, activation_gib) -> str:
    rs = rows(params, ledger, dp, activation_gib)
    head = ("stage", "sharded", "B/param", "state GB", "state GiB", "total GiB")
    body = [(STAGE_NAMES[r["stage"]], ",".join(r["sharded"]) or "-",
             _d(r["card_bytes_per_param"]), _d(r["state_gb"]), _d(r["state_gib"]),
             _d(r["total_gib"])) for r in rs]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]
    lines = [f"P = {decimal_str(params)}, D = {dp}, activations {decimal_str(activation_gib)} "
             f"GiB per card, {decimal_str(rs[0]['bytes_per_param'])} bytes per parameter"]
    lines += ["  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in
                        enumerate(zip(row, widths))).rstrip() for row in (head, *body)]
    return "\n".join(lines)


def draw_chart(params, ledger, dp, activation_gib, path: str) -> None:
    """A stacked bar per stage: each component's GiB per card, then activations (hatched)."""
    try:
        # matplotlib is an optional extra (derive[plot])
        import matplotlib
    except ImportError as exc:
        raise ImportError("drawing the chart needs matplotlib: pip install 'derive[plot]'") \
            from exc
    matplotlib.use("Agg")
    # matplotlib is an optional extra (derive[plot])
    import matplotlib.pyplot as plt

    def plotted(v) -> float:
        return float(v)  # matplotlib's coordinates: display only, nothing is decided on them

    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    stages = [0, 1, 2, 3]
    names = [STAGE_NAMES[s] for s in stages]
    cards = per_card(ledger, dp)
    totals = [r["total_gib"] for r in rows(params, ledger, dp, activation_gib)]
    bottoms = [0.0] * 4
    for comp, b in ledger.items():
        heights = [plotted(c[comp] * params / m.GIB) for c in cards]
        ax.bar(names, heights, bottom=bottoms, color=COLORS.get(comp, "#999999"),
               label=f"{comp} ({b} B)")
        bottoms = [a + h for a, h in zip(bottoms, heights)]
    if activation_gib:
        ax.bar(names, [plotted(activation_gib)] * 4, bottom=bottoms, color="white",
               edgecolor="#555555", hatch="//", label="activations (not divided by D)")
    for x, s in enumerate(stages):
        total = totals[s]
        ax.text(x, plotted(total), f"{_d(total)} GiB", ha="center", va="bottom", fontsize=9)
    ax.set_ylabel("GiB per card (2³⁰ bytes)")
    ax.set_xlabel("ZeRO stage")
    ax.set_title(f"P = {decimal_str(params)} parameters, D = {dp}")
    ax.set_ylim(0, max(bottoms[0] + plotted(activation_gib), 1e-9) * 1.15)
    ax.legend(fontsize=8, loc="upper right", frameon=False)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def component_rows(working, lang: str = "en"):
    """The working's table of the per-card ledger: one row per component, read from the terms
    of the `card_bytes_per_param` node (b_c, or b_c/D where the stage shards c): its symbol,
    its bytes, its divisor D_c (D or 1) and what one card holds. The node's formula and its
    substituted line follow the table, once."""
    out = []
    with in_scope(working.graph.notation):
        for t in component_terms(working):
            divisor = (f"{formula(t.divisor).text} = {number(t.divisor_value).text}"
                       if t.divisor is not None else "1")
            out.append((f"`{t.component}`", ("math", formula(t.symbol).text),
                        ("math", number(t.bytes).text), ("math", divisor),
                        ("math", number(t.on_card).text)))
    return HEADER[lang], tuple(out)


HEADER = {"en": ("component", "symbol", "bytes per parameter", "divided by", "on one card"),
          "zh": ("组成部分", "符号", "每参数字节", "除以", "每卡")}
