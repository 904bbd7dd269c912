"""`derive variants PATH -n N [--seed S] [-o DIR]`: verified variants of every exercise that
has an [exercise.vary] table, each an exercise file whose claims are its exact key."""

from __future__ import annotations

import sys
import time

from derive.cli.errors import UsageError
from derive.cli.exercises import add_time_limit, check_limits
from derive.cli.output import emit, emit_bank
from derive.cli.terminal import safe
from derive.errors import TimeBoundError, quoted, quoted_path
from derive.limits import TOTAL_VARIANTS
from derive.wording import plural

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
        raise UsageError(f"-n {quoted(args.n)}: ask for 1 to {MAX_VARIANTS} variants")
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
    from derive.exercises.variants import VariantError, generate
    from derive.kernel.timebound import DecisionTimeout, time_bound

    end = time.monotonic() + args.total_time_limit
    written, first_error = 0, None
    for ex in exercises:
        left = end - time.monotonic()
        which = ("the run's time bound of "
                 f"{args.total_time_limit:g} s (--total-time-limit)" if left <= args.time_limit
                 else f"the time bound of {args.time_limit:g} s per exercise (--time-limit)")
        try:
            if left <= 0:
                raise DecisionTimeout()
            with time_bound(args.time_limit, wall=left):  # writing each file included
                gen = generate(ex, args.n, args.seed, allow_fewer=True, write=True)
            texts = [(f"{v.id}.toml", v.text) for v in gen.variants]
        except DecisionTimeout as exc:
            if left <= 0 or exc.wall:
                which = (f"the run's time bound of {args.total_time_limit:g} s "
                         f"(--total-time-limit)")
            error = TimeBoundError(f"exercise '{quoted(ex.id)}' ({quoted_path(ex.path)}): its "
                                   f"variants passed "
                                   f"{which}; nothing written (raise the bound, or ask for "
                                   "fewer with -n)")
            first_error = first_error or error
            short.append(ex.id)
            reports.append(f"{ex.id}: 0 of {args.n} variants: {which} was reached")
            continue
        except VariantError as exc:
            first_error = first_error or exc
            short.append(ex.id)
            reports.append(f"{ex.id}: 0 of {args.n} variants: {exc.problem}")
            continue
        written += len(texts)
        yield from texts
        if len(texts) < args.n:
            short.append(ex.id)
            reports.append(_short_line(ex.id, args.n, len(texts), gen, which))
            continue
        how = "enumerated" if gen.enumerated else "sampled"
        reports.append(f"{ex.id}: {len(gen.variants)} variants, acceptance "
                       f"{gen.accepted}/{gen.tried} = {100 * gen.rate:.1f}% of the candidates "
                       f"tried ({how} from {gen.space})")
    if not written and first_error is not None:
        raise first_error


def _short_line(ex_id: str, n: int, k: int, gen, which: str) -> str:
    """The report of an exercise that gives k < n variants: the time bound (searching or
    writing), or the search itself (require, or candidates that could not be computed)."""
    if gen.timed_out:
        return (f"{ex_id}: only {k} of {n} variants: {which} was reached after "
                f"{plural(k, 'variant')} ({gen.tried} of {gen.space} candidates tried); "
                f"{'that one is' if k == 1 else f'those {k} are'} written")
    what = "meet [exercise.require]" if gen.requires else "are distinct"
    failed = (f"; {gen.failed} candidates could not be computed, the first because "
              f"{gen.first_failure}" if gen.failed else "")
    return (f"{ex_id}: only {k} of {n} variants {what} ({gen.how}, acceptance {gen.accepted}/"
            f"{gen.tried} = {100 * gen.rate:.1f}%{failed}); those {k} are written")
