"""pyproject.toml installs derive without a warning and with everything a build needs: every
folder of derive/ is a package it lists, every file ships, the license is an SPDX expression,
and quickjs (KaTeX's engine for the self-check pages) is a dependency of derive itself.

Issue 37: `make demo` printed 358 lines, six of them setuptools warnings (the license as a TOML
table, derive.render.web and derive.render.web.fonts absent from `packages`), and after it
`derive build proofs/course` refused every page: quickjs came only with the test extras.
"""

import fnmatch
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _package(folder: Path) -> str:
    return ".".join(folder.relative_to(ROOT).parts)


def test_every_folder_of_derive_with_files_is_a_listed_package():
    """setuptools treats every folder as a package and warns of one left out of `packages`
    (derive/render/web was: its KaTeX files then ship only by a deprecated accident)."""
    folders = {p.parent for p in _files(ROOT / "derive")}
    listed = set(SETUPTOOLS["packages"])
    assert {_package(f) for f in folders} - listed == set()
    # and nothing listed that is not there (proofs/ is installed as derive.proofs)
    where = {name: ROOT / Path(*name.split(".")) for name in listed}
    where.update({name: ROOT / path for name, path in SETUPTOOLS["package-dir"].items()})
    assert [name for name, path in where.items() if not path.is_dir()] == []


def test_every_file_of_derive_ships():
    """Each file that is not Python matches a package-data pattern of its own package."""
    data = SETUPTOOLS["package-data"]
    left = []
    for path in _files(ROOT / "derive"):
        if path.suffix == ".py":
            continue
        patterns = data.get(_package(path.parent), [])
        if not any(fnmatch.fnmatch(path.name, pattern) for pattern in patterns):
            left.append(str(path.relative_to(ROOT)))
    assert left == []


def test_the_license_is_an_spdx_expression_with_its_files():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"  # a string (PEP 639), not the deprecated table
    assert all((ROOT / f).is_file() for f in project["license-files"])
    (requires,) = [r for r in PYPROJECT["build-system"]["requires"] if r.startswith("setuptools")]
    assert requires == "setuptools>=77"  # the first setuptools that reads both


def test_quickjs_is_a_dependency_of_derive_pinned():
    """The pages' engine comes with derive, pinned exactly (as the extras pin their tools)."""
    pins = [d for d in PYPROJECT["project"]["dependencies"] if d.startswith("quickjs")]
    assert pins == ["quickjs==1.19.4"]
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert not any(d.startswith("quickjs") for deps in extras.values() for d in deps)
    assert extras["html"] == []  # `pip install 'derive[html]'` still resolves


BUILD = textwrap.dedent("""
    import contextlib, io, sys, warnings
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        from setuptools import build_meta
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            name = build_meta.build_wheel(sys.argv[1])
    for w in caught:
        print("WARNING", w.category.__name__, str(w.message).splitlines()[0])
    print("WHEEL", name)
""")


def test_the_wheel_builds_without_a_warning_and_holds_every_file(tmp_path):
    """The build backend itself, on a copy of the sources (it writes build/ and egg-info
    where it runs): no warning of any kind, and every file of derive/ and proofs/ in the
    wheel, with KaTeX's license in its metadata. Against the pyproject.toml before issue 37 this
    printed three warnings."""
    setuptools = pytest.importorskip("setuptools")
    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.skip(f"setuptools {setuptools.__version__}: pyproject.toml requires >= 77")
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        (src / name).write_bytes((ROOT / name).read_bytes())
    for folder in ("derive", "proofs"):
        for path in _files(ROOT / folder):
            if path.suffix != ".pyc":
                copy = src / path.relative_to(ROOT)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_bytes(path.read_bytes())
    out = tmp_path / "wheel"
    out.mkdir()
    done = subprocess.run([sys.executable, "-c", BUILD, str(out)], cwd=src, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("WARNING")] == []
    (wheel,) = [line.split()[1] for line in lines if line.startswith("WHEEL")]
    names = set(zipfile.ZipFile(out / wheel).namelist())
    wanted = {str(p.relative_to(ROOT)) for p in _files(ROOT / "derive")}
    wanted |= {"derive/" + str(p.relative_to(ROOT)) for p in _files(ROOT / "proofs")
               if p.parent == ROOT / "proofs"}
    assert wanted - names == set()
    assert any(n.endswith(".dist-info/licenses/derive/render/web/KATEX-LICENSE") for n in names)
