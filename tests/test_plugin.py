"""The opt-in pytest plugin: an exercise bank checked by plain pytest."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]


def _bank(pytester):
    pytester.makefile(".toml", good=(ROOT / "proofs" / "course" / "lesson03.toml").read_text(
        encoding="utf-8"))
    pytester.makefile(".toml", wrong=(ROOT / "tests" / "data" / "mistakes.toml").read_text(
        encoding="utf-8"))


def test_off_by_default(pytester):
    _bank(pytester)
    result = pytester.runpytest_subprocess("good.toml", "wrong.toml")
    assert result.ret != 0  # nothing collected from the TOML files
    result.stdout.fnmatch_lines(["*no tests ran*"])


def test_collects_each_exercise_and_shows_the_diagnosis(pytester):
    _bank(pytester)
    result = pytester.runpytest_subprocess("--derive-exercises", "good.toml", "wrong.toml",
                                           "--junitxml=report.xml")
    result.assert_outcomes(passed=4, failed=10)
    result.stdout.fnmatch_lines(["*mistake-mean-of-means*",
                                 "*gradient*5.75*wrong*mean_of_means: the 1/K mistake*"])
    assert "mistake-sign" in (pytester.path / "report.xml").read_text()


def test_ini_setting_enables_plain_pytest(pytester):
    _bank(pytester)
    pytester.makeini("[pytest]\nderive_exercises = true\n")
    result = pytester.runpytest_subprocess("good.toml")
    result.assert_outcomes(passed=4)


def test_invalid_file_is_one_failing_item(pytester):
    pytester.makefile(".toml", bad='[[exercise]]\nid = "x"\nrecipe = "nope"\n')
    result = pytester.runpytest_subprocess("--derive-exercises", "bad.toml")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*key \'recipe\': is "nope"*'])


def test_duplicate_ids_across_files_fail_and_tool_files_are_not_collected(pytester):
    one = '[[exercise]]\nid = "same"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.1\n' \
          'records = [[2, 4]]\n'
    pytester.makefile(".toml", a=one, b=one)
    pytester.makefile(".toml", pyproject='[project]\nname = "x"\n')
    pytester.makefile(".toml", notes='title = "not an exercise file"\n')
    pytester.makefile(".toml", bad='[[exercise]]\nid = "x"\nrecipe = "nope"\n')
    result = pytester.runpytest_subprocess("--derive-exercises", ".")
    # a.toml passes; b.toml (duplicate id), bad.toml and notes.toml (no [[exercise]]) fail
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(["*also the id of an exercise in*a.toml*"])


def test_collects_each_statement_of_a_statement_file(pytester):
    """[[statement]] tables are items proved as `derive prove FILE` proves them: the bundled
    A2 and mean-of-means pass; one expecting the wrong verdict fails with the prove table."""
    example = (ROOT / "docs" / "examples" / "statements.toml").read_text(encoding="utf-8")
    wrong = example.replace('id = "a2-line1-toml"', 'id = "a2-line1-wrong"').replace(
        'expect = "proved"', 'expect = "refuted"', 1)
    pytester.makefile(".toml", statements=example, wrong=wrong)
    mixed = example.replace("-toml\"", "-mixed\"") + "\n" + (
        ROOT / "proofs" / "course" / "lesson03.toml").read_text(encoding="utf-8")
    pytester.makefile(".toml", mixed=mixed)
    result = pytester.runpytest_subprocess("--derive-exercises", "statements.toml", "wrong.toml",
                                           "mixed.toml")
    result.assert_outcomes(passed=3 + 2 + 3 + 4, failed=1)
    result.stdout.fnmatch_lines(["*expected refuted, got proved*"])


def test_an_invalid_statement_file_is_one_failing_item(pytester):
    pytester.makefile(".toml", bad='[[statement]]\nid = "x"\ntitle = "t"\nexpect = "maybe"\n')
    result = pytester.runpytest_subprocess("--derive-exercises", "bad.toml")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*statement 'x': key 'expect': is \"maybe\"*"])
