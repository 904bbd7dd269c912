"""`derive variants PATH -n N [--seed S] [-o DIR]`: verified variants of every exercise that
has an [exercise.vary] table, each an exercise file whose claims are its exact key."""

from __future__ import annotations

import sys
import time

from derive.cli.errors import UsageError
from derive.cli.exercises import add_time_limit, check_limits
from derive.cli.output import emit, emit_bank
from derive.cli.terminal import safe
from derive.errors import TimeBoundError
from derive.kernel.timebound import DecisionTimeout, time_bound
from derive.limits import TOTAL_VARIANTS

MAX_VARIANTS = 10_000


def add_parser(sub) -> None:
    p = sub.add_parser("variants", help="generate verified variants of exercises")
    p.add_argument("path", metavar="PATH", help="an exercise file or folder")
    p.add_argument("-n", type=int, required=True, metavar="N", help="variants per exercise")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="the same seed gives byte-identical files (default 0)")
    p.add_argument("-o", dest="out", metavar="DIR", help="write one file per variant into DIR")
    add_time_limit(p)
    p.set_defaults(run=run)


def run(args) -> int:
    # start-up: only `derive variants` loads the exercises layer
    from derive.exercises import load
    from derive.exercises.bank import toml_files

    if not 1 <= args.n <= MAX_VARIANTS:
        raise UsageError(f"-n {args.n}: ask for 1 to {MAX_VARIANTS} variants")
    check_limits(args)
    exercises = [ex for ex in load([args.path]) if ex.vary]
    if not exercises:
        raise UsageError(f"{args.path}: no exercise has an [exercise.vary] table; add one "
                         "naming the inputs a variant may change")
    if len(exercises) * args.n > TOTAL_VARIANTS:
        raise UsageError(f"-n {args.n} for {len(exercises)} exercises is "
                         f"{len(exercises) * args.n:,} variants; one run writes at most "
                         f"{TOTAL_VARIANTS:,} (ask for fewer, or split the bank)")
    reports: list[str] = []
    short: list[str] = []
    files = _variant_files(exercises, args, reports, short)
    if args.out is None:
        emit("\n".join(text for _, text in files), None)
    else:
        emit_bank(files, args.out, toml_files([args.path]))
    for line in reports:
        print(safe(line), file=sys.stderr)
    return 1 if short else 0


def _variant_files(exercises, args, reports: list[str], short: list[str]):
    """(file name, text) of every variant, exercise by exercise (each within its time bound
    and its own budget of candidates, all within the run's), so that a bank is written as it
    is made. A scarce exercise (fewer than N variants, or its time bound passed) gives what it
    found and one line in `short`; the others are not held back. Nothing found at all: the
    first exercise's error, nothing written."""
    # start-up: only `derive variants` loads the exercises layer
    from derive.exercises.variants import VariantError, generate, render

    end = time.monotonic() + args.total_time_limit
    written, first_error = 0, None
    for ex in exercises:
        left = end - time.monotonic()
        try:
            if left <= 0:
                raise DecisionTimeout()
            with time_bound(args.time_limit, wall=left):
                gen = generate(ex, args.n, args.seed, allow_fewer=True)
        except DecisionTimeout as exc:
            which = ("the run passed its time bound of "
                     f"{args.total_time_limit:g} s (--total-time-limit)" if left <= 0 or exc.wall
                     else f"its variants passed the time bound of {args.time_limit:g} s per "
                          f"exercise (--time-limit)")
            error = TimeBoundError(f"exercise {ex.id!r} ({ex.path}): {which}; nothing written "
                                   f"(raise the bound, or ask for fewer with -n)")
            first_error = first_error or error
            short.append(ex.id)
            reports.append(f"{ex.id}: 0 of {args.n} variants: {which}")
            continue
        except VariantError as exc:
            first_error = first_error or exc
            short.append(ex.id)
            reports.append(f"{ex.id}: 0 of {args.n} variants: {exc.problem}")
            continue
        for k, v in enumerate(gen.variants, 1):
            written += 1
            yield f"{v.id}.toml", render(ex, v, k)
        how = "enumerated" if gen.enumerated else "sampled"
        if len(gen.variants) < args.n:
            short.append(ex.id)
            reports.append(f"{ex.id}: only {len(gen.variants)} of {args.n} variants meet "
                           f"[exercise.require] ({gen.how}, acceptance {gen.accepted}/"
                           f"{gen.tried} = {100 * gen.rate:.1f}%); those {len(gen.variants)} "
                           "are written")
            continue
        reports.append(f"{ex.id}: {len(gen.variants)} variants, acceptance "
                       f"{gen.accepted}/{gen.tried} = {100 * gen.rate:.1f}% of the candidates "
                       f"tried ({how} from {gen.space})")
    if not written and first_error is not None:
        raise first_error
