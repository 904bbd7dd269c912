"""`derive check PATH …` and `derive key PATH …`: exercise files in, reports and keys out."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from derive.cli import settings
from derive.cli.cache import Cache
from derive.cli.errors import UsageError
from derive.cli.output import emit
from derive.cli.terminal import safe
from derive.errors import TimeBoundError, quoted, quoted_path
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS, run_passed
from derive.render import formats

# The exercise layers are imported when a command runs, so `derive prove` does not load them.


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check the claims of exercise files exactly")
    p.add_argument("paths", nargs="+", metavar="PATH", help="exercise files or folders")
    p.add_argument("--format", choices=formats.choices("check"), default=formats.default("check"))
    add_time_limit(p)
    p.set_defaults(run=run_check)

    p = sub.add_parser("key", help="print the exact answer key of exercise files")
    p.add_argument("paths", nargs="+", metavar="PATH", help="exercise files or folders")
    p.add_argument("--format", choices=formats.choices("key"), default=formats.default("key"))
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("-o", dest="out", metavar="OUT", help="write to OUT (atomically)")
    add_time_limit(p)
    p.set_defaults(run=run_key)


def add_time_limit(p) -> None:
    p.add_argument("--time-limit", default=EXERCISE_SECONDS, metavar="SECONDS",
                   help=f"time bound of one exercise (default {EXERCISE_SECONDS:g})")
    p.add_argument("--total-time-limit", default=RUN_SECONDS, metavar="SECONDS",
                   help=f"time bound of the whole run (default {RUN_SECONDS:g})")
    p.add_argument("--no-cache", dest="cache", action="store_false",
                   help="compute every exercise again, and keep nothing (the cache is "
                   "$DERIVE_CACHE_DIR, else ~/.cache/derive, safe to delete)")


def check_limits(args) -> None:
    """--time-limit and --total-time-limit read as `derive build` and derive.toml read them
    (derive.cli.settings.seconds: exact, > 0, at most 10^9; one line otherwise), as floats."""
    for flag, key in (("--time-limit", "time_limit"), ("--total-time-limit", "total_time_limit")):
        setattr(args, key, settings.seconds(getattr(args, key), settings.flag_fail(flag)))


def reports_for(paths, seconds: float, decided: bool = False, total: float = RUN_SECONDS,
                cache: bool = True):
    """Every exercise checked, each within its time bound and all within `total` (or found in
    the cache); with `decided`, an exercise that passed a bound is an error (key and export:
    exit 2, nothing written)."""
    # start-up: only the commands that check exercises load that layer
    from derive.exercises import load

    if not seconds > 0 or not total > 0:
        raise UsageError(f"--time-limit {seconds:g}, --total-time-limit {total:g}: give "
                         f"numbers of seconds > 0")
    return exercise_reports(load(paths), seconds, decided, total, Cache.open(cache))


def exercise_reports(exercises, seconds: float, decided: bool = False,
                     total: float = RUN_SECONDS, cache: Cache | None = None):
    """The reports of exercises already loaded (see `reports_for`)."""
    # start-up: only the commands that check exercises load that layer
    from derive.exercises import check_exercise

    cache = cache or Cache(None)
    end = time.monotonic() + total
    reports = []
    for ex in exercises:
        key = cache.exercise_key(ex, "report")
        found = cache.get_report(key, ex)
        if found is not None:
            reports.append(found)
            continue
        left = end - time.monotonic()
        if left <= 0:
            reports.append(check_exercise(ex, 1e-6, reason=run_passed(total)))
            continue
        report = check_exercise(ex, seconds, wall=left, wall_reason=run_passed(total))
        cache.put_report(key, report)
        reports.append(report)
    late = [r for r in reports if r.undecided]
    if decided and late:
        first = late[0]
        more = f" (and {len(late) - 1} more)" if len(late) > 1 else ""
        raise TimeBoundError(f"{quoted_path(first.exercise.path)}: exercise "
                             f"'{quoted(first.exercise.id)}'{more}: {first.undecided}; "
                             "nothing written")
    return reports


def run_check(args) -> int:
    check_limits(args)
    reports = reports_for(args.paths, args.time_limit, total=args.total_time_limit,
                          cache=args.cache)
    with writing_bound(args.time_limit, len(reports), args.total_time_limit, "derive check"):
        text = formats.render("check", args.format, reports)
    emit(text, None)
    for r in reports:
        for w in r.warnings:
            print(safe(f"warning: {quoted_path(r.exercise.path)}: exercise "
                       f"'{quoted(r.exercise.id)}': {w}"),
                  file=sys.stderr)
    return 0 if all(r.ok for r in reports) else 1


@contextmanager
def writing_bound(seconds: float, count: int, total: float, what: str):
    """Writing a key or an export within --time-limit of CPU time per exercise (and
    --total-time-limit of wall time): past it, one line naming the bound with the user's
    number, nothing written (a working of huge values must not run unbounded after every
    exercise was checked in time)."""
    # start-up: the kernel (and SymPy) only once there is something to write
    from derive.kernel.timebound import DecisionTimeout, time_bound

    count = max(count, 1)
    try:
        with time_bound(seconds * count, wall=total):
            yield
    except DecisionTimeout as exc:
        which = (f"--total-time-limit {total:g} s (wall time)" if exc.wall else
                 f"--time-limit {seconds:g} s (CPU time)" + (
                     f" × {count} exercises" if count > 1 else ""))
        option = what.split(" ", 2)[2:]  # `derive export --variants`: its option
        raise TimeBoundError(f"{option[0] + ': ' if option else ''}passed its time bound, "
                             f"{which}, while writing; nothing written") from None


def run_key(args) -> int:
    # start-up: only the commands that check exercises load that layer
    from derive.exercises.bank import toml_files

    check_limits(args)
    reports = reports_for(args.paths, args.time_limit, decided=True,
                          total=args.total_time_limit, cache=args.cache)
    with writing_bound(args.time_limit, len(reports), args.total_time_limit, "derive key"):
        text = formats.render("key", args.format, reports, lang=args.lang)
    emit(text, args.out, toml_files(args.paths))
    return 0
