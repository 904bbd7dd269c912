"""Bounds a user can see and change, in one light module (the command line reads them before
it imports the layers that use them)."""

EXERCISE_SECONDS = 30.0
"""The time bound of one exercise in check, key, export and variants (`--time-limit`), in
seconds of CPU time (derive.kernel.timebound), so a busy machine does not change a verdict."""

RESERVED_SHARE = 1 / 6
"""The share of an exercise's time bound (--time-limit) kept for what is not its computation:
the start-up before it and the writing after it. The computation is bounded at the rest, so
that a bound of 30 s is kept whole (25 s of computing, 5 s for the rest)."""


def computation_seconds(promise: float) -> float:
    """The CPU-time bound of an exercise's computation under a time bound of `promise` seconds:
    the promise less its reserved share (RESERVED_SHARE)."""
    return promise * (1 - RESERVED_SHARE)


RUN_SECONDS = 600.0
"""The time bound of a whole run of check, key, export or variants (`--total-time-limit`), in
seconds of wall-clock time (what a user waits):
past it, the exercises not yet done are `undecided` at once, so a bank of slow exercises
cannot run for its length times the bound of one."""

TOTAL_VARIANTS = 20_000
"""Most variants one run of `derive variants` writes (exercises × -n)."""

SHOWN_DIGITS = 100
"""Most digits (numerator or denominator) of an exact value the text `check` report writes in
its expected column, as a reader reads it: past them, the value's certified decimal after ≈
and its digit count (the JSON and the keys write it whole, up to MAX_TEXT_DIGITS)."""

JSON_EXACT_CHARS = 16_000_000
"""Most characters of exact text (`exact`, a claim's `expected`) one exercise's JSON may hold
(check and key): each element of a list is written whole, with its shared subexpressions
named, so a long Adam run grows quadratically (300 steps: 264 MB). Counted while the text is
built; past it the exercise is "not supported" (exit 2, nothing written)."""


def run_passed(total: float) -> str:
    """What an exercise not decided within the run's bound says (check, key, export, build)."""
    return f"the run passed its time bound of {total:g} s (--total-time-limit)"
