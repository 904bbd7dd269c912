"""A pytest plugin (opt-in) that checks an exercise bank: each exercise of every *.toml file
is a test item, and a failing one shows the check report with its diagnosis. Each
[[statement]] table of those files is a test item too, proved as `derive prove FILE` proves
it: it fails unless it gets its expected verdict.

Enable it with `pytest --derive-exercises exercises/`, or once for a bank with
`derive_exercises = true` under [tool.pytest.ini_options] (or [pytest] in pytest.ini); then
`pytest exercises/ --junitxml=report.xml` works in any CI.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_addoption(parser):
    group = parser.getgroup("derive", "derive exercise banks")
    group.addoption("--derive-exercises", action="store_true", default=False,
                    help="collect the exercises of *.toml files as tests (derive check)")
    parser.addini("derive_exercises", type="bool", default=False,
                  help="collect the exercises of *.toml files as tests (derive check)")


def _enabled(config) -> bool:
    return bool(config.getoption("derive_exercises") or config.getini("derive_exercises"))


NOT_EXERCISES = {"pyproject.toml", "Cargo.toml", "poetry.lock", "uv.lock", "ruff.toml",
                 ".ruff.toml", "mypy.toml", "pixi.toml", "rust-toolchain.toml"}


def _is_exercise_file(path: Path) -> bool:
    """A *.toml file that is not a known tool's configuration (pyproject.toml, …): as for
    `derive check FOLDER`, every other one is an exercise file, and fails if it is not one."""
    return path.suffix == ".toml" and path.name not in NOT_EXERCISES


def pytest_collect_file(file_path: Path, parent):
    if _enabled(parent.config) and _is_exercise_file(file_path):
        return ExerciseFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(session, config, items):
    """An id used by two exercises anywhere in the bank fails the later one."""
    seen: dict[str, Path] = {}
    for item in items:
        if isinstance(item, ExerciseItem):
            first = seen.setdefault(item.exercise.id, item.path)
            if first != item.path:
                item.duplicate_of = first


class ExerciseFile(pytest.File):
    """An exercise file: one item per exercise, or one failing item if the file is invalid."""

    def collect(self):
        # the plugin loads in every pytest run: derive only once an exercise file is collected
        from derive.errors import DeriveError
        from derive.exercises.bank import load_file
        from derive.exercises.reader import read_toml
        from derive.exercises.statement_files import has_statements
        from derive.exercises.statements import statements_of

        try:
            doc = read_toml(self.path)
            if has_statements(doc):
                for statement in statements_of(doc, str(self.path)):
                    yield StatementItem.from_parent(self, name=statement.id,
                                                    statement=statement)
                if "exercise" not in doc:
                    return
            exercises = load_file(self.path)
        except DeriveError as exc:
            yield InvalidFile.from_parent(self, name="invalid", message=exc.line())
            return
        except (RecursionError, MemoryError, ValueError) as exc:
            yield InvalidFile.from_parent(self, name="invalid",
                                          message=f"{self.path}: cannot be read ({exc})")
            return
        for ex in exercises:
            yield ExerciseItem.from_parent(self, name=ex.id, exercise=ex)


class ExerciseFailure(Exception):
    """An exercise with a wrong claim; carries the report."""


class ExerciseItem(pytest.Item):
    def __init__(self, *, exercise, **kw):
        super().__init__(**kw)
        self.exercise = exercise
        self.report = None
        self.duplicate_of = None

    def runtest(self):
        # the plugin loads in every pytest run: derive only once an exercise file is collected
        from derive.exercises import check_exercise

        if self.duplicate_of is not None:
            raise ExerciseFailure(f"{self.path}: exercise {self.exercise.id!r}: key 'id': is "
                                  f"also the id of an exercise in {self.duplicate_of}; give "
                                  f"every exercise its own id")
        self.report = check_exercise(self.exercise)
        if not self.report.ok:
            raise ExerciseFailure(self.exercise.id)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExerciseFailure):
            if self.report is None:
                return str(excinfo.value)
            # the plugin loads in every pytest run: derive only once an exercise file is collected
            from derive.render.keys import check_text

            return check_text([self.report])
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"exercise {self.exercise.id} ({self.exercise.recipe.name})"


class StatementFailure(Exception):
    """A statement that did not get its expected verdict."""


class StatementItem(pytest.Item):
    """A [[statement]] table: passes when `derive prove` gives it its expected verdict."""

    def __init__(self, *, statement, **kw):
        super().__init__(**kw)
        self.statement = statement
        self.outcome = None

    def runtest(self):
        # the plugin loads in every pytest run: derive only once an exercise file is collected
        from derive.statements import prove

        self.outcome = prove(self.statement)
        if not self.outcome.ok:
            raise StatementFailure(self.statement.id)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StatementFailure) and self.outcome is not None:
            # the plugin loads in every pytest run: derive only once an exercise file is collected
            from derive.cli.prove import text_report

            return text_report([self.outcome])
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"statement {self.statement.id} ({self.statement.expect.value})"


class InvalidFile(pytest.Item):
    def __init__(self, *, message, **kw):
        super().__init__(**kw)
        self.message = message

    def runtest(self):
        raise ExerciseFailure(self.message)

    def repr_failure(self, excinfo, style=None):
        return self.message

    def reportinfo(self):
        return self.path, None, "invalid exercise file"
