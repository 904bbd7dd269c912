"""Issue 33, messages, settings and leaks: a value the command line accepts is accepted the same
way in derive.toml's `[build]` (one reader); every refusal is one short line naming the file, the
key, what is wrong and what would be right, never a Python repr; no absolute path the user did
not write and no raw control character reaches an output (the index page, the terminal).

Then the hostile campaign on the same surfaces (CAMPAIGN): derive.toml settings of every type,
`[notation]`, declared mistakes, author strings with control, bidirectional and separator
characters, huge numbers, names of files, exercises, keys and outputs. Each case states its exit
code and what its one line must say; every line of every case is checked for the common
properties (`_common`)."""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.cli import settings
from derive.cli.main import build_parser, main
from derive.errors import InputError, UsageError

MAX_MESSAGE = 300
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                 "\u2066-\u2069]")
"""A control, bidirectional or separator character shown raw (a line's own \\n excepted)."""
REPRS = ("Written(", "BadNumber(", "Fraction(", "Rational(", "Decimal(", "datetime.", "Integer(",
         "Float(", "Path(", "PosixPath(")

OK = """[[exercise]]
id = "ex1"
recipe = "sgd_step"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
[exercise.claims]
w_new = 1.4
"""
MISTAKE = """[[exercise]]
id = "two-params"
recipe = "formulas"
[exercise.given]
w = 1
b = 0
records = [[1, 2], [3, 5]]
[exercise.define]
yhat = "w*x_i + b"
gb = "mean_i(2*(yhat_i - y_i))"
[exercise.claims]
gb = -7
[[exercise.mistakes]]
{body}
"""
RMSPROP = """[[exercise]]
id = "rms"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.1
records = [[1, {y}]]
optimizer = {{ name = "rmsprop", alpha = {alpha}, eps = 0, centered = {centered} }}
steps = 1
[exercise.claims]
w_steps = [1]
"""


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own usage errors
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def bank(folder: Path, toml: str | None = None, files: dict | None = None) -> Path:
    b = folder / "bank"
    b.mkdir()
    for name, text in (files or {"a.toml": OK}).items():
        (b / name).write_text(text, encoding="utf-8")
    if toml is not None:
        (b / "derive.toml").write_text(toml, encoding="utf-8")
    return b


# ------------------------------------------------------------ one reader for both places

def _options(tmp_path: Path, toml: str | None = None, **flags):
    b = tmp_path / "bank"
    if not b.exists():
        bank(tmp_path)
    (b / "derive.toml").unlink(missing_ok=True)
    if toml is not None:
        (b / "derive.toml").write_text(toml, encoding="utf-8")
    argv = ["build", str(b), "-o", str(tmp_path / "site")]
    argv += [f"--{k.replace('_', '-')}={v}" for k, v in flags.items()]
    try:  # the command line as derive reads it
        args = build_parser().parse_args(argv)
    except SystemExit:
        raise UsageError("argparse refused it") from None
    return settings.options(args)


@pytest.mark.parametrize("text, seconds", [
    ("30.5", 30.5), ("1e3", 1000.0), ("1_000", 1000.0), ("0.25", 0.25), ("2E1", 20.0),
    ("1000000000", 1e9), (".5", 0.5), ("7.", 7.0),
])
def test_time_limit_read_the_same_in_both_places(tmp_path, text, seconds):
    """The values the command line takes (`--time-limit 30.5`, `1e3`) are taken in derive.toml,
    as a TOML number and as text (issue 33: they were refused there with a Written repr)."""
    assert _options(tmp_path, time_limit=text).time_limit == seconds
    assert _options(tmp_path, f'[build]\ntime-limit = "{text}"\n').time_limit == seconds
    if not text.startswith(".") and not text.endswith("."):  # TOML has no `.5` nor `7.`
        assert _options(tmp_path, f"[build]\ntime-limit = {text}\n").time_limit == seconds
        assert _options(tmp_path, f"[build]\ntotal-time-limit = {text}\n").total_time_limit \
            == seconds


def _verdict(tmp: Path, attr: str, toml: str | None = None, **flags):
    try:
        return ("ok", getattr(_options(tmp, toml, **flags), attr))
    except (InputError, UsageError) as exc:
        return ("refused", exc.line())


@given(st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=3).map(str),
    st.integers(-10**12, 10**12).map(str),
    st.from_regex(r"[+-]?[0-9]{1,3}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?", fullmatch=True),
    st.sampled_from(["inf", "-inf", "nan", "0x10", "1/2", "", " ", "1e", "e3", "1..2"])))
def test_the_command_line_and_derive_toml_agree(tmp_path_factory, text):
    """Whatever a number's text, `--jobs`/`--time-limit TEXT` and `jobs`/`time-limit = "TEXT"`
    are both accepted with the same value, or both refused; a refusal says what is wrong and
    what would be right, and never shows a Python repr. The value accepted is the exact one
    (a Fraction of the text), never one a float read decided."""
    tmp = tmp_path_factory.mktemp("agree")
    toml = text.replace("\\", "\\\\").replace('"', '\\"')
    for flag, key, attr in (("jobs", "jobs", "jobs"), ("time_limit", "time-limit",
                                                        "time_limit")):
        cli = _verdict(tmp, attr, **{flag: text})
        file = _verdict(tmp, attr, f'[build]\n{key} = "{toml}"\n')
        assert cli[0] == file[0], (cli, file)
        if cli[0] == "ok":
            assert cli[1] == file[1]
        else:
            assert f"key 'build.{key}'" in file[1] and "give " in file[1]
            assert not any(r in cli[1] + file[1] for r in REPRS)
        if cli[0] == "ok" and attr == "time_limit":
            assert 0 < Fraction(text.strip().replace("_", "")) <= 10**9


def test_huge_settings_are_one_short_line(tmp_path):
    """A 10,000-digit setting showed `BadNumber(text=…)`, a 5,000-digit jobs a 414-character
    line (issue 33)."""
    b = bank(tmp_path)
    for toml, says in (("[build]\ntime-limit = " + "9" * 10_000 + ".5\n", "10,002 characters"),
                       ("[build]\njobs = " + "9" * 5_000 + "\n", "of about 5,000 digits"),
                       ("[build]\ntime-limit = " + "9" * 10_000 + "\n", "digits")):
        (b / "derive.toml").write_text(toml, encoding="utf-8")
        code, out, err = run("build", b, "-o", tmp_path / "site")
        assert code == 2 and err.count("\n") == 1 and len(err) < MAX_MESSAGE, err
        assert "key 'build." in err and says in err and "give " in err
        assert not any(r in err for r in REPRS)
    code, out, err = run("build", b, "-o", tmp_path / "site", "--jobs", "9" * 5_000)
    assert code == 2 and err.count("\n") == 1 and len(err) < MAX_MESSAGE, err


# ------------------------------------------------------------------------------- leaks

def test_notation_error_in_the_index_is_the_path_as_named(tmp_path, monkeypatch):
    """A `[notation]` error of the bank's derive.toml showed its absolute path in the published
    index page (and in `derive check`): the path is the one the user named."""
    monkeypatch.chdir(tmp_path)
    b = bank(tmp_path, '[notation]\nlrr = "\\\\alpha"\n')
    (b / "sub").mkdir()
    (b / "sub" / "b.toml").write_text(OK.replace("ex1", "ex2"), encoding="utf-8")
    code, out, err = run("build", "bank", "-o", "site", "--only", "check", "--lang", "en")
    assert code == 2
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in index and "bank/derive.toml: key &#x27;notation.lrr&#x27;" \
        in index
    code, out, err = run("check", "bank")
    assert code == 2 and str(tmp_path) not in err and ": bank/derive.toml: key" in err, err
    monkeypatch.chdir(b / "sub")  # the settings of the folder named, from below it
    code, out, err = run("check", "..")
    assert code == 2 and str(tmp_path) not in err and ": ../derive.toml: key" in err, err
    code, out, err = run("check", str(b))  # an absolute path when the user writes one
    assert code == 2 and f": {b}/derive.toml: key" in err, err


def test_the_site_name_is_printed_escaped(tmp_path, monkeypatch):
    """`derive build -o NAME` printed NAME raw on the terminal (ESC, a newline)."""
    monkeypatch.chdir(tmp_path)
    bank(tmp_path)
    code, out, err = run("build", "bank", "-o", "s\x1b[31mX\nY", "--only", "check",
                         "--lang", "en")
    assert code == 0, err
    assert out == ("built s\\x1b[31mX\\x0aY: 1 exercise(s) (1 ok), 0 invalid file(s); "
                   "1 computed, 0 from the cache\n")


def test_a_warning_names_its_file_escaped(tmp_path):
    """`derive check`'s warnings printed the file's path raw on the terminal."""
    body = ('name = "same_as_right"\nen = "a"\nzh = "b"\ngiven = { w = "1" }')
    f = tmp_path / "e\x1b[2Jvil.toml"
    f.write_text(MISTAKE.format(body=body), encoding="utf-8")
    code, out, err = run("check", f)
    assert "warning: " in err and "\x1b" not in err and "e\\x1b[2Jvil.toml" in err, err


HOSTILE_TITLE = "a\u2028b\u202ec\u0085d\x1be\x7f"


@pytest.mark.parametrize("argv", [["check", "--format", "json"], ["key", "--format", "json"]])
def test_json_on_the_terminal_is_json(tmp_path, argv):
    """JSON printed on stdout went through the terminal escaping, which wrote a title's U+0085
    as `\\x85`: not JSON (json.loads failed). Every control, separator and bidirectional
    character is a JSON escape, and the data reads back whole."""
    f = tmp_path / "t.toml"
    title = HOSTILE_TITLE.translate({ord(c): f"\\u{ord(c):04x}" for c in HOSTILE_TITLE
                                     if not c.isalpha()})
    f.write_text(OK.replace('id = "ex1"', f'id = "ex1"\ntitle = "{title}"'), encoding="utf-8")
    code, out, err = run(argv[0], f, *argv[1:])
    assert code == 0, err
    assert json.loads(out)["exercises"][0]["title"] == HOSTILE_TITLE
    assert not RAW.search(out.replace("\n", ""))


def test_the_text_report_escapes_a_line_separator(tmp_path):
    """U+2028 and U+2029 in a title reached the terminal raw (the terminal escaping left them
    out)."""
    f = tmp_path / "t.toml"
    f.write_text(OK.replace('id = "ex1"', 'id = "ex1"\ntitle = "a\\u2028b\\u2029c"'),
                 encoding="utf-8")
    code, out, err = run("check", f)
    assert code == 0 and "a\\u2028b\\u2029c" in out and not RAW.search(out.replace("\n", ""))


# ---------------------------------------------------------------- declared mistakes

@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\u0085", "\u202e", "\x1b"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_declared_words_refuse_separators(tmp_path, char, lang):
    """U+2028 and U+2029 (line and paragraph separators, not category C) were accepted in a
    declared mistake's words; they are refused like a line break, naming the key."""
    words = {"en": "a", "zh": "b"}
    words[lang] = f"left{char}right"
    esc = {ord(char): f"\\u{ord(char):04x}"}
    body = (f'name = "m1"\nen = "{words["en"].translate(esc) if lang == "en" else "a"}"\n'
            f'zh = "{words["zh"].translate(esc) if lang == "zh" else "b"}"\n'
            'given = { w = "2" }')
    f = tmp_path / "m.toml"
    f.write_text(MISTAKE.format(body=body), encoding="utf-8")
    code, out, err = run("check", f)
    assert code == 2 and err.count("\n") == 1, err
    assert f"key 'mistakes[0].{lang}'" in err and f"U+{ord(char):04X}" in err
    assert "one line of text" in err and not RAW.search(err.rstrip("\n"))


# ------------------------------------------------------------------------- RMSprop

@pytest.mark.parametrize("alpha, centered, y", [
    ("0", "true", "1.5"),     # gradient −0.5: v − a² = 0.25 − 0.25 = 0, torch inf
    ("0", "true", "1"),       # gradient 0: 0/0, torch nan
    ("1", "false", "1.5"),    # α = 1: v stays 0, torch inf
    ("1", "true", "0.5"),     # α = 1 centered: v = a = 0, torch −inf
    ("0.5", "false", "1"),    # gradient 0: v = 0, 0/0, torch nan
    ("0.5", "true", "1"),     # gradient 0 centered: 0/0, torch nan
])
def test_rmsprop_zero_denominator_says_what_torch_gives(tmp_path, monkeypatch, alpha, centered,
                                                        y):
    """Centered RMSprop with α = 0 and eps = 0 blamed "every gradient so far 0" (torch's nan)
    for a gradient of −0.5, where torch gives inf. The refusal's words are checked against
    torch in float64: it names ±inf only if torch can give it, nan only as torch does."""
    torch = pytest.importorskip("torch")
    w = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
    opt = torch.optim.RMSprop([w], lr=0.1, alpha=float(alpha), eps=0.0,
                              centered=centered == "true")
    w.grad = torch.tensor([1.0 - float(y)], dtype=torch.float64)  # (w·x − y)·x, x = 1
    opt.step()
    got = w.item()
    monkeypatch.chdir(tmp_path)
    Path("rms.toml").write_text(RMSPROP.format(alpha=alpha, centered=centered, y=y),
                                encoding="utf-8")
    code, out, err = run("check", "rms.toml")
    assert code == 2 and err.count("\n") == 1 and len(err) < MAX_MESSAGE, err
    assert "key 'given.optimizer.eps'" in err
    if got != got:  # torch: nan
        assert "nan" in err
    else:
        assert got in (float("inf"), float("-inf"))
        assert "±inf" in err and "every gradient so far 0" not in err, err


# -------------------------------------------------------------------------- campaign

@dataclass
class Case:
    id: str
    argv: tuple
    code: int
    says: tuple[str, ...] = ()
    """What the case's one line (stderr; stdout when it exits 0) must hold."""
    toml: str | None = None
    files: dict = field(default_factory=lambda: {"a.toml": OK})
    never: tuple[str, ...] = ()


BUILD = ("build", "bank", "-o", "site", "--only", "check", "--lang", "en", "--jobs", "1")
LONG = "9" * 10_000
B = "[build]\n"


def _b(key: str, value: str, code: int = 2, *says: str, id: str = "") -> Case:
    return Case(id or f"build.{key}={value[:20]}", BUILD, code,
                (f"key 'build.{key}'", *says) if code == 2 else says, B + f"{key} = {value}\n")


def _m(body: str, key: str, *says: str, id: str) -> Case:
    return Case(id, ("check", "bank/m.toml"), 2, (f"key '{key}'", *says),
                files={"m.toml": MISTAKE.format(body=body)})


MB = 'name = "m1"\nen = "a"\nzh = "b"\n'
CAMPAIGN = [
    # [build], every type and size, each key
    _b("time-limit", "30.5", 0, "1 ok"),
    _b("time-limit", "1e3", 0, "1 ok"),
    _b("time-limit", '"2.5"', 0, "1 ok"),
    _b("total-time-limit", "1_000", 0, "1 ok"),
    _b("jobs", "2.0", 0, "1 ok"),
    _b("jobs", '"1"', 0, "1 ok"),
    _b("time-limit", "inf", 2, "is 'inf', not a number that is finite", "give a number"),
    _b("time-limit", "-inf", 2, "not a number that is finite"),
    _b("total-time-limit", "nan", 2, "not a number that is finite"),
    _b("time-limit", "0", 2, "is 0, not > 0"),
    _b("time-limit", "-0.0", 2, "not > 0"),
    _b("time-limit", "1e400", 2, "is 1e400, more than 1,000,000,000"),
    _b("time-limit", "1000000000.000001", 2, "more than 1,000,000,000"),
    _b("time-limit", LONG + ".5", 2, "10,002 characters", id="time-limit-10000-digits"),
    _b("total-time-limit", LONG, 2, "digits", id="total-time-limit-10000-digit-int"),
    _b("jobs", "9" * 5000, 2, "of about 5,000 digits", id="jobs-5000-digits"),
    _b("jobs", "1.5", 2, "is 1.5", "whole number of workers from 1 to 256"),
    _b("jobs", "0", 2, "is 0;"),
    _b("jobs", "257", 2, "is 257;"),
    _b("jobs", "-1", 2, "is -1;"),
    _b("jobs", "true", 2, "is true, not a number"),
    _b("jobs", '"four"', 2, "is 'four', not a number"),
    _b("jobs", '"\\u001b[31m4"', 2, "\\x1b[31m4"),
    _b("jobs", "[1]", 2, "is [1], not a number"),
    _b("jobs", "{ n = 1 }", 2, "not a number"),
    _b("jobs", "1979-05-27", 2, "is a date, not a number"),
    _b("time-limit", "07:32:00", 2, "is a time, not a number"),
    _b("time-limit", '"' + "1" * 5000 + '"', 2, "5,000 characters", id="time-limit-text-5000"),
    _b("cache", '"yes"', 2, "is 'yes'", "write true or false"),
    _b("quiet", "1", 2, "is 1", "write true or false"),
    _b("cache", "1979-05-27T07:32:00", 2, "is a date and time"),
    _b("lang", '"fr"', 2, "names 'fr', not one of the languages", "write some of en, zh"),
    _b("lang", "[]", 2, "not a list of languages"),
    _b("lang", '"\\u202een"', 2, "\\u202een"),
    _b("only", '["check", "\\u001b[2J"]', 2, "names '\\x1b[2J'"),
    _b("only", '"' + "x" * 10_000 + '"', 2, "'xxxx", id="only-10000-chars"),
    _b("only", "[1, 2]", 2, "not a list of artefacts"),
    Case("build-key-separator", BUILD, 2, ("key 'build.a\\u2028b'", "is not a key of [build]"),
         B + '"a\\u2028b" = 1\n'),
    Case("build-key-5000", BUILD, 2, ("is not a key of [build]",), B + "k" * 5000 + " = 1\n"),
    Case("build-not-a-table", BUILD, 2, ("key 'build': is not a table",), "build = 3\n"),
    Case("derive-toml-unknown-top-key", BUILD, 2, ("key 'buidl'", "did you mean 'build'"),
         "[buidl]\njobs = 1\n"),
    # the command line, through the same reader
    Case("cli-time-limit-decimal", (*BUILD, "--time-limit", "30.5"), 0, ("1 ok",)),
    Case("cli-jobs-space", (*BUILD[:-1], " 1"), 0, ("1 ok",)),
    Case("cli-jobs-5000-digits", (*BUILD[:-1], "9" * 5000), 2,
         ("--jobs: is a number of 5,000 characters",)),
    Case("cli-time-limit-hex", (*BUILD, "--time-limit", "0x10"), 2,
         ("--time-limit: is '0x10', not a number",)),
    Case("cli-time-limit-bidi", (*BUILD, "--time-limit", "\u202e1"), 2,
         ("--time-limit: is '\\u202e1'",)),
    Case("cli-lang-esc", ("build", "bank", "-o", "site", "--lang", "\x1b[2J"), 2,
         ("--lang: names '\\x1b[2J'",)),
    # [notation]: messages name the path as the user wrote it
    Case("notation-unknown-name", BUILD, 2, ("bank/derive.toml: key 'notation.lrr'",),
         '[notation]\nlrr = "\\\\alpha"\n'),
    Case("notation-check-unknown-name", ("check", "bank"), 2,
         ("bank/derive.toml: key 'notation.lrr'",), '[notation]\nlrr = "\\\\alpha"\n'),
    Case("notation-not-text", ("check", "bank"), 2, ("key 'notation.lr'", "is not text"),
         "[notation]\nlr = 5\n"),
    Case("notation-esc-value", ("check", "bank"), 2, ("key 'notation.lr'",),
         '[notation]\nlr = "\\u001b[31m"\n'),
    Case("notation-separator-key", ("check", "bank"), 2, ("notation.l\\u2028r",),
         '[notation]\n"l\\u2028r" = "\\\\alpha"\n'),
    Case("notation-long-value", ("check", "bank"), 2, ("key 'notation.lr'",),
         '[notation]\nlr = "' + "a" * 10_000 + '"\n'),
    Case("notation-bad-symbol-ordinary-path", ("check", "bank"), 2,
         ("lesson-03-one-training-step-exercises.toml: key 'notation.lr': is not a symbol", "write a "),
         files={"lesson-03-one-training-step-exercises.toml": '[notation]\nlr = "\\\\foo{"\n\n' + OK}),
    Case("notation-not-a-table", ("check", "bank"), 2, ("key 'notation'", "is not a table"),
         "notation = 3\n"),
    # declared mistakes: words with separators, controls, bidi; hostile names and keys
    _m(MB.replace('"a"', '"a\\u2028b"') + 'given = { w = "2" }', "mistakes[0].en", "U+2028",
       id="mistake-en-u2028"),
    _m(MB.replace('"b"', '"a\\u2029b"') + 'given = { w = "2" }', "mistakes[0].zh", "U+2029",
       id="mistake-zh-u2029"),
    _m(MB.replace('"a"', '"a\\u0085b"') + 'given = { w = "2" }', "mistakes[0].en", "U+0085",
       id="mistake-en-nel"),
    _m(MB.replace('"a"', '"\\u202eab"') + 'given = { w = "2" }', "mistakes[0].en", "U+202E",
       id="mistake-en-bidi"),
    _m('name = "' + "m" * 10_000 + '"\nen = "a"\nzh = "b"\ngiven = { w = "2" }',
       "mistakes[0].name", "lowercase letters", id="mistake-name-10000"),
    _m(MB + 'given = { "\\u001b[2J" = "2" }', "mistakes[0].given.\\x1b[2J",
       "'\\x1b[2J' is not a given", id="mistake-given-key-esc"),
    Case("mistake-define-key-5000", ("check", "bank/m.toml"), 2,
         ("key 'mistakes[0].define.qqq", "…': 'qqq", "is not a quantity"),
         files={"m.toml": MISTAKE.format(body=MB + 'define = { "' + "q" * 5000 + '" = "1" }')}),
    _m(MB + 'skip = "\\u2028"', "mistakes[0].skip", "'\\u2028' is not a quantity",
       id="mistake-skip-separator"),
    _m(MB + 'given = { w = "' + "9" * 10_000 + '" }', "mistakes[0].given.w", "",
       id="mistake-given-10000-digits"),
    Case("bank-mistake-unapplied-long", ("check", "bank"), 2,
         ("key 'mistakes[0].given'", "none gives zzz", "…, \\x1b;"),
         '[[mistakes]]\nname = "m1"\nen = "a"\nzh = "b"\ngiven = { ' + "z" * 3000
         + ' = "2", "\\u001b" = "1" }\n'),
    Case("bank-mistake-u2028", ("check", "bank"), 2, ("bank/derive.toml",
                                                      "key 'mistakes[0].en'", "U+2028"),
         '[[mistakes]]\nname = "m1"\nen = "a\\u2028b"\nzh = "b"\ngiven = { w = "2" }\n'),
    # names of files, exercises and outputs
    Case("file-name-esc", ("check", "bank"), 2, ("bank/\\x1b[31mbad.toml",),
         files={"\x1b[31mbad.toml": "[[exercise]\n"}),
    Case("exercise-id-bidi", ("check", "bank"), 2, ("key 'id'", '"\\u202eab"'),
         files={"a.toml": OK.replace('"ex1"', '"\\u202eab"'),
                "b.toml": OK.replace('"ex1"', '"\\u202eab"')}),
    Case("key-o-esc-missing-folder", ("key", "bank/a.toml", "-o", "no\x1b]0;x\x07/k.md"), 2,
         ("-o no\\x1b]0;x\\x07/k.md", "does not exist")),
    Case("build-o-esc-newline", ("build", "bank", "-o", "s\x1b[31m\nY", "--only", "check",
                                 "--lang", "en", "--jobs", "1"), 0,
         ("built s\\x1b[31m\\x0aY: 1 exercise(s)",)),
    Case("build-bank-esc-missing", ("build", "no\x1b[2Jbank", "-o", "site"), 2,
         ("no\\x1b[2Jbank: is not a folder",)),
    Case("rmsprop-centered-alpha-0", ("check", "bank/rms.toml"), 2,
         ("key 'given.optimizer.eps'", "±inf", "or alpha > 0"),
         files={"rms.toml": RMSPROP.format(alpha=0, centered="true", y=1.5)},
         never=("every gradient so far 0",)),
    # more [build] values, and a derive.toml that is not one
    _b("lang", '"en,,zh"', 2, "names ''"),
    _b("lang", '["en", 1]', 2, "not a list of languages"),
    _b("jobs", "+3", 0, "1 ok"),
    _b("jobs", '"  3  "', 0, "1 ok"),
    _b("jobs", '"\u0661"', 2, "is '\u0661', not a number", id="build.jobs=arabic-digit"),
    _b("time-limit", '"0x1p3"', 2, "not a number"),
    _b("time-limit", '"1/2"', 2, "is '1/2', not a number"),
    _b("time-limit", '"\\u0000"', 2, "is '\\x00', not a number"),
    Case("derive-toml-bad-toml", BUILD, 2, ("bank/derive.toml", "is not valid TOML"),
         "[build\n"),
    Case("derive-toml-nested-build", BUILD, 2, ("key 'build.x'",), "[build.x]\ny = 1\n"),
    Case("notation-key-bidi", ("check", "bank"), 2, ("\\u202e",),
         '[notation]\n"\\u202elr" = "\\\\alpha"\n'),
    Case("mistakes-name-esc", ("check", "bank"), 2, ("key 'mistakes[0].name'", "\\x1b"),
         '[[mistakes]]\nname = "\\u001b[2J"\nen = "a"\nzh = "b"\ngiven = { w = "2" }\n'),
    Case("check-file-newline-name", ("check", "bank"), 2, ("bank/a\\x0ab.toml",),
         files={"a\nb.toml": "[[exercise]]\n"}),
    Case("build-title-separator", BUILD, 0, ("1 ok",),
         files={"a.toml": OK.replace('id = "ex1"', 'id = "ex1"\ntitle = "a\\u2028b\\u202e"')}),
    # the other commands' time bounds, through the same reader
    Case("check-time-limit-1e3", ("check", "bank", "--time-limit", "1e3"), 0, ("every claim",)),
    Case("check-time-limit-inf", ("check", "bank", "--time-limit", "inf"), 2,
         ("--time-limit: is 'inf', not a number that is finite",)),
    Case("key-total-time-limit-nan", ("key", "bank/a.toml", "--total-time-limit", "nan"), 2,
         ("--total-time-limit: is 'nan'",)),
    Case("export-time-limit-5000-digits", ("export", "bank/a.toml", "--time-limit", "9" * 5000),
         2, ("--time-limit: is a number of 5,000 characters",)),
    Case("variants-time-limit-zero", ("variants", "bank/a.toml", "-n", "1", "--time-limit",
                                      "0"), 2, ("--time-limit: is 0, not > 0",)),
    # argparse's own misuse lines, and numbers it lets through
    Case("argparse-unrecognized-esc", ("check", "bank", "--x\x1b[2J"), 2,
         ("unrecognized arguments: --x\\x1b[2J",)),
    Case("argparse-unrecognized-3000", ("check", "bank", "--" + "x" * 3000), 2,
         ("unrecognized arguments: --xxx",)),
    Case("argparse-bad-int-5000", ("variants", "bank/a.toml", "-n", "1.5" + "9" * 5000), 2,
         ("invalid int value: '1.5999",)),
    Case("variants-n-5000-digits", ("variants", "bank/a.toml", "-n", "9" * 5000), 2,
         ("-n 9999", "…: ask for 1 to 10000 variants")),
    Case("export-variants-5000-digits", ("export", "bank/a.toml", "--format", "html",
                                         "--variants", "9" * 5000), 2, ("…: ask for 1 to",)),
    Case("prove-jobs-negative-5000", ("prove", "A1", "--jobs=-" + "9" * 5000), 2,
         ("--jobs -9999", "give a number of processes")),
    # a statement file's facts, quoted short
    Case("statement-long-contradiction", ("prove", "bank/s.toml"), 2,
         ("the facts 'w >= 2', 'w + 0*(", "…'", "cannot hold together"),
         files={"s.toml": '[[statement]]\nid = "x"\ntitle = "t"\nexpect = "proved"\n'
                'lhs = "w"\nrhs = "w"\nassumptions = ["w >= 2", "w + 0*('
                + " + ".join(f"x_{i}" for i in range(1, 60)) + ') <= 1"]\n'}),
    # output names quoted short (their end, the file's name, kept)
    Case("key-o-300-character-name", ("key", "bank/a.toml", "-o", "k" * 300 + ".md"), 2,
         ("-o kkk", "…", "k.md: cannot be examined",)),
    Case("key-o-3000-folders", ("key", "bank/a.toml", "-o", "d/" * 3000 + "k.md"), 2,
         ("-o d/d/", "…/d/", "/k.md: cannot be examined")),
    Case("ledger-chart-5000", ("ledger", "--params", "1e9", "--chart", "c" * 5000 + ".png"), 2,
         ("--chart ccc", "…", "c.png:")),
    Case("variants-o-esc-long", ("variants", "bank/v.toml", "-n", "1", "-o",
                                 "\x1b[2J" + "v" * 400 + "/x"), 2,
         ("-o \\x1b[2Jvvv", "…"), files={"v.toml": OK.replace(
             "[exercise.claims]", "[exercise.vary]\nw = { choices = [1, 2] }\n"
             "[exercise.claims]")}),
    Case("check-missing-esc", ("check", "x\x1b[2J"), 2, ("x\\x1b[2J: does not exist",)),
    Case("export-unknown-target-esc", ("export", "\x1b[2Jnope"), 2,
         ("'\\x1b[2Jnope' is neither a statement id nor a file",)),
    Case("prove-unknown-id-long", ("prove", "x" * 5000), 2, ("no statement 'xxx",)),
    Case("recipes-unknown-esc", ("recipes", "sgd\x1b[2J"), 2, ("no recipe 'sgd\\x1b[2J'",)),
    Case("ledger-preset-esc", ("ledger", "--params", "1e9", "--preset", "\x1b[2J"), 2,
         ("--preset: no ledger '\\x1b[2J'",)),
]


def _common(case: Case, code: int, out: str, err: str, tmp: Path, index: str) -> list[str]:
    """The properties every case's output must have; the list of those it breaks. A build
    that refuses a file says so on its index page (`index`, its rows' lines)."""
    broken = []
    said = err if code and err else out + index
    lines = err.splitlines()
    if code == 2 and len(lines) != 1 and not index and not err.startswith("usage:"):
        broken.append(f"{len(lines)} lines on stderr")
    for ln in (err + out).splitlines():
        if RAW.search(ln):
            broken.append(f"a raw control character: {ln[:80]!r}")
        if len(ln) >= MAX_MESSAGE and ln in lines:
            broken.append(f"a line of {len(ln)} characters")
        if any(r in ln for r in REPRS):
            broken.append(f"a Python repr: {ln[:120]!r}")
        if str(tmp) in ln:
            broken.append("an absolute path the user did not write")
        if "Traceback" in ln or "internal error" in ln:
            broken.append("a bug")
    for s in case.says:
        if s not in said:
            broken.append(f"does not say {s!r}")
    for s in case.never:
        if s in said:
            broken.append(f"says {s!r}")
    return broken


def play(case: Case, tmp: Path, monkeypatch) -> tuple[int, list[str]]:
    monkeypatch.chdir(tmp)
    bank(tmp, case.toml, case.files)
    code, out, err = run(*case.argv)
    broken = [] if code == case.code else [f"exit {code}, not {case.code}: {err[:200]!r}"]
    page = tmp / "site" / "index.html"
    index = ""
    if page.is_file():
        text = page.read_text(encoding="utf-8")
        if str(tmp) in text or any(r in text for r in REPRS):
            broken.append("the index page shows an absolute path or a repr")
        # each row's reason: a hint under its status (derive.render.site)
        index = "\n".join(html.unescape(m) for m in re.findall(
            r'<span class="hint">([^<]*)</span>', text))
    broken += _common(case, code, out, err, tmp, index)
    return code, broken


def test_the_campaign_is_large_enough():
    assert len(CAMPAIGN) >= 40 and len({c.id for c in CAMPAIGN}) == len(CAMPAIGN)


@pytest.mark.parametrize("case", CAMPAIGN, ids=[c.id for c in CAMPAIGN])
def test_campaign(case, tmp_path, monkeypatch):
    code, broken = play(case, tmp_path, monkeypatch)
    assert not broken, broken
