"""Exercises: untrusted TOML files, their claims, and the diagnosis of wrong claims.

The names below are loaded when first used (PEP 562): importing a light module of this package
(the reader, the bank's file walk) does not load SymPy, so that a file that cannot be read is
refused before it is.
"""

__all__ = ["Exercise", "ExerciseError", "Report", "answer_key",
           "check_exercise", "load"]


def __getattr__(name: str):
    if name == "load":
        from derive.exercises.bank import load  # start-up: light, SymPy when a file is valid
        return load
    if name in ("Report", "answer_key", "check_exercise"):
        from derive.exercises import check  # start-up: SymPy when first used
        return getattr(check, name)
    if name == "ExerciseError":
        from derive.exercises.errors import ExerciseError  # start-up: light
        return ExerciseError
    if name == "Exercise":
        from derive.exercises.schema import Exercise  # start-up: SymPy when first used
        return Exercise
    raise AttributeError(f"module 'derive.exercises' has no attribute {name!r}")
