"""Invalid exercise files: one line naming the file, the exercise, the key, what is wrong and
what would be right."""

from __future__ import annotations

import difflib


class ExerciseError(Exception):
    """Invalid input in an exercise file (exit 2)."""

    def __init__(self, path: str, exercise: str | None, key: str | None, problem: str,
                 expected: str = ""):
        self.path, self.exercise, self.key = path, exercise, key
        self.problem, self.expected = problem, expected
        super().__init__(self.line())

    def line(self) -> str:
        where = [self.path]
        if self.exercise:
            where.append(f"exercise {self.exercise!r}")
        if self.key:
            where.append(f"key {self.key!r}")
        text = f"{': '.join(where)}: {self.problem}"
        if self.expected:
            text += f"; {self.expected}"
        return " ".join(text.split())


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""
