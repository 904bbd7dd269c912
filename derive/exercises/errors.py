"""Invalid exercise files: one line naming the file, the exercise, the key, what is wrong and
what would be right."""

from __future__ import annotations

import difflib

from derive.errors import InputError, NotSupportedError, capped, quoted, quoted_path


class ExerciseError(InputError):
    """Invalid input in an exercise file (exit 2)."""

    def __init__(self, path: str, exercise: str | None, key: str | None, problem: str,
                 expected: str = ""):
        self.path, self.exercise, self.key = path, exercise, key
        self.problem, self.expected = problem, expected
        super().__init__(self.line())

    def where(self, noun: str = "exercise") -> str:
        """`FILE: exercise 'ID': key 'KEY'`, each quoted short (derive.errors.quoted)."""
        where = [quoted_path(self.path)]
        if self.exercise:
            where.append(f"{noun} '{quoted(self.exercise)}'")
        if self.key:
            where.append(f"key '{quoted(self.key)}'")
        return ": ".join(where)

    def line(self) -> str:
        text = f"{self.where()}: {self.problem}"
        if self.expected:
            text += f"; {self.expected}"
        return capped(text)


class ExerciseNotSupported(ExerciseError, NotSupportedError):
    """A valid exercise file asking for something derive does not do (exit 2, said as "not
    supported", never as invalid)."""

    def line(self) -> str:
        text = f"{self.where()}: not supported: {self.problem}"
        if self.expected:
            text += f"; {self.expected}"
        return capped(text)


class ExerciseUndecided(ExerciseNotSupported):
    """A quantity whose value needs a sign derive could not decide within its bounds: `check`
    reports the exercise `undecided` with this reason; where a value must be written (a key,
    an export) it is refused as not supported."""


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""
