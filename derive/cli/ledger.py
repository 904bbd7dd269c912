"""`derive ledger`: the memory ledger of every ZeRO stage for given P, D and activations, as
a table (text, Markdown or LaTeX) and as a stacked bar chart (SVG or PNG)."""

from __future__ import annotations

from derive.cli.errors import UsageError, did_you_mean
from derive.cli.output import check_output, emit, emit_drawn, same_file
from derive.errors import quoted


def add_parser(sub) -> None:
    p = sub.add_parser("ledger", help="the training-state memory of every ZeRO stage")
    p.add_argument("--params", required=True, metavar="P", help="parameters, such as 1e9")
    p.add_argument("--dp", default="1", metavar="D", help="data-parallel degree (default 1)")
    p.add_argument("--activation-gib", default="0", metavar="A",
                   help="activations per card in GiB (default 0; never divided by D)")
    p.add_argument("--preset", default="mixed_adam", help="a named ledger (default mixed_adam)")
    p.add_argument("--format", choices=("text", "md", "tex"), default="text")
    p.add_argument("--chart", metavar="FILE.svg|FILE.png", help="also draw a stacked bar chart")
    p.add_argument("-o", dest="out", metavar="OUT", help="write the table to OUT (atomically)")
    p.set_defaults(run=run)


MAX_COUNT = 10**15
"""The largest count (parameters, cards), as in exercise files."""


def _number(text: str, name: str, whole: bool = False):
    # start-up: only `derive ledger` loads the kernel's exact numbers
    from derive.kernel.exact import ExactNumberError, parse_exact

    try:
        v = parse_exact(text)
    except ExactNumberError as exc:
        raise UsageError(f"--{name}: {exc}; write a number such as "
                         + ("2e9" if whole else "0.5")) from None
    if v < 0 or (whole and (not v.is_integer or v < 1)):
        raise UsageError(f"--{name}: is {text}; " + ("write a whole number ≥ 1" if whole
                                                      else "write a number ≥ 0"))
    if whole and v > MAX_COUNT:
        raise UsageError(f"--{name}: is {text}; counts go up to 1e15")
    return v


def run(args) -> int:
    # start-up: only `derive ledger` loads the memory model and its renderer
    from derive.model.memory import PRESETS
    from derive.render.document import to_markdown, to_tex
    from derive.render.ledger import draw_chart, ledger_document, ledger_text

    if args.preset not in PRESETS:
        raise UsageError(f"--preset: no ledger '{quoted(args.preset)}'"
                         f"{did_you_mean(args.preset, PRESETS)} (use one of: {', '.join(PRESETS)})")
    params = _number(args.params, "params", whole=True)
    dp = _number(args.dp, "dp", whole=True)
    act = _number(args.activation_gib, "activation-gib")
    ledger = PRESETS[args.preset].bytes
    if args.chart:
        if not args.chart.endswith((".svg", ".png")):
            raise UsageError(f"--chart {args.chart}: name a .svg or .png file")
        if args.out is not None and same_file(args.chart, args.out):
            raise UsageError(f"--chart {args.chart} and -o {args.out}: name the same file; "
                             f"name two files")
        if args.out is not None:
            check_output(args.out)  # refused before the chart is drawn, not after
        try:
            emit_drawn(lambda path: draw_chart(params, ledger, dp, act, path), args.chart,
                       option="--chart")
        except ImportError as exc:
            raise UsageError(str(exc)) from None
    if args.format == "text":
        text = ledger_text(params, ledger, dp, act)
    else:
        doc = ledger_document(params, ledger, dp, act)
        text = to_markdown(doc) if args.format == "md" else to_tex(doc, standalone=True)
    emit(text, args.out)
    return 0
