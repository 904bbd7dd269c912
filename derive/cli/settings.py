"""The options of `derive build`: the command line over the `[build]` table of the bank's
derive.toml over the defaults; every value checked, one line naming what is wrong.

A value is read the one way wherever it is written: `--time-limit 30.5` on the command line and
`time-limit = 30.5` (or `"30.5"`) in derive.toml are the same number, read exactly (never as a
float) by `number`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from derive.cli.errors import UsageError
from derive.errors import InputError, quoted, quoted_path
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS

SETTINGS_FILE = "derive.toml"
ARTEFACTS = ("check", "key", "questions", "export", "page", "pdf", "scorm", "moodle", "qti")
DEFAULT_ARTEFACTS = ("check", "key", "questions", "export", "page", "scorm", "moodle", "qti")
LANGS = ("en", "zh")
KEYS = ("lang", "only", "jobs", "cache", "quiet", "time-limit", "total-time-limit")
MAX_JOBS = 256
MAX_SECONDS = 10**9
MAX_NUMBER = 40
"""Most characters of a setting's number (`1000000000.000000001` has 20)."""
_NUMBER = re.compile(r"[+-]?(\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?\Z", re.ASCII)
_FAR = 100
"""An exponent past ±_FAR puts a number far outside every setting's range (it is not
computed: `1e999999999` would take gigabytes)."""


@dataclass(frozen=True)
class Options:
    langs: tuple[str, ...]
    only: tuple[str, ...]
    jobs: int
    cache: bool
    quiet: bool
    time_limit: float
    total_time_limit: float
    asked: tuple[str, ...] = ()
    """The artefacts named by `--only` or the [build] table's `only` (none: the defaults were
    taken). One of these that is not written makes the exit code 2 (docs/cli.md)."""


def _shown(value) -> str:
    """A value as the user wrote it, for a message: quoted short, never a Python repr."""
    if isinstance(value, str):
        return f"'{quoted(value)}'"
    # start-up: only a setting in derive.toml brings a value that is not text
    from derive.exercises.values import shown

    return shown(value)


def number(value, fail, expected: str) -> tuple[Fraction, str]:
    """(its exact value, its text as written) of a number on the command line (text) or in
    derive.toml (a TOML integer, a decimal as the file writes it, or text): decimal digits, an
    optional point and an optional exponent (`30`, `30.5`, `1e3`, `1_000`). Anything else is
    one line naming what is wrong (`fail(problem, expected)`)."""
    text = getattr(value, "text", None)  # a TOML decimal, as written (reader.Written/BadNumber)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)) and text is None:
        fail(f"is {_shown(value)}, not a number", expected)
    if text is None and isinstance(value, int) and value.bit_length() > 3 * MAX_NUMBER:
        fail(f"is a whole number of about {value.bit_length() * 0.30103:,.0f} digits",
             expected)
    text = (text if text is not None else value if isinstance(value, str) else repr(value)
            ).strip()
    if len(text) > MAX_NUMBER:
        fail(f"is a number of {len(text):,} characters", expected)
    m = _NUMBER.match(re.sub(r"(?<=\d)_(?=\d)", "", text))
    if not m:
        fail(f"is {_shown(text)}, not a number"
             + (" that is finite" if text.lower().lstrip("+-") in ("inf", "nan") else ""),
             expected)
    e = int(m.group(2) or 0)
    value = Fraction(m.group(0).lower().partition("e")[0])
    e = max(-_FAR, min(e, _FAR))  # as far past every range, the same way
    return value * Fraction(10) ** e, text


def seconds(value, fail) -> float:
    """A time bound in seconds: > 0 and at most MAX_SECONDS (`--time-limit`, `time-limit`)."""
    expected = f"give a number of seconds > 0 and at most {MAX_SECONDS:,}, such as 30 or 2.5"
    seconds, text = number(value, fail, expected)
    if not 0 < seconds <= MAX_SECONDS:
        fail(f"is {quoted(text)}, " + ("not > 0" if seconds <= 0 else
                                       f"more than {MAX_SECONDS:,}"), expected)
    return float(seconds)


def _jobs(value, fail) -> int:
    expected = f"give a whole number of workers from 1 to {MAX_JOBS}"
    jobs, text = number(value, fail, expected)
    if jobs.denominator != 1 or not 1 <= jobs <= MAX_JOBS:
        fail(f"is {quoted(text)}", expected)
    return int(jobs)


def _flag(value, fail) -> bool:
    if not isinstance(value, bool):
        fail(f"is {_shown(value)}", "write true or false")
    return value


def _names(value, allowed: tuple[str, ...], what: str, fail) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",")]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        fail(f"is {_shown(value)}, not a list of {what}", f"write some of {', '.join(allowed)}")
    unknown = [v for v in value if v not in allowed]
    if unknown:
        fail(f"names {_shown(unknown[0])}, not one of the {what}", f"write some of "
             f"{', '.join(allowed)}")
    return tuple(v for v in allowed if v in value)  # a fixed order, each once


def flag_fail(flag: str):
    """The `fail` of a command-line option: one line naming it (UsageError, exit 2)."""
    def fail(problem: str, expected: str):
        raise UsageError(f"{flag}: {problem}; {expected}")
    return fail


def _file_settings(bank: str) -> dict:
    """The [build] table of BANK/derive.toml, checked key by key ({} when there is none)."""
    # start-up: only `derive build` loads the exercise reader
    from derive.exercises.reader import read_toml

    path = Path(bank) / SETTINGS_FILE
    if not path.is_file():
        return {}
    doc = read_toml(path)
    table = doc.get("build", {})
    name = quoted_path(path)
    if not isinstance(table, dict):
        raise InputError(f"{name}: key 'build': is not a table (it is {_shown(table)}); write "
                         f"[build] with keys {', '.join(KEYS)}")
    out = {}
    for key, value in table.items():
        def fail(problem: str, expected: str, key=key):
            raise InputError(f"{name}: key 'build.{quoted(key)}': {problem}; {expected}")
        if key == "lang":
            out["langs"] = _names(value, LANGS, "languages", fail)
        elif key == "only":
            out["only"] = _names(value, ARTEFACTS, "artefacts", fail)
        elif key == "jobs":
            out["jobs"] = _jobs(value, fail)
        elif key in ("cache", "quiet"):
            out[key] = _flag(value, fail)
        elif key in ("time-limit", "total-time-limit"):
            out[key.replace("-", "_")] = seconds(value, fail)
        else:
            fail("is not a key of [build]", f"write one of {', '.join(KEYS)}")
    return out


def options(args) -> Options:
    """The build's options: the command line, else derive.toml's [build], else the defaults."""
    if not Path(args.bank).is_dir():
        raise UsageError(f"{quoted_path(args.bank)}: is not a folder; name the bank's folder "
                         f"of exercise files")
    chosen = {"langs": LANGS, "only": DEFAULT_ARTEFACTS, "jobs": os.cpu_count() or 1,
              "cache": True, "quiet": False, "time_limit": EXERCISE_SECONDS,
              "total_time_limit": RUN_SECONDS}
    chosen.update(_file_settings(args.bank))
    if args.lang is not None:
        chosen["langs"] = _names(",".join(args.lang), LANGS, "languages",
                                 flag_fail("--lang"))
    if args.only is not None:
        chosen["only"] = _names(args.only, ARTEFACTS, "artefacts", flag_fail("--only"))
    # the defaults are this very tuple; a choice, even of the same names, is a new one
    chosen["asked"] = () if chosen["only"] is DEFAULT_ARTEFACTS else chosen["only"]
    if args.jobs is not None:
        chosen["jobs"] = _jobs(args.jobs, flag_fail("--jobs"))
    if args.cache is not None:
        chosen["cache"] = args.cache
    if args.quiet is not None:
        chosen["quiet"] = args.quiet
    for flag, key in (("--time-limit", "time_limit"),
                      ("--total-time-limit", "total_time_limit")):
        if getattr(args, key) is not None:
            chosen[key] = seconds(getattr(args, key), flag_fail(flag))
    return Options(**chosen)


# ------------------------------------------------------------------------------ the course

COURSE_KEYS = ("title", "title_zh", "author", "term", "lessons")
LESSON_KEYS = ("title", "title_zh")
MAX_TITLE = 200
"""Most characters of a title, author or term in [course] (a line of a page's heading)."""


@dataclass(frozen=True)
class Course:
    """The [course] table of the bank's derive.toml: what the students' site and the question
    sheets are titled with. Without it the site is titled "Exercises" (练习) and each lesson
    with its file's name: a title is the author's words, never made up from a folder."""
    title: str = ""
    title_zh: str = ""
    author: str = ""
    term: str = ""
    lessons: tuple[tuple[str, str, str], ...] = ()
    """(the lesson's file, as its site folder is named: `lesson03`, `part1/intro`; title;
    title_zh) of each lesson the table names."""

    def lesson(self, name: str) -> tuple[str, str]:
        """(title, title_zh) of a lesson, ("", "") when the table does not name it."""
        return next(((t, z) for n, t, z in self.lessons if n == name), ("", ""))


def _title(value, fail) -> str:
    if not isinstance(value, str):
        fail(f"is {_shown(value)}, not text", "write a title in quotes")
    if len(value) > MAX_TITLE or "\n" in value:
        fail(f"is {len(value):,} characters" if len(value) > MAX_TITLE else "has a line break",
             f"write one line of at most {MAX_TITLE} characters")
    return value.strip()


def course(bank: str) -> Course:
    """The [course] table of BANK/derive.toml, checked key by key (Course() without one)."""
    # start-up: only `derive build` loads the exercise reader
    from derive.exercises.reader import read_toml

    path = Path(bank) / SETTINGS_FILE
    if not path.is_file():
        return Course()
    table = read_toml(path).get("course", {})
    name = quoted_path(path)

    def failer(key: str):
        def fail(problem: str, expected: str):
            raise InputError(f"{name}: key 'course.{quoted(key)}': {problem}; {expected}")
        return fail

    if not isinstance(table, dict):
        raise InputError(f"{name}: key 'course': is not a table (it is {_shown(table)}); write "
                         f"[course] with keys {', '.join(COURSE_KEYS)}")
    out: dict = {}
    for key, value in table.items():
        fail = failer(key)
        if key not in COURSE_KEYS:
            fail("is not a key of [course]", f"write one of {', '.join(COURSE_KEYS)}")
        if key != "lessons":
            out[key] = _title(value, fail)
            continue
        if not isinstance(value, dict):
            fail(f"is {_shown(value)}, not a table", "write [course.lessons.<file>] with "
                 "title and title_zh")
        lessons = []
        for lesson, titles in value.items():
            at = failer(f"lessons.{lesson}")
            if not isinstance(titles, dict):
                at(f"is {_shown(titles)}, not a table", "write title = \"…\" and "
                   "title_zh = \"…\"")
            for k in titles:
                if k not in LESSON_KEYS:
                    failer(f"lessons.{lesson}.{k}")("is not a key of a lesson",
                                                    f"write one of {', '.join(LESSON_KEYS)}")
            lessons.append((lesson, *(_title(titles.get(k, ""), failer(f"lessons.{lesson}.{k}"))
                                      for k in LESSON_KEYS)))
        out["lessons"] = tuple(lessons)
    return Course(**out)
