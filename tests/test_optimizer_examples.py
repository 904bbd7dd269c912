"""The Adagrad, RMSprop and Adamax examples (docs/examples/optimizer_steps.toml, claims from torch) go
through every command: check, key, export (tex, md, html; en, zh) and variants."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import tier

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = "docs/examples/optimizer_steps.toml"


def derive(*args):
    return subprocess.run([sys.executable, "-m", "derive", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_check_and_key():
    out = derive("check", EXAMPLES)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "adagrad-two-steps" in out.stdout and "rmsprop-centered-momentum" in out.stdout
    assert "adamax-weight-decay" in out.stdout
    key = derive("key", EXAMPLES, "--format", "json")
    assert key.returncode == 0 and '"sum_steps"' in key.stdout and '"grad_avg_steps"' in key.stdout
    assert '"exp_inf_steps"' in key.stdout


@pytest.mark.parametrize("fmt,lang", tier([("tex", "en"), ("tex", "zh"), ("md", "en"),
                                           ("md", "zh"), ("html", "en"), ("html", "zh")],
                                          always=[("tex", "en"), ("md", "zh"), ("html", "en")]))
def test_export(fmt, lang):
    out = derive("export", EXAMPLES, "--format", fmt, "--lang", lang)
    assert out.returncode == 0, out.stderr
    assert ("梯度平方和" if lang == "zh" else "Sum of squared gradients") in out.stdout
    assert ("指数加权无穷范数" if lang == "zh" else "Exponentially weighted infinity norm") \
        in out.stdout


VARIED = """[[exercise]]
id = "{name}-varied"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.1
records = [[2, 4]]
optimizer = {{ name = "{name}", {option} = 0.5 }}
[exercise.vary]
"optimizer.{option}" = {{ choices = [0.25, 0.5, 0.75] }}
"""


@pytest.mark.parametrize("name,option", tier([("adagrad", "lr_decay"), ("rmsprop", "alpha"),
                                              ("adamax", "weight_decay")],
                                             always=[("adamax", "weight_decay")]))
def test_variants(tmp_path, name, option):
    path = tmp_path / "varied.toml"
    path.write_text(VARIED.format(name=name, option=option), encoding="utf-8")
    out = derive("variants", str(path), "-n", "2", "--seed", "1", "-o", str(tmp_path / "out"))
    assert out.returncode == 0, out.stderr
