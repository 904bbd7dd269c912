"""`derive export ID|PATH`: a statement's proof, an exercise file's derivations, or its question
sheet (`--questions`), as LaTeX or KaTeX-ready Markdown."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from derive.cli.cache import Cache
from derive.cli.errors import UsageError, did_you_mean
from derive.cli.exercises import (
    add_time_limit,
    check_limits,
    exercise_reports,
    reports_for,
    writing_bound,
)
from derive.cli.output import emit
from derive.errors import quoted, quoted_path
from derive.ids import ID_PATTERN
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS
from derive.render import formats


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="export a statement or exercise derivations as LaTeX or "
                       "Markdown")
    p.add_argument("target", metavar="ID|PATH", help="a statement id, or an exercise file/folder")
    p.add_argument("--format", choices=formats.choices("export"),
                   default=formats.default("export"))
    p.add_argument("--standalone", action="store_true",
                   help="a complete LaTeX document (pdfLaTeX for en, XeLaTeX for zh)")
    p.add_argument("--questions", action="store_true",
                   help="the exercises' question sheet: givens and what to compute, no answers")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("--variants", type=int, metavar="N",
                   help="--format html: a page of N verified variants of each exercise with "
                   "[exercise.vary], one shown per visit or per student number")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="the variants' seed (default 0): the same seed, the same page")
    p.add_argument("-o", dest="out", metavar="OUT", help="write to OUT (atomically)")
    add_time_limit(p)
    p.set_defaults(run=run)


def _may_be_an_id(target: str) -> bool:
    """Whether `target` is written like a statement id (`A2`, `mean-of-means`): a bare name,
    no folder, no suffix. Any other argument is never an id."""
    return target == Path(target).name and bool(ID_PATTERN.match(target))


def _written_as_a_file(target: str) -> bool:
    """Whether `target` is written as a file or folder (it ends in .toml or holds a '/', as for
    `derive prove`): never an id, so one that does not exist is refused by the exercises'
    reader (one line, before SymPy), not after the statements' ids are read."""
    return target.endswith(".toml") or "/" in target or os.sep in target


def document_for(target: str, lang: str, seconds: float = EXERCISE_SECONDS,
                 total: float = RUN_SECONDS, questions: bool = False,
                 page: dict | None = None, cache: bool = True):
    """The document of a statement id, or of the exercises under a path (their question sheet
    with `questions`); and its input files.

    A path is decided first: the statements are looked at only for an argument that may be an
    id, and then by their ids as written in proofs/ (not proved, not imported), so an invalid
    statement file never stops the export of an exercise file. `page` (a self-check page:
    {"variants": N or None, "seed": S}) makes an exercise file's document its self-check."""
    # start-up: the bank's reader is loaded when the export is of a path
    from derive.exercises.bank import on_disk

    if on_disk(target) and not _may_be_an_id(target) or _written_as_a_file(target):
        if _statements_only(target):
            if questions or page is not None:
                raise UsageError(f"'{quoted(target)}' holds statements, which have no "
                                 "question sheet nor page; export it without --questions")
            return _statements_document(target, lang, total), [Path(target)]
        return _exercises_document(target, lang, seconds, total, questions, page, cache)
    # start-up: the statements' layer only for an argument that may be an id
    from derive.statements import prove, registry

    try:
        ids = registry.statement_ids()
    except registry.InvalidProofs as exc:
        raise UsageError(str(exc)) from None
    if target in ids and on_disk(target):
        raise UsageError(f"'{quoted(target)}' is both a statement id and a file here; write "
                         f"./{target} for the file")
    if target in ids:
        if page and page["variants"]:
            raise UsageError(f"--variants: '{quoted(target)}' is a statement, which has no "
                             "variants; name an exercise file or folder")
        if questions:
            raise UsageError(f"--questions: '{quoted(target)}' is a statement, which has no "
                             f"question sheet; name an exercise file or folder")
        # start-up: only `derive export` loads these layers, each when its output is asked
        from derive.render.derivation import statement_document

        try:
            (statement,) = registry.select([target])
        except registry.InvalidProofs as exc:
            raise UsageError(str(exc)) from None
        return statement_document(prove(statement), lang), []
    if on_disk(target):
        return _exercises_document(target, lang, seconds, total, questions, page, cache)
    raise UsageError(f"'{quoted(target)}' is neither a statement id nor a file"
                     f"{did_you_mean(target, ids)} (`derive prove` lists the ids)")


def _statements_only(target: str) -> bool:
    """Whether `target` is one file of [[statement]] tables and no [[exercise]] table: its
    export is its statements, decided (`derive prove FILE` decides the same)."""
    # start-up: the bank's reader only, before SymPy
    from derive.exercises.bank import examine
    from derive.exercises.reader import read_toml

    if examine(target) != "file":
        return False
    doc = read_toml(Path(target))
    return "statement" in doc and "exercise" not in doc


def _statements_document(target: str, lang: str, total: float):
    # start-up: only `derive export FILE.toml` of statements loads these layers
    from derive.exercises.statement_files import read_paths
    from derive.exercises.statements import statements_in
    from derive.render.derivation import statements_document
    from derive.statements.parallel import prove_all

    statements = [s for s, _ in statements_in(read_paths([target]))]
    outcomes = prove_all(statements, None, total)
    return statements_document(outcomes, lang, Path(target).name)


def _exercises_document(target: str, lang: str, seconds: float, total: float,
                        questions: bool, page: dict | None = None, cache: bool = True):
    # start-up: only `derive export` loads these layers, each when its output is asked
    from derive.exercises.bank import toml_files

    name = Path(target).name
    reports = reports_for([target], seconds, decided=True, total=total, cache=cache)
    variants = None
    if page and page["variants"]:
        variants = variant_reports(reports, page["variants"], page["seed"], seconds, total,
                                   cache)
    with writing_bound(seconds, len(reports) * len(variants or [1]), total, "derive export"):
        if page is not None and not questions:
            # start-up: only `derive export` loads these layers, each when its output is asked
            from derive.exercises.report import page_exercises
            from derive.render.selfcheck import selfcheck_document

            pages = page_exercises(reports, variants)
            return selfcheck_document(pages, lang, name), toml_files([target])
        if questions:
            # start-up: only `derive export` loads these layers, each when its output is asked
            from derive.render.questions import questions_document

            return questions_document(reports, lang, name), toml_files([target])
        # start-up: only `derive export` loads these layers, each when its output is asked
        from derive.render.derivation import exercises_document

        return exercises_document(reports, lang, name), toml_files([target])


MAX_PAGE_VARIANTS = 100
"""Most variants one page holds (each is a copy of every exercise's questions and working)."""


def variant_reports(reports, n: int, seed: int, seconds: float, total: float,
                    cache: bool = True):
    """n variants of the exercises: the i-th of each exercise with [exercise.vary] (verified
    by `derive.exercises.variants.generate`), the exercise as written for the others; each
    checked as an exercise of its own."""
    # start-up: only `derive export` loads these layers, each when its output is asked
    from derive.exercises.variants import generate, variant_exercise

    if not any(r.exercise.vary for r in reports):
        raise UsageError("--variants: no exercise here has an [exercise.vary] table; add one "
                         "naming the inputs a variant may change")
    columns = []
    for r in reports:
        ex = r.exercise
        if not ex.vary:
            columns.append([r] * n)
            continue
        with writing_bound(seconds, 1, total, "derive export --variants"):
            found = generate(ex, n, seed).variants
        columns.append(exercise_reports([variant_exercise(ex, v) for v in found], seconds,
                                        decided=True, total=total, cache=Cache.open(cache)))
    return [list(row) for row in zip(*columns)]


@contextmanager
def _named(target: str):
    """A page's formula refused outside an exercise's givens and working (which name their
    own file, exercise and key) said with the file or folder it is of."""
    from derive.render.katex import FormulaTooLong  # start-up: the page's renderer only

    try:
        yield
    except FormulaTooLong as exc:
        raise FormulaTooLong(f"{quoted_path(target)}: {exc.problem}", exc.expected) from None


def run(args) -> int:
    check_limits(args)
    page = None
    if args.format == "html":
        page = {"variants": args.variants, "seed": args.seed}
        if args.variants is not None and not 1 <= args.variants <= MAX_PAGE_VARIANTS:
            raise UsageError(f"--variants {quoted(args.variants)}: ask for 1 to "
                             f"{MAX_PAGE_VARIANTS}")
    elif args.variants is not None:
        raise UsageError("--variants is for --format html (derive variants writes variant "
                         "files)")
    doc, inputs = document_for(args.target, args.lang, args.time_limit, args.total_time_limit,
                               args.questions, page, args.cache)
    with writing_bound(args.time_limit, 1, args.total_time_limit, "derive export"), \
            _named(args.target):
        text = formats.render("export", args.format, doc, standalone=args.standalone)
    emit(text, args.out, inputs)
    return 0
