"""The options of `derive build`: the command line over the `[build]` table of the bank's
derive.toml over the defaults; every value checked, one line naming what is wrong."""

from __future__ import annotations

import os
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from derive.cli.errors import UsageError
from derive.errors import InputError
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS

SETTINGS_FILE = "derive.toml"
ARTEFACTS = ("check", "key", "questions", "export", "page", "pdf")
DEFAULT_ARTEFACTS = ("check", "key", "questions", "export", "page")
LANGS = ("en", "zh")
KEYS = ("lang", "only", "jobs", "cache", "quiet", "time-limit", "total-time-limit")
MAX_JOBS = 256
MAX_SECONDS = 10**9


@dataclass(frozen=True)
class Options:
    langs: tuple[str, ...]
    only: tuple[str, ...]
    jobs: int
    cache: bool
    quiet: bool
    time_limit: float
    total_time_limit: float


def _names(value, allowed: tuple[str, ...], what: str, fail) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        fail(f"is not a list of {what}", f"write some of {', '.join(allowed)}")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        fail(f"names {unknown[0]!r}, not one of the {what}", f"write some of "
             f"{', '.join(allowed)}")
    return tuple(v for v in allowed if v in value)  # a fixed order, each once


def _seconds(value, fail) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, Fraction, float)) \
            or not value > 0 or value > MAX_SECONDS:
        fail(f"is {value!r}", f"give a number of seconds > 0 and at most {MAX_SECONDS:,}")
    return float(value)


def _jobs(value, fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_JOBS:
        fail(f"is {value!r}", f"give a whole number of workers from 1 to {MAX_JOBS}")
    return value


def _flag(value, fail) -> bool:
    if not isinstance(value, bool):
        fail(f"is {value!r}", "write true or false")
    return value


def _file_settings(bank: str) -> dict:
    """The [build] table of BANK/derive.toml, checked key by key ({} when there is none)."""
    # start-up: only `derive build` loads the exercise reader
    from derive.exercises.reader import read_toml

    path = Path(bank) / SETTINGS_FILE
    if not path.is_file():
        return {}
    doc = read_toml(path)
    table = doc.get("build", {})
    name = str(path)
    if not isinstance(table, dict):
        raise InputError(f"{name}: key 'build': is not a table; write [build] with keys "
                         f"{', '.join(KEYS)}")
    out = {}
    for key, value in table.items():
        def fail(problem: str, expected: str, key=key):
            raise InputError(f"{name}: key 'build.{key}': {problem}; {expected}")
        if key == "lang":
            out["langs"] = _names(value, LANGS, "languages", fail)
        elif key == "only":
            out["only"] = _names(value, ARTEFACTS, "artefacts", fail)
        elif key == "jobs":
            out["jobs"] = _jobs(value, fail)
        elif key in ("cache", "quiet"):
            out[key] = _flag(value, fail)
        elif key in ("time-limit", "total-time-limit"):
            out[key.replace("-", "_")] = _seconds(value, fail)
        else:
            fail("is not a key of [build]", f"write one of {', '.join(KEYS)}")
    return out


def options(args) -> Options:
    """The build's options: the command line, else derive.toml's [build], else the defaults."""
    def flag_fail(flag):
        def fail(problem: str, expected: str):
            raise UsageError(f"{flag}: {problem}; {expected}")
        return fail

    if not Path(args.bank).is_dir():
        raise UsageError(f"{args.bank}: is not a folder; name the bank's folder of exercise "
                         f"files")
    chosen = {"langs": LANGS, "only": DEFAULT_ARTEFACTS, "jobs": os.cpu_count() or 1,
              "cache": True, "quiet": False, "time_limit": EXERCISE_SECONDS,
              "total_time_limit": RUN_SECONDS}
    chosen.update(_file_settings(args.bank))
    if args.lang is not None:
        chosen["langs"] = _names(",".join(args.lang), LANGS, "languages",
                                 flag_fail("--lang"))
    if args.only is not None:
        chosen["only"] = _names(args.only, ARTEFACTS, "artefacts", flag_fail("--only"))
    if args.jobs is not None:
        chosen["jobs"] = _jobs(args.jobs, flag_fail("--jobs"))
    if args.cache is not None:
        chosen["cache"] = args.cache
    if args.quiet is not None:
        chosen["quiet"] = args.quiet
    for flag, key in (("--time-limit", "time_limit"),
                      ("--total-time-limit", "total_time_limit")):
        if getattr(args, key) is not None:
            chosen[key] = _seconds(getattr(args, key), flag_fail(flag))
    return Options(**chosen)
