"""Structure-aware fuzzing of exercise files: valid files of every recipe (and with variants)
mutated one or two places at a time, then run through check, key, export and variants.

A run is fine when it ends with exit 0, 1 or 2, says at most one line on stderr when it exits
with 2, never says `internal error` (a bug), and ends within its bound. Used by
tests/test_fuzz.py (a small sample; `DERIVE_FUZZ=N` for N files) and benchmarks/fuzz.py.
"""

from __future__ import annotations

import contextlib
import io
import random
import signal
from dataclasses import dataclass
from pathlib import Path

from derive.cli.main import main

BASES = [
    '[[exercise]]\nid = "s"\ntitle = "t"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
    'lr = 0.1\nrecords = [[2, 4], [1, 3]]\nb = 0.5\n[exercise.claims]\nprediction = [2.5, 1.5]\n'
    'gradient = -2\nw_new = 1.2\n',
    '[[exercise]]\nid = "a"\nrecipe = "accumulation"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'microbatches = [[[1, 0], [2, 0]], [[3, 0]]]\ntokens = [5, 3]\ndivisor = 4\n'
    '[exercise.claims]\ngradient = "14/3"\nweights = ["2/3", "1/3"]\n'
    'w_new = { value = 0.533, places = 3 }\n',
    '[[exercise]]\nid = "o"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'records = [[2, 4]]\nsteps = 2\noptimizer = { name = "sgd", momentum = 0.9 }\n'
    '[exercise.claims]\nw_steps = [1.4, 2]\n',
    '[[exercise]]\nid = "d"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'records = [[2, 4]]\nsteps = 2\noptimizer = { name = "adam", betas = [0.9, 0.999] }\n'
    '[exercise.claims]\nw_steps = { value = [1.1, 1.2], rel = 0.01 }\n',
    '[[exercise]]\nid = "r"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1.3668\n'
    'b = 0.7184\nlr = 0.02\nloss = "squared"\nbatches = [[[-1, -1], [4, 14]], [[0, 2]]]\n'
    'optimizer = { name = "sgd", momentum = 0.9, dampening = 0.1 }\n'
    'state = { buffer = -47.34, b_buffer = -22.92 }\n'
    '[exercise.claims]\nbuffer_steps = [-31.6092, 1]\nw_steps = [1.998984, 2]\n',
    '[[exercise]]\nid = "ra"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1\nb = 0.5\n'
    'lr = 0.1\nrecords = [[2, 4]]\nsteps = 2\noptimizer = { name = "adam", amsgrad = true }\n'
    'state = { step = 2, m = -1, v = 4, v_max = 5, b_m = 0.5, b_v = 1, b_v_max = 1 }\n'
    '[exercise.claims]\nm_steps = [-1.3, 0]\nw_steps = [1.02, 1.04]\n',
    '[[exercise]]\nid = "e"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 2\nb = 0\n'
    'lr = 0\nrecords = [[2, 4], [1, 2]]\nsteps = 3\noptimizer = { name = "adam", eps = 0, '
    'amsgrad = true, decoupled_weight_decay = true, weight_decay = 0.5 }\n'
    '[exercise.claims]\nw_steps = [2, 2, 2]\nb_steps = [0, 0, 0]\n',
    '[[exercise]]\nid = "m"\nrecipe = "memory"\n[exercise.given]\nparams = 1e9\nstage = 3\n'
    'dp = 4\nactivation_gib = 2\nbytes = { param = 2, grad = 2, master = 4 }\n'
    '[exercise.claims]\ntotal_gib = 5.725\n',
    '[[exercise]]\nid = "c"\nrecipe = "clipping"\n[exercise.given]\n'
    'gradients = [[[3, 0], [4]], [[1, 0], [0]]]\nmax_norm = 1\nloss_scale = 1024\n'
    '[exercise.claims]\nclip_then_mean = [[0.8, 0], [0.4]]\n',
    '[[exercise]]\nid = "v"\nrecipe = "accumulation"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'microbatches = [[[1, 0], [2, 0]], [[3, 0]]]\n[exercise.vary]\n'
    'partition = { choices = [[2, 1], [1, 2]] }\nw = { from = 0, to = 2, step = 0.5 }\n'
    '"microbatches[0][0][0]" = { choices = [1, 2, 3] }\n'
    '[exercise.require]\nmean_of_means = "differs from gradient"\ngradient = "places <= 3"\n',
    '[[exercise]]\nid = "rel"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.05\n'
    'records = [[2, 4]]\n[exercise.vary]\nlr = { choices = [0.05, 0.1, 0.5] }\n'
    'w = { from = -2, to = 3 }\n[exercise.require]\nloss_new = "< loss"\nw_new = "w_new > w"\n'
    'toward = "w"\ngradient = ["!= 0", ">= -8/3"]\n',
    '[[exercise]]\nid = "om"\nrecipe = "optimizer_steps"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'records = [[1, 2]]\nsteps = 2\noptimizer = { name = "adam", betas = [0.9, 0.999] }\n'
    '[exercise.vary]\n"optimizer.betas[0]" = { choices = [0, 0.5] }\n'
    '"optimizer.amsgrad" = { choices = [true, false] }\n[exercise.require]\ntoward = "w"\n',
    '[[exercise]]\nid = "pt"\nrecipe = "accumulation"\n[exercise.given]\nw = 1\nlr = 0.1\n'
    'microbatches = [[[1, 0], [2, 0]], [[3, 0]]]\n[exercise.vary]\n'
    'partition = { choices = [[2, 1], [1, 2]], targets = { from = -1, to = 1 } }\n'
    '[exercise.require]\nw_new = "< w"\n',
    '[[exercise]]\nid = "w"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\nlr = 0.05\n'
    'records = [[2, 4]]\n[exercise.vary]\nlr = { choices = [0.05, 0.1, 0.2] }\n'
    '"records[0][1]" = { from = 1, to = 5 }\n[exercise.require]\nw_new = ["nonzero", '
    '"places <= 3"]\n',
    '[[exercise]]\nid = "f"\nrecipe = "formulas"\n[exercise.given]\nw = 0.5\nb = 0\nlr = 0.1\n'
    'records = { columns = ["x", "y"], rows = [[1, 1], [2, 0]] }\n[exercise.define]\n'
    'z = "w*x_i + b"\np = "1/(1 + exp(-z_i))"\n'
    'loss = "mean_i(-(y_i*log(p_i) + (1 - y_i)*log(1 - p_i)))"\ngradient = "grad(loss, w)"\n'
    'w_new = { formula = "w - lr*gradient", title = "w after the step" }\n[exercise.claims]\n'
    'z = { formula = "w*x_i + b" }\nw_new = { value = 0.45, places = 2 }\n'
    '[exercise.vary]\nw = { choices = [0, 0.5, 1] }\n',
    '[[exercise]]\nid = "r"\nrecipe = "formulas"\n[exercise.given]\nw0 = 1\nlr = 0.1\n'
    'steps = 3\nmicrobatches = [[[1, 2], [3, 6]], [[2, 5]]]\n[exercise.define]\n'
    'loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"\ng = "grad(loss_t, w_{t-1})"\n'
    'v = { formula = "0.9*v_{t-1} + 0.1*g_t^2", start = "0" }\n'
    'w = { formula = "w_{t-1} - lr*g_t/(sqrt(v_t) + 0.001)", start = "w0" }\n'
    'mb = "mean_{i in B_k}(x_i)"\n[exercise.claims]\nmb = [2, 2]\n',
]

VALUES = ["0", "-1", "1e30", "1e31", "0.1", '"8/15"', '"1/0"', '"x"', "true", "[]", "[1]",
          "[[1, 2]]", "[[[1, 2]]]", "{}", "{ value = 1, places = 2 }", "{ value = 1 }",
          "nan", "inf", "-0.0", "99999999999999999999999999999999999999999999999999999999999999",
          '"' + "9" * 70 + '"', "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", '"\\u001b[31m"',
          '{ choices = [1, 2] }', '{ from = 1, to = 100000 }', '{ from = 2, to = 1 }',
          '{ choices = [{ a = 1 }] }', '"places <= 99999"', '"differs from nothing"', "2e-30",
          "[0.5, 0.5]", "-3", "0.999", "1000000", '"__"', "3.14159265358979",
          '"w_{t-1}^2"', '"exp(exp(exp(w)))"', '"x_{i-1}"', '"grad(grad(loss, w), w)"',
          '{ formula = "(w*x - y)*x" }', '"__import__(os)"', '"log(0)"', '"sqrt(-1)"',
          '"mean_k(x_k)"', '{ formula = "w_{t-1}", start = "1" }', '"w^w^w^w"', '"|x_i|"']


NUMBERS = ["0", "1", "-1", "0.5", "2", "3", "1e9", '"3/7"', "0.25", "-2.5", "10", "0.01",
           "[1, 2]", "[0.5, 0.5]", "[[1, 2], [3, 4]]", "[[[1, 0]], [[2, 1]]]"]
"""Values that keep a file valid more often, so that the mutation reaches the derivations."""


def mutate(rng: random.Random) -> tuple[str, str]:
    """(text, what was done): one base file with one or two mutations."""
    text = rng.choice(BASES)
    done = []
    for _ in range(rng.choice((1, 1, 2))):
        lines = text.splitlines()
        kind = rng.choice(("value", "value", "value", "drop", "copy", "key", "bytes"))
        assigned = [k for k, t in enumerate(lines) if " = " in t]
        k = rng.choice(assigned)
        if kind == "value":
            key = lines[k].split(" = ", 1)[0]
            lines[k] = f"{key} = {rng.choice(NUMBERS if rng.random() < 0.6 else VALUES)}"
        elif kind == "drop":
            del lines[k]
        elif kind == "copy":
            lines.insert(k, lines[k])
        elif kind == "key":
            lines.insert(k, f"{rng.choice(['w', 'lr', 'steps', 'zz', 'records', 'stage'])} = "
                            f"{rng.choice(VALUES)}")
        else:
            pos = rng.randrange(len(text))
            lines = (text[:pos] + rng.choice(["[", "]", "=", '"', "\n", "#", "\x00", "é"])
                     + text[pos:]).splitlines()
        done.append(f"{kind}@{k}")
        text = "\n".join(lines) + "\n"
    return text, ", ".join(done)


COMMANDS = (["check"], ["key", "--format", "json"], ["export", "--format", "md"],
            ["variants", "-n", "2"])


@dataclass
class RunResult:
    command: str
    code: int | None
    stderr: str
    hung: bool = False

    def problems(self) -> list[str]:
        out = []
        if self.hung:
            out.append("hung")
        elif self.code not in (0, 1, 2):
            out.append(f"exit {self.code}")
        lines = self.stderr.strip().splitlines()
        if "internal error" in self.stderr or "Traceback" in self.stderr:
            out.append("internal error")
        if self.code == 2 and self.command != "variants" and len(lines) != 1:
            out.append(f"{len(lines)} lines on stderr")
        return out


class _Hung(BaseException):
    pass


def run_all(path: Path, seconds: int = 60) -> list[RunResult]:
    """The file through every command, in process, each within `seconds`."""
    results = []
    for command in COMMANDS:
        argv = [command[0], str(path), *command[1:]]
        err = io.StringIO()

        def hang(signum, frame):
            raise _Hung()

        previous = signal.signal(signal.SIGALRM, hang)
        signal.alarm(seconds)
        try:
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                code = main(argv)
            results.append(RunResult(command[0], code, err.getvalue()))
        except _Hung:
            results.append(RunResult(command[0], None, err.getvalue(), hung=True))
        except SystemExit as exc:  # argparse
            results.append(RunResult(command[0], exc.code, err.getvalue()))
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    return results
