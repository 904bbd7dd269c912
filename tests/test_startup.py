"""A quick start (issue 33): `derive --help`, `derive --version` and the refusal of a file that
cannot be read or is not an exercise file's TOML load no SymPy; a Ctrl-C while derive's own
modules are imported gives one line and exit 130, never a traceback.

Each run is a child process running derive's entry (what the console script runs); it says on
its last line of stderr which of SymPy and mpmath it imported. No timing decides anything here
(benchmarks/startup.py measures the times)."""

from __future__ import annotations

import re
import subprocess
import tomllib

import interrupt_runs as ir
import pytest

_PROBE = """
import sys
try:
    from derive.cli.entry import run
    run()
finally:
    heavy = sorted(m for m in ("sympy", "mpmath") if m in sys.modules)
    sys.stderr.write("loaded " + ",".join(heavy) + "\\n")
"""


def _probe(argv: list[str], cwd) -> tuple[int, str, list[str], str]:
    """(exit code, stdout, stderr's lines but the probe's, the heavy modules loaded)."""
    done = subprocess.run([ir.PYTHON, "-c", _PROBE, *argv], capture_output=True, text=True,
                          env=ir._env(), cwd=cwd, timeout=300)
    *lines, loaded = done.stderr.splitlines()
    assert loaded.startswith("loaded "), done.stderr
    return done.returncode, done.stdout, lines, loaded.removeprefix("loaded ")


def test_help_loads_no_sympy(tmp_path):
    rc, out, err, loaded = _probe(["--help"], tmp_path)
    assert (rc, err, loaded) == (0, [], "")
    assert out.startswith("usage: derive")
    for command in ("prove", "check", "key", "export", "variants", "recipes", "ledger", "build"):
        assert f"\n    {command} " in out


def test_version_is_the_package_metadata_and_loads_no_sympy(tmp_path):
    with open(ir.ROOT / "pyproject.toml", "rb") as fh:
        version = tomllib.load(fh)["project"]["version"]
    rc, out, err, loaded = _probe(["--version"], tmp_path)
    assert (rc, out, err, loaded) == (0, f"derive {version}\n", [], "")


def _files(folder):
    (folder / "empty").mkdir()
    (folder / "empty" / "notes.txt").write_text("no exercise here\n", encoding="utf-8")
    (folder / "latin1.toml").write_bytes('title = "Übung"\n'.encode("latin-1"))
    (folder / "syntax.toml").write_text("[[exercise]]\nid = \"a\"\nlr = 0.1 0.2\n",
                                        encoding="utf-8")
    (folder / "unknown.toml").write_text("[[exercise]]\nid = \"a\"\nlr = 0.1\n\n[exercize]\n"
                                         "x = 1.5\n", encoding="utf-8")


# what each bad file is, and the words of its refusal (as docs/exercises.md states them)
REFUSALS = {
    "missing.toml": "missing.toml: does not exist; name an exercise file or folder",
    "empty": "empty: is a folder with no *.toml file; name a folder that holds exercise files",
    "latin1.toml": "latin1.toml: is not UTF-8 (byte 9); save the file as UTF-8",
    "syntax.toml": "syntax.toml: is not valid TOML: Expected newline or end of document after "
                   "a statement (at line 3, column 10); see docs/exercises.md for the format",
    "unknown.toml": "unknown.toml: key 'exercize': is not a top-level key of an exercise file; "
                    "did you mean 'exercise'?",
}


@pytest.mark.parametrize("command, name", [("check", name) for name in sorted(REFUSALS)] + [
    ("key", "syntax.toml"), ("variants", "syntax.toml"),
    ("key", "unknown.toml"), ("variants", "missing.toml")])
def test_a_file_that_is_not_an_exercise_file_is_refused_before_sympy(command, name, tmp_path):
    """Each refusal through check; key and variants share its reading (export looks at the
    statements' ids first, which loads SymPy)."""
    _files(tmp_path)
    argv = [command, name] + (["-n", "2"] if command == "variants" else [])
    rc, out, err, loaded = _probe(argv, tmp_path)
    assert (rc, out, err, loaded) == (2, "", [f"derive {command}: {REFUSALS[name]}"], "")


def test_a_valid_file_still_reads_its_numbers_exactly(tmp_path):
    """The reading that leaves floats as written for later still gives exact values: the claim
    0.1 + 0.2 = 0.3, false in binary floating point, holds."""
    (tmp_path / "ok.toml").write_text(
        '[[exercise]]\nid = "sum"\nrecipe = "formulas"\n[exercise.given]\na = 0.1\nb = 0.2\n'
        '[exercise.define]\ns = "a + b"\n[exercise.claims]\ns = 0.3\n', encoding="utf-8")
    rc, out, err, loaded = _probe(["check", "ok.toml"], tmp_path)
    assert (rc, err) == (0, []), out
    assert loaded == "mpmath,sympy"


_CTRL_C_IN_IMPORT = """
import signal, sys
class _CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            signal.raise_signal(signal.SIGINT)  # Ctrl-C, the instant this module is imported
        return None
sys.meta_path.insert(0, _CtrlC())
from derive.cli.entry import run
run()
"""


@pytest.mark.parametrize("module", ["derive.interrupt", "derive.cli.main", "sympy"])
def test_ctrl_c_while_derive_is_imported_is_one_line(module, tmp_path):
    """Before derive's handler is in place (derive.interrupt, imported by the console script's
    own import of the entry), and after it (the command line, SymPy): exit 130, one line."""
    done = subprocess.run([ir.PYTHON, "-c", _CTRL_C_IN_IMPORT.format(module=module), "check",
                           str(ir.GOOD)], capture_output=True, text=True, env=ir._env(),
                          cwd=tmp_path, timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (
        130, "", "derive check: interrupted (Ctrl-C); no file was written\n")


def _no_times(text: str) -> str:
    return re.sub(r"\d+\.\d\ds ", "T ", text)


def test_prove_again_is_read_from_the_cache_without_sympy(own_cache, tmp_path):
    """`derive prove` of statements of proofs/ decided as expected is kept in the cache: the same
    run again prints the same bytes and loads no SymPy; --no-cache proves again (the same table
    but for the times); another format is another entry; nothing kept under --no-cache."""
    first = _probe(["prove", "sgd-step", "A1"], tmp_path)
    assert first[0] == 0 and first[3] == "mpmath,sympy", first
    again = _probe(["prove", "sgd-step", "A1"], tmp_path)
    assert again == (0, first[1], [], "")
    fresh = _probe(["prove", "sgd-step", "A1", "--no-cache"], tmp_path)
    assert (fresh[0], _no_times(fresh[1]), fresh[3]) == (0, _no_times(first[1]), "mpmath,sympy")
    assert _probe(["prove", "sgd-step", "--format", "json"], tmp_path)[3] == "mpmath,sympy"
    entries = sorted(p for p in own_cache.rglob("*.t"))
    assert len(entries) == 2
    _probe(["prove", "A1", "--no-cache"], tmp_path)
    assert sorted(p for p in own_cache.rglob("*.t")) == entries


def test_prove_not_as_expected_is_not_kept(own_cache, tmp_path):
    """A statement of a file is proved again every time (only proofs/ is addressed); an
    unknown id is refused, and nothing is kept."""
    rc, out, err, loaded = _probe(["prove", "no-such-statement"], tmp_path)
    assert rc == 2 and "no statement 'no-such-statement'" in err[0]
    assert not list(own_cache.rglob("*.t"))


# issue 33 (S1): what export, build and prove refuse before anything is proved, as words of
# their own refusals (docs/exercises.md, docs/cli.md)
S1 = [
    (["export", "missing.toml"], "missing.toml: does not exist; name an exercise file or folder"),
    (["export", "syntax.toml"], REFUSALS["syntax.toml"]),
    (["export", "latin1.toml"], REFUSALS["latin1.toml"]),
    (["build", "empty", "-o", "site"], REFUSALS["empty"]),
    (["prove", "syntax.toml"], REFUSALS["syntax.toml"]),
    (["prove", "latin1.toml"], REFUSALS["latin1.toml"]),
    (["prove", "empty/"], "empty/: is a folder with no *.toml file; name a folder that holds "
                          "exercise files"),
    (["prove", "A1", "missing.toml"], "missing.toml: does not exist; name a file of "
     "[[statement]] tables (FILE.toml), or a statement id of proofs/ (`derive prove` lists "
     "them)"),
]


@pytest.mark.parametrize("argv, said", S1, ids=[" ".join(a) for a, _ in S1])
def test_export_build_and_prove_refuse_a_bad_file_before_sympy(argv, said, tmp_path):
    _files(tmp_path)
    rc, out, err, loaded = _probe(argv, tmp_path)
    assert (rc, out, err, loaded) == (2, "", [f"derive {argv[0]}: {said}"], "")
    assert not (tmp_path / "site").exists()


# issue 33 (S2): an exercise table refused for what needs no numbers, before SymPy loads; the
# words are those of docs/exercises.md
_ONE = '[[exercise]]\nid = "a"\ntitle = "t"\nrecipe = "formulas"\n[exercise.given]\nw = 0.5\n' \
       '[exercise.define]\nv = "w"\n[exercise.claims]\nv = 0.5\n'
S2 = {
    "recipe.toml": (_ONE.replace('"formulas"', '"formula"'), "exercise 'a': key 'recipe': is "
                    "\"formula\"; did you mean 'formulas'?"),
    "key.toml": (_ONE.replace('title = "t"', 'titel = "t"'), "exercise 'a': key 'titel': is not "
                 "an exercise key; did you mean 'title'?"),
    "noid.toml": (_ONE.replace('id = "a"\n', ''), "exercise '#1': key 'id': is missing; give "
                  "each exercise an id of letters, digits, '-', '_' or '.', such as "
                  "\"lesson03-ex1\""),
    "dup.toml": (_ONE + _ONE.replace("w = 0.5", "w = 1e999"), "exercise 'a': key 'id': is also "
                 "the id of an exercise in dup.toml; give every exercise its own id"),
    "title.toml": (_ONE.replace('"t"', "0.5"), "exercise 'a': key 'title': is a number; write "
                   "the title as text"),
}


@pytest.mark.parametrize("name", sorted(S2))
def test_an_exercise_refused_without_numbers_loads_no_sympy(name, tmp_path):
    text, said = S2[name]
    (tmp_path / name).write_text(text, encoding="utf-8")
    rc, out, err, loaded = _probe(["check", name], tmp_path)
    assert (rc, out, err, loaded) == (2, "", [f"derive check: {name}: {said}"], "")


def test_the_light_recipe_names_are_the_recipes():
    from derive.ids import RECIPE_NAMES
    from derive.recipes import RECIPES

    assert RECIPE_NAMES == tuple(r.name for r in RECIPES.values())


_CTRL_C_AT_FIRST_IMPORT = """
import signal, sys
raise_signal, SIGINT = signal.raise_signal, signal.SIGINT
del sys.modules["signal"]  # imported again by the entry's first statements
class _CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "signal":
            sys.meta_path.remove(self)
            raise_signal(SIGINT)  # Ctrl-C, the instant the entry imports its first module
        return None
sys.meta_path.insert(0, _CtrlC())
from derive.cli.entry import run
run()
"""


def test_ctrl_c_at_the_entrys_first_statement_is_one_line(tmp_path):
    """From the entry module's first statement on (issue 33, S3): one line, exit 130 (the
    command is not yet read: `derive`)."""
    done = subprocess.run([ir.PYTHON, "-c", _CTRL_C_AT_FIRST_IMPORT, "check", str(ir.GOOD)],
                          capture_output=True, text=True, env=ir._env(), cwd=tmp_path,
                          timeout=300)
    assert (done.returncode, done.stdout, done.stderr) == (
        130, "", "derive: interrupted (Ctrl-C); no file was written\n")


def test_the_packages_the_console_script_imports_first_import_nothing(tmp_path):
    """What runs before the entry's guard (derive/__init__.py, derive/cli/__init__.py) imports
    no module and installs no handler; importing the entry installs none either (the program's
    run() does)."""
    probe = ("import signal, sys\nbefore = set(sys.modules)\nimport derive.cli\n"
             "print(sorted(set(sys.modules) - before))\nimport derive.cli.entry\n"
             "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n")
    done = subprocess.run([ir.PYTHON, "-c", probe], capture_output=True, text=True,
                          env=ir._env(), cwd=tmp_path, timeout=300)
    assert done.stdout.splitlines() == ["['derive', 'derive.cli']", "True"], done.stderr
