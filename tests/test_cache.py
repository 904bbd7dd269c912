"""The content-addressed cache (derive/cli/cache.py): a hit gives the same bytes as computing,
every input that decides a result is part of its address, and nothing but derive's own signed
entries is ever read back."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from derive.cli import cache as cache_module
from derive.cli.cache import Cache, canonical, exercise_address, pack_report, unpack_report
from derive.cli.main import main
from derive.exercises import check_exercise, load

ROOT = Path(__file__).resolve().parent.parent

EXERCISE = """\
[[exercise]]
id = "{id}"
title = "one SGD step"
recipe = "sgd_step"
given = {{ w = "{w}", b = "0", lr = "1/10", records = [[2, 7]] }}
claims = {{ loss = "{loss}" }}
"""


@pytest.fixture
def cached(own_cache):
    """The cache on, in a folder of this test's own (conftest.py)."""
    return own_cache


def _entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*/*.r"))


def _write(path: Path, *exercises: dict) -> None:
    path.write_text("\n".join(EXERCISE.format(**e) for e in exercises), encoding="utf-8")


def _run(capsys, *argv) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_a_hit_gives_the_same_bytes_and_computes_nothing(cached, tmp_path, capsys, monkeypatch):
    bank = tmp_path / "bank.toml"
    # (2*3 + 0 - 7)^2/2 = 1/2 holds; the second exercise's loss is wrong: (2*1 - 7)^2/2 = 25/2
    _write(bank, {"id": "a", "w": "3", "loss": "1/2"}, {"id": "b", "w": "1", "loss": "12"})
    first = [_run(capsys, "check", str(bank)), _run(capsys, "key", "--format", "md", str(bank))]
    assert first[0][0] == 1 and len(_entries(cached)) == 2

    def computed(*args, **kwargs):  # a hit must not compute
        raise AssertionError("computed although cached")

    monkeypatch.setattr("derive.exercises.check_exercise", computed)
    again = [_run(capsys, "check", str(bank)), _run(capsys, "key", "--format", "md", str(bank))]
    assert again == first


def test_no_cache_keeps_nothing(cached, tmp_path, capsys):
    bank = tmp_path / "bank.toml"
    _write(bank, {"id": "a", "w": "3", "loss": "1/2"})
    assert _run(capsys, "check", "--no-cache", str(bank))[0] == 0
    assert _entries(cached) == []


def test_editing_one_exercise_recomputes_only_it(cached, tmp_path, capsys, monkeypatch):
    bank = tmp_path / "bank.toml"
    _write(bank, {"id": "a", "w": "3", "loss": "1/2"}, {"id": "b", "w": "1", "loss": "25/2"})
    assert _run(capsys, "check", str(bank))[0] == 0
    _write(bank, {"id": "a", "w": "3", "loss": "1/2"}, {"id": "b", "w": "2", "loss": "9/2"})
    seen = []
    real = check_exercise

    def counting(ex, *args, **kwargs):
        seen.append(ex.id)
        return real(ex, *args, **kwargs)

    monkeypatch.setattr("derive.exercises.check_exercise", counting)
    assert _run(capsys, "check", str(bank))[0] == 0
    assert seen == ["b"]


def _key(tmp_path, text: str, name: str = "bank.toml", settings: str | None = None) -> str:
    folder = tmp_path / "k"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    if settings is not None:
        (folder / "derive.toml").write_text(settings, encoding="utf-8")
    (ex,) = load([str(folder)])
    for f in folder.iterdir():
        f.unlink()
    return exercise_address(ex, "report")


BASE = EXERCISE.format(id="a", w="3", loss="1/2")


@pytest.mark.parametrize("changed", [
    BASE.replace('w = "3"', 'w = "3/1"'),            # a given as written
    BASE.replace('id = "a"', 'id = "a2"'),           # the id
    BASE.replace('loss = "1/2"', 'loss = "0.5"'),    # a claim
    BASE.replace("one SGD step", "one step"),        # the title (it is printed)
    BASE + '[notation]\nw = "\\\\theta"\n',          # the file's notation
])
def test_every_input_that_decides_is_in_the_address(tmp_path, changed):
    assert _key(tmp_path, BASE) != _key(tmp_path, changed)


def test_the_path_the_bank_settings_and_the_options_are_in_the_address(tmp_path):
    assert _key(tmp_path, BASE) == _key(tmp_path, BASE)
    assert _key(tmp_path, BASE) != _key(tmp_path, BASE, name="other.toml")
    assert _key(tmp_path, BASE) != _key(tmp_path, BASE, settings='[notation]\nw = "\\\\theta"\n')
    (tmp_path / "o.toml").write_text(BASE, encoding="utf-8")
    (ex,) = load([str(tmp_path / "o.toml")])
    assert exercise_address(ex, "report") != exercise_address(ex, "key", "md", "en")


def test_derive_source_is_in_the_address(tmp_path, monkeypatch):
    (tmp_path / "o.toml").write_text(BASE, encoding="utf-8")
    (ex,) = load([str(tmp_path / "o.toml")])
    before = exercise_address(ex, "report")
    monkeypatch.setattr(cache_module, "_SOURCE", "another derive")
    assert exercise_address(ex, "report") != before


def test_an_entry_not_signed_by_this_cache_is_never_unpickled(cached, tmp_path, capsys):
    bank = tmp_path / "bank.toml"
    _write(bank, {"id": "a", "w": "3", "loss": "1/2"})
    assert _run(capsys, "check", str(bank))[0] == 0
    (entry,) = _entries(cached)
    marker = tmp_path / "executed"

    class Payload:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    entry.write_bytes(entry.read_bytes()[:32] + pickle.dumps(Payload()))
    assert _run(capsys, "check", str(bank))[0] == 0
    assert not marker.exists()


def test_a_folder_others_may_write_is_not_used(cached, tmp_path):
    cached.mkdir(mode=0o700)
    os.chmod(cached, 0o777)
    assert not Cache.open().enabled
    os.chmod(cached, 0o700)
    assert Cache.open().enabled


def test_an_undecided_report_is_not_kept(cached, tmp_path):
    (tmp_path / "o.toml").write_text(BASE, encoding="utf-8")
    (ex,) = load([str(tmp_path / "o.toml")])
    c = Cache.open()
    report = check_exercise(ex, 1e-6, reason="the run passed its time bound")
    c.put_report(c.exercise_key(ex, "report"), report)
    assert _entries(cached) == []


@dataclasses.dataclass(frozen=True)
class Holder:
    exercise: object
    values: dict


def test_a_report_comes_back_with_every_node_as_it_was():
    """SymPy's own pickles evaluate again and share cached nodes; the report's are rebuilt
    as they were (structure and which subtrees are one object)."""
    a, b = sp.symbols("a b")
    third = sp.Mul(sp.Rational(1, 3), sp.Add(a, b), evaluate=False)
    twin1, twin2 = sp.Add._from_args((a, sp.Integer(2))), sp.Add._from_args((a, sp.Integer(2)))
    assert twin1 is not twin2
    value = sp.Add(third, sp.Mul(twin1, twin2, evaluate=False), evaluate=False)
    assert pickle.loads(pickle.dumps(value)).args[0] != third  # what SymPy's pickle does

    back = unpack_report(pack_report(Holder(None, {"v": value})), "ex").values["v"]
    assert sp.srepr(back) == sp.srepr(value)
    product = back.args[1]
    assert product.args[0] is not product.args[1]
    assert back.args[0].args[1] is not None and back.args[0] == third


@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5),
              st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=10))
def test_canonical_form_ignores_key_order_only(value):
    if isinstance(value, dict):
        assert canonical(dict(reversed(list(value.items())))) == canonical(value)
    assert canonical(value) == canonical(pickle.loads(pickle.dumps(value)))


def test_int_and_float_and_text_differ():
    assert len({repr(canonical(v)) for v in (1, 1.0, "1", True, [1], {"1": 1})}) == 6


@pytest.mark.skipif(os.environ.get("DERIVE_SKIP_SLOW") == "1", reason="slow")
def test_a_warm_run_of_the_course_gives_the_same_bytes(cached, tmp_path):
    """The course's own file, cold and warm, in separate processes: the key alike."""
    env = {**os.environ, "DERIVE_CACHE_DIR": str(cached)}
    env.pop("DERIVE_NO_CACHE", None)
    target = str(ROOT / "proofs" / "course" / "lesson03.toml")

    def key(fmt):
        return subprocess.run([sys.executable, "-m", "derive", "key", "--format", fmt, target],
                              capture_output=True, env=env, timeout=300)

    cold = [key("tex")]
    assert _entries(cached)
    warm = [key("tex")]
    for c, w in zip(cold, warm):
        assert c.returncode == w.returncode == 0
        assert c.stdout == w.stdout and c.stdout
