"""`derive export ID|PATH`: a statement's proof, or an exercise file's derivations, as LaTeX or
KaTeX-ready Markdown."""

from __future__ import annotations

from pathlib import Path

from derive.cli.errors import UsageError
from derive.cli.exercises import add_time_limit, reports_for
from derive.cli.output import emit
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="export a statement or exercise derivations as LaTeX or "
                       "Markdown")
    p.add_argument("target", metavar="ID|PATH", help="a statement id, or an exercise file/folder")
    p.add_argument("--format", choices=("tex", "md"), default="tex")
    p.add_argument("--standalone", action="store_true",
                   help="a complete LaTeX document (pdfLaTeX for en, XeLaTeX for zh)")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("-o", dest="out", metavar="OUT", help="write to OUT (atomically)")
    add_time_limit(p)
    p.set_defaults(run=run)


def document_for(target: str, lang: str, seconds: float = EXERCISE_SECONDS,
                 total: float = RUN_SECONDS):
    """The document of a statement id, or of the exercises under a path; and its input files."""
    from derive.statements.registry import all_statements

    statements = {s.id: s for s in all_statements()}
    if target in statements and Path(target).exists() and target == Path(target).name:
        raise UsageError(f"{target!r} is both a statement id and a file here; write "
                         f"./{target} for the file")
    if target in statements:
        from derive.render.derivation import statement_document
        from derive.statements import prove

        return statement_document(prove(statements[target]), lang), []
    if Path(target).exists():
        from derive.exercises.bank import toml_files
        from derive.render.derivation import exercises_document

        reports = reports_for([target], seconds, decided=True, total=total)
        return exercises_document(reports, lang, Path(target).name), toml_files([target])
    from derive.cli.errors import did_you_mean

    raise UsageError(f"{target!r} is neither a statement id nor a file"
                     f"{did_you_mean(target, statements)} (`derive prove` lists the ids)")


def run(args) -> int:
    from derive.render.document import to_markdown, to_tex

    doc, inputs = document_for(args.target, args.lang, args.time_limit, args.total_time_limit)
    text = to_tex(doc, args.standalone) if args.format == "tex" else to_markdown(doc)
    emit(text, args.out, inputs)
    return 0
