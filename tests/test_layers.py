"""The layers of docs/index.md hold: the import contracts of pyproject.toml pass (and the
checker reports a contract that is broken), proofs/ is loaded through one entry, and every
import left inside a function says why on the line above."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")
ENTRY = ROOT / "derive" / "statements" / "registry.py"


def _lint(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT), "--no-cache", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_the_import_contracts_hold():
    got = _lint()
    assert got.returncode == 0, got.stdout + got.stderr


def test_a_broken_contract_is_reported(tmp_path):
    """The checker is not vacuous: render imports the exercises layer, so a contract that
    forbids it fails and names the import."""
    config = tmp_path / "contracts.toml"
    config.write_text('[tool.importlinter]\nroot_packages = ["derive"]\n\n'
                      '[[tool.importlinter.contracts]]\nname = "render without exercises"\n'
                      'type = "forbidden"\nsource_modules = ["derive.render"]\n'
                      'forbidden_modules = ["derive.exercises"]\nallow_indirect_imports = true\n')
    got = _lint("--config", str(config))
    assert got.returncode != 0
    assert "derive.render.selfcheck -> derive.exercises" in got.stdout


def _modules():
    for path in sorted((ROOT / "derive").rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _names_proofs(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name.startswith(("derive.proofs", "proofs")) for a in node.names)
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        return module.startswith(("derive.proofs", "proofs")) or (
            module == "derive" and any(a.name == "proofs" for a in node.names))
    return isinstance(node, ast.Constant) and isinstance(node.value, str) \
        and node.value.startswith("derive.proofs")


def test_proofs_are_loaded_through_the_registry_only():
    """proofs/ (installed as derive.proofs) is data: the statements registry loads it, and
    no other module of derive imports it (the contracts cannot see it: it is not in derive/)."""
    def located(tree):  # find_spec("derive.proofs") finds the folder without loading it
        return {id(a) for c in ast.walk(tree) if isinstance(c, ast.Call)
                and getattr(c.func, "attr", getattr(c.func, "id", "")) == "find_spec"
                for a in c.args}

    found = [f"{path.relative_to(ROOT)}:{node.lineno}" for path, tree in _modules()
             if path != ENTRY for node in ast.walk(tree)
             if _names_proofs(node) and id(node) not in located(tree)]
    assert found == []
    assert any(_names_proofs(n) for n in ast.walk(ast.parse(ENTRY.read_text())))


def test_imports_inside_functions_say_why():
    """An import inside a function is there to save start-up time (or to keep an optional
    extra optional), and a comment says so on the line above it or its group."""
    silent = []
    for path, tree in _modules():
        lines = path.read_text(encoding="utf-8").split("\n")
        inner = [s for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef,
                                                              ast.AsyncFunctionDef))
                 for s in ast.walk(f) if isinstance(s, (ast.Import, ast.ImportFrom))]
        taken = {i for s in inner for i in range(s.lineno - 1, s.end_lineno)}
        for s in inner:
            above = s.lineno - 2
            while above in taken:
                above -= 1
            if "#" not in lines[s.lineno - 1] and not lines[above].lstrip().startswith("#"):
                silent.append(f"{path.relative_to(ROOT)}:{s.lineno}")
    assert silent == []
