"""Exercises: untrusted TOML files, their claims, and the diagnosis of wrong claims."""

from derive.exercises.bank import load
from derive.exercises.check import Report, answer_key, check_exercise
from derive.exercises.errors import ExerciseError
from derive.exercises.schema import Exercise

__all__ = ["Exercise", "ExerciseError", "Report", "answer_key",
           "check_exercise", "load"]
