"""The whole-tensor mistakes (derive/graph/tensor_mistakes.py, issue 35 item 3): each mistake's
value, computed by derive from the exercise's nodes rebuilt under the mistaken operations,
equals the student's wrong code run in torch float64; a claim of it is named under the rule of
evidence, and the near misses are not (a claim off in one entry, a right claim, a claim two
mistakes give at once)."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
import sympy as sp
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st
from support import examples

from derive.exercises import evidence
from derive.exercises.claims import Claim, holds, parse_claim
from derive.exercises.shape import Where
from derive.graph import tensor
from derive.graph.graph import Graph
from derive.graph.node import Node
from derive.graph.tensor_language import OPS, parse_tensor
from derive.graph.tensor_mistakes import BY_ID, MISTAKES, Quantity
from derive.recipes.tensor_variants import tensor_mistakes

torch.set_default_dtype(torch.float64)


def q(x) -> sp.Rational:
    return sp.Rational(Fraction(str(x)))


# ------------------------------------------------------------------ a small formulas builder

class Exercise:
    """Givens (name → nested lists of decimals) and defines (name, the formula as an author
    writes it, whether it takes a derivative), read by derive's tensor parser and built into
    derive's nodes as the formulas recipe builds them: one node per entry, a derivative by
    `sympy.diff` of the loss written out down to the givens."""

    LABELS = ("y",)
    """Class indices, read as numbers when the formula is (torch's one_hot needs them)."""

    def __init__(self, given: dict, defines: list):
        self.given = given
        self.defines = defines
        self.values = {}
        for name, data in given.items():
            if name in self.LABELS:
                continue
            t = tensor.Tensor.of(_exact(data))
            for sym, v in zip(tensor.symbols(name, t.shape).entries, t.entries):
                self.values[sym.name] = v
        self.right = self.build(OPS)
        inputs = {k: functools.partial(lambda value, ctx: value, v)
                  for k, v in self.values.items()}
        self.graph = Graph(tuple(self.right), inputs)
        self.quantities = self._quantities()

    def build(self, ops) -> list[Node]:
        names = {n: (tensor.Tensor.of(_exact(d)) if n in self.LABELS
                     else tensor.symbols(n, tensor.Tensor.of(_exact(d)).shape))
                 for n, d in self.given.items()}
        written: dict[sp.Symbol, sp.Expr] = {}
        nodes = []
        self.shapes = {}
        for name, text, _ in self.defines:
            t = parse_tensor(text, names, ops=ops)
            out = []
            for e in t.entries:
                if e.has(sp.Derivative):
                    e = e.replace(lambda x: isinstance(x, sp.Derivative),
                                  lambda x: sp.diff(x.expr.xreplace(written), *x.variables))
                out.append(e)
            syms = tensor.symbols(name, t.shape)
            for sym, e in zip(syms.entries, out):
                nodes.append(Node(sym.name, sym, e))
                written[sym] = e.xreplace(written)
            names[name] = syms
            self.shapes[name] = t.shape
        return nodes

    def _quantities(self) -> list[Quantity]:
        return [Quantity(name, self.shapes[name],
                         tuple(s.name for s in tensor.symbols(name, self.shapes[name]).entries),
                         text, derivative)
                for name, text, derivative in self.defines]

    def value(self, name: str, replace=None):
        scope = self.graph.scope(None, replace or {}, shared=lambda n: False)
        flat = [scope.compute(s.name) for s in tensor.symbols(name, self.shapes[name]).entries]
        return tensor.Tensor(self.shapes[name], tuple(flat)).nested()

    @functools.cached_property
    def mistakes(self):
        return tensor_mistakes(lambda ctx: self.graph, self.quantities, self.build, OPS,
                               self.right)


def _exact(data):
    if isinstance(data, list):
        return [_exact(x) for x in data]
    return q(data)


def _t(data):
    return torch.tensor(data, dtype=torch.float64)


def _flat(v) -> list:
    if isinstance(v, list):
        return [x for part in v for x in _flat(part)]
    return [v]


def _close(derive_value, torch_value, tol=1e-12) -> bool:
    ours = [float(sp.N(x, 30)) for x in _flat(derive_value)]
    theirs = torch.as_tensor(torch_value).flatten().tolist()
    return len(ours) == len(theirs) and all(
        abs(a - b) <= tol * max(1.0, abs(b)) for a, b in zip(ours, theirs))


# ------------------------------------------------------------------ the exercises

MLP_GIVEN = {
    "X": [[1, -1], [2, 0.5], [0, 1]],
    "W1": [[1, 0.5], [-1, 2], [0.5, 0.5]],
    "b1": [0, 0.5, -0.5],
    "W2": [[1, -1, 0.5], [0.5, 1, -1], [-1, 0.5, 1]],
    "b2": [0.1, 0, -0.1],
    "y": [0, 2, 1],
}
"""A two-layer ReLU network, batch 3: Z1 = X·W1ᵀ + b1 is [[0.5, −2.5, −0.5], [2.25, −0.5,
0.75], [0.5, 2.5, 0]], negative entries and one exact 0 (where relu′(0) matters)."""


def _mlp_defines():
    return [
        ("Z1", "X @ W1.T + b1", False),
        ("H", "relu(Z1)", False),
        ("Z2", "H @ W2.T + b2", False),
        ("L", "cross_entropy(Z2, y)", False),
        ("gW1", "grad(L, W1)", True),
        ("gb1", "grad(L, b1)", True),
        ("gW2", "grad(L, W2)", True),
    ]


def _mlp_torch(relu=F.relu, loss="mean", dz2=None, mask=None, given=MLP_GIVEN):
    """The student's code: the forward pass with `relu`, the loss with `loss` reduction, and
    the backward pass by autograd, or by hand from `dz2` (the gradient at the logits) with the
    ReLU's derivative `mask(Z1)`."""
    X, y = _t(given["X"]), torch.tensor(given["y"])
    W1, b1, W2, b2 = (_t(given[k]).requires_grad_() for k in ("W1", "b1", "W2", "b2"))
    B, C = X.shape[0], W2.shape[0]
    Z1 = X @ W1.T + b1
    H = relu(Z1)
    Z2 = H @ W2.T + b2
    L = F.cross_entropy(Z2, y, reduction=loss)
    if dz2 is None and mask is None:
        L.backward()
        return {"L": L, "gW1": W1.grad, "gb1": b1.grad, "gW2": W2.grad}
    with torch.no_grad():
        p = torch.softmax(Z2, -1)
        g2 = dz2(p, F.one_hot(y, C).double()) if dz2 else (p - F.one_hot(y, C)) / B
        gW2 = g2.T @ H
        dH = g2 @ W2
        dZ1 = dH * mask(Z1) if mask else dH
        return {"L": L, "gW1": dZ1.T @ X, "gb1": dZ1.sum(0), "gW2": gW2}


SOFT_GIVEN = {
    "Q": [[1, 0.5], [-1, 2], [0.5, 1]],
    "K": [[2, 1], [0.5, -1], [1, 1.5]],
    "d": 4,
    "tau": 2,
}


def _soft_defines():
    return [
        ("S", "Q @ K.T / sqrt(d)", False),
        ("A", "softmax(S)", False),
        ("G", "log_softmax(S, dim=-1)", False),
        ("lse", "logsumexp(S, dim=-1)", False),
        ("P", "softmax(S / tau)", False),
        ("rows", "sum(S, dim=1)", False),
        ("cols", "mean(S, dim=0)", False),
    ]


def _soft_torch(scale=None, temperature=None):
    Q, K = _t(SOFT_GIVEN["Q"]), _t(SOFT_GIVEN["K"])
    d, T = SOFT_GIVEN["d"], SOFT_GIVEN["tau"]
    S = Q @ K.T / (scale(d) if scale else d ** 0.5)
    return {"S": S, "A": torch.softmax(S, -1), "G": torch.log_softmax(S, -1),
            "lse": torch.logsumexp(S, -1),
            "P": torch.softmax(temperature(S, T) if temperature else S / T, -1),
            "rows": S.sum(1), "cols": S.mean(0)}


LN_GIVEN = {
    "X": [[1, 2, 4], [0.5, -1, 0]],
    "g": [1, 0.5, 2],
    "b": [0, 0.1, -0.1],
    "Y": [[0, 1, 0], [1, 0, -1]],
}


def _ln_defines():
    return [
        ("N", "layer_norm(X, eps=0.1, weight=g, bias=b)", False),
        ("L", "mse_loss(N, Y)", False),
        ("gg", "grad(L, g)", True),
    ]


def _ln_torch(norm=None, loss="mean"):
    X, Y = _t(LN_GIVEN["X"]), _t(LN_GIVEN["Y"])
    g, b = (_t(LN_GIVEN[k]).requires_grad_() for k in ("g", "b"))
    if norm is None:
        N = F.layer_norm(X, (3,), g, b, eps=0.1)
    else:
        N = norm(X) * g + b
    L = F.mse_loss(N, Y, reduction=loss)
    L.backward()
    return {"N": N.detach(), "L": L.detach(), "gg": g.grad}


MEAN_GIVEN = {"X": [[1, 2], [0.5, -1], [2, 0]], "w": [0.5, -1], "y": [1, 0, 2]}


TIE_GIVEN = {
    "X": [[1, 0], [0, 1]],
    "W1": [[1, 0], [0, 2]],
    "b1": [0, 0],
    "W2": [[1, -1], [0.5, 1]],
    "b2": [0, 0.5],
    "y": [0, 1],
}
"""Z1 = [[1, 0], [0, 2]]: no negative pre-activation, two exact 0s. Where z ≥ 0 everywhere,
relu′(0) taken as 1 and the mask forgotten give the same gradient: a tie."""


def _mean_defines():
    return [
        ("e", "(X @ w - y)^2", False),
        ("L", "mean(e)", False),
        ("gw", "grad(L, w)", True),
    ]


def _mean_torch(reduce=torch.mean):
    X, y = _t(MEAN_GIVEN["X"]), _t(MEAN_GIVEN["y"])
    w = _t(MEAN_GIVEN["w"]).requires_grad_()
    L = reduce((X @ w - y) ** 2)
    L.backward()
    return {"L": L.detach(), "gw": w.grad}


CE_GIVEN = {
    "Z": [[1, -0.5, 2], [0.5, 0, -1]],
    "y": [2, 0],
    "Yp": [[0.2, 0.3, 0.5], [1, 0, 0]],
}


def _ce_defines():
    return [
        ("L1", "cross_entropy(Z, y, label_smoothing=0.1)", False),
        ("g1", "grad(L1, Z)", True),
        ("L2", "cross_entropy(Z, Yp)", False),
        ("g2", "grad(L2, Z)", True),
    ]


def _ce_torch(reduction="mean"):
    Z = _t(CE_GIVEN["Z"]).requires_grad_()
    L1 = F.cross_entropy(Z, torch.tensor(CE_GIVEN["y"]), label_smoothing=0.1,
                         reduction=reduction)
    (g1,) = torch.autograd.grad(L1, Z)
    L2 = F.cross_entropy(Z, _t(CE_GIVEN["Yp"]), reduction=reduction)
    (g2,) = torch.autograd.grad(L2, Z)
    return {"L1": L1.detach(), "g1": g1, "L2": L2.detach(), "g2": g2,
            "p/B": torch.softmax(Z.detach(), -1) / 2}


_EXERCISES: dict[str, Exercise] = {}


def exercise(name: str) -> Exercise:
    if name not in _EXERCISES:
        given, defines = {"mlp": (MLP_GIVEN, _mlp_defines), "soft": (SOFT_GIVEN, _soft_defines),
                          "tie": (TIE_GIVEN, _mlp_defines), "ce": (CE_GIVEN, _ce_defines),
                          "ln": (LN_GIVEN, _ln_defines),
                          "mean": (MEAN_GIVEN, _mean_defines)}[name]
        _EXERCISES[name] = Exercise(given, defines())
    return _EXERCISES[name]


def _unbiased(X):
    return (X - X.mean(-1, keepdim=True)) / torch.sqrt(X.var(-1, unbiased=True, keepdim=True)
                                                       + 0.1)


def _eps_outside(X):
    mu = X.mean(-1, keepdim=True)
    return (X - mu) / (torch.sqrt(((X - mu) ** 2).mean(-1, keepdim=True)) + 0.1)


CASES = [
    # (mistake, exercise, quantity, the student's value in torch, the site's words)
    ("transposed", "mlp", "gW2", lambda: _mlp_torch()["gW2"].T, "transpose"),
    ("transposed", "soft", "A", lambda: _soft_torch()["A"].T, "transpose"),
    ("batch_sum", "mlp", "L", lambda: _mlp_torch(loss="sum")["L"], "cross-entropy"),
    ("batch_sum", "mlp", "gW1", lambda: _mlp_torch(loss="sum")["gW1"], "cross-entropy"),
    ("batch_sum", "ln", "gg", lambda: _ln_torch(loss="sum")["gg"], "squared errors"),
    ("batch_sum", "mean", "gw", lambda: _mean_torch(torch.sum)["gw"], "sum over the batch"),
    ("wrong_axis", "soft", "A", lambda: torch.softmax(_soft_torch()["S"], 0), "softmax"),
    ("wrong_axis", "soft", "G", lambda: torch.log_softmax(_soft_torch()["S"], 0),
     "log-softmax"),
    ("wrong_axis", "soft", "lse", lambda: torch.logsumexp(_soft_torch()["S"], 0),
     "log-sum-exp"),
    ("wrong_axis", "soft", "rows", lambda: _soft_torch()["S"].sum(0), "the sum"),
    ("wrong_axis", "soft", "cols", lambda: _soft_torch()["S"].mean(1), "the mean"),
    ("onehot_not_subtracted", "mlp", "gW2",
     lambda: _mlp_torch(dz2=lambda p, y: p / 3, mask=lambda z: (z > 0).double())["gW2"], "p/B"),
    ("onehot_not_subtracted", "mlp", "gW1",
     lambda: _mlp_torch(dz2=lambda p, y: p / 3, mask=lambda z: (z > 0).double())["gW1"], "p/B"),
    ("onehot_not_subtracted", "ce", "g1", lambda: _ce_torch()["p/B"], "p/B"),
    ("onehot_not_subtracted", "ce", "g2", lambda: _ce_torch()["p/B"], "p/B"),
    ("batch_sum", "ce", "L1", lambda: _ce_torch("sum")["L1"], "cross-entropy"),
    ("batch_sum", "ce", "g2", lambda: _ce_torch("sum")["g2"], "cross-entropy"),
    ("mask_forgotten", "mlp", "gW1", lambda: _mlp_torch(mask=lambda z: torch.ones_like(z))["gW1"],
     "mask"),
    ("mask_forgotten", "mlp", "gb1", lambda: _mlp_torch(mask=lambda z: torch.ones_like(z))["gb1"],
     "mask"),
    ("relu_prime_one", "mlp", "gW1", lambda: _mlp_torch(mask=lambda z: (z >= 0).double())["gW1"],
     "taken as 1"),
    ("relu_prime_half", "mlp", "gb1",
     lambda: _mlp_torch(mask=lambda z: (z > 0).double() + 0.5 * (z == 0).double())["gb1"],
     "1/2"),
    ("preactivation", "mlp", "L", lambda: _mlp_torch(relu=lambda z: z)["L"], "pre-activation"),
    ("preactivation", "mlp", "gW1", lambda: _mlp_torch(relu=lambda z: z)["gW1"],
     "pre-activation"),
    ("exp_forgotten", "soft", "A",
     lambda: (lambda S: S / S.sum(-1, keepdim=True))(_soft_torch()["S"]), "exponential"),
    ("lse_max", "soft", "lse", lambda: _soft_torch()["S"].amax(-1), "maximum"),
    ("temperature_multiplied", "soft", "P",
     lambda: _soft_torch(temperature=lambda S, T: S * T)["P"], "temperature"),
    ("inv_d", "soft", "A", lambda: _soft_torch(scale=lambda d: d)["A"], "square root"),
    ("inv_d", "soft", "S", lambda: _soft_torch(scale=lambda d: d)["S"], "square root"),
    ("eps_outside_sqrt", "ln", "N", lambda: _ln_torch(norm=_eps_outside)["N"], "outside"),
    ("eps_outside_sqrt", "ln", "gg", lambda: _ln_torch(norm=_eps_outside)["gg"], "outside"),
    ("unbiased_variance", "ln", "N", lambda: _ln_torch(norm=_unbiased)["N"], "unbiased"),
    ("unbiased_variance", "ln", "L", lambda: _ln_torch(norm=_unbiased)["L"], "unbiased"),
]


def _candidates(ex: Exercise, mistake: str, target: str):
    return [c for m in ex.mistakes if m.name == mistake and m.target == target
            for c in m.candidates(None)]


@pytest.mark.parametrize("mistake,name,target,student,words", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_the_mistake_is_the_students_torch_code(mistake, name, target, student, words):
    """derive's value of the mistake (the exercise rebuilt under the mistaken operation)
    equals the student's wrong code in torch float64, to 1e-12, and differs from the right
    value: the site that gives it is worded as the mistake is."""
    ex = exercise(name)
    wrong = student()
    found = [c for c in _candidates(ex, mistake, target) if _close(c.value, wrong)]
    assert found, [str(c.en) for c in _candidates(ex, mistake, target)]
    assert words in found[0].en
    assert not _close(ex.value(target), wrong)


def test_every_mistake_has_a_case():
    assert {c[0] for c in CASES} == set(BY_ID)


# ------------------------------------------------------------------ the rule of evidence

def _claim(value) -> Claim:
    """A claim as an author writes it, from torch's value: each entry to 6 places."""
    def raw(x):
        return [raw(v) for v in x] if isinstance(x, list) else f"{x:.6f}"
    return parse_claim(raw(torch.as_tensor(value).tolist()), Where("t.toml", "t"), "claim")


def _fits(ex: Exercise, target: str, claim: Claim) -> list[evidence.Fit]:
    """The whole-tensor mistakes of `target` that give the claim (the first candidate of each
    that holds, as derive.exercises.diagnosis._fits takes it)."""
    out = []
    for m in ex.mistakes:
        if m.target != target:
            continue
        for c in m.candidates(None):
            if holds(claim, c.value):
                out.append(evidence.Fit(m.name, c.en, c.zh, m.origin))
                break
    return out


@pytest.mark.parametrize("mistake,name,target,student,words", CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_planted_claim_is_named(mistake, name, target, student, words):
    """The student's torch value, claimed to 6 places, is named: the one mistake that gives
    it, by the rule of evidence (no other whole-tensor mistake gives it)."""
    ex = exercise(name)
    claim = _claim(student())
    assert not holds(claim, ex.value(target))
    certainty, fits = evidence.weigh(_fits(ex, target, claim))
    assert (certainty, [f.name for f in fits]) == (evidence.NAMED, [mistake])
    assert words in fits[0].en


@pytest.mark.parametrize("mistake,name,target,student,words", CASES[::3],
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES[::3]])
def test_a_claim_off_in_one_entry_is_not_named(mistake, name, target, student, words):
    """The mistake's value with one entry moved by 0.01 is no mistake's value."""
    right = torch.as_tensor(student())
    wrong = right.flatten().clone()
    wrong[-1] += 0.01
    wrong = wrong.reshape(right.shape)
    assert _fits(exercise(name), target, _claim(wrong)) == []


@pytest.mark.parametrize("name,target,right", [
    ("mlp", "gW1", lambda: _mlp_torch()["gW1"]), ("mlp", "L", lambda: _mlp_torch()["L"]),
    ("soft", "A", lambda: _soft_torch()["A"]), ("soft", "P", lambda: _soft_torch()["P"]),
    ("ln", "N", lambda: _ln_torch()["N"]), ("mean", "gw", lambda: _mean_torch()["gw"])])
def test_a_right_claim_is_no_mistake(name, target, right):
    """torch's right value is no mistake's value: no mistake changes nothing."""
    ex = exercise(name)
    claim = _claim(right())
    assert holds(claim, ex.value(target))
    assert _fits(ex, target, claim) == []


def test_two_mistakes_at_once_are_a_tie():
    """With no negative pre-activation, relu′(0) taken as 1, the mask forgotten and the
    pre-activation for the activation (relu(z) = z there) give the same gradient: a tie of
    three, none named; relu′(0) = ½ still differs and is named."""
    ex = exercise("tie")
    ones = _claim(_mlp_torch(mask=lambda z: torch.ones_like(z), given=TIE_GIVEN)["gW1"])
    certainty, fits = evidence.weigh(_fits(ex, "gW1", ones))
    assert certainty == evidence.TIED
    assert [f.name for f in fits] == ["mask_forgotten", "relu_prime_one", "preactivation"]
    half = _claim(_mlp_torch(mask=lambda z: (z > 0).double() + 0.5 * (z == 0).double(),
                             given=TIE_GIVEN)["gW1"])
    certainty, fits = evidence.weigh(_fits(ex, "gW1", half))
    assert (certainty, [f.name for f in fits]) == (evidence.NAMED, ["relu_prime_half"])


def test_a_mistake_that_changes_nothing_gives_no_variant():
    """A softmax over a vector has no other axis, the MLP has no softmax, LayerNorm or
    temperature: none of those mistakes is offered for its quantities."""
    names = {m.name for m in exercise("mlp").mistakes}
    assert names == {"transposed", "batch_sum", "onehot_not_subtracted", "mask_forgotten",
                     "relu_prime_one", "relu_prime_half", "preactivation"}
    assert {m.name for m in exercise("ln").mistakes} == {
        "batch_sum", "eps_outside_sqrt", "unbiased_variance"}
    # a backward mistake leaves the forward quantities alone: the loss is right under it
    assert not [m for m in exercise("mlp").mistakes if m.target in ("Z1", "H", "Z2", "L")
                and m.name in ("mask_forgotten", "relu_prime_one", "relu_prime_half",
                               "onehot_not_subtracted")]


# ------------------------------------------------------------------ the words

def test_the_words_are_plain_text_without_markup():
    """check's and JSON's text: no LaTeX, no dollar, no SymPy name; every mistake and site
    worded in both languages, the Chinese with Chinese in it."""
    for m in MISTAKES:
        words = [(m.en, m.zh)] + [(s.en, s.zh) for s in m.sites if s.en is not None]
        for en, zh in words:
            for w in (en, zh):
                assert w and not any(bad in str(w) for bad in ("\\", "$", "Heaviside", "**"))
            assert any("\u4e00" <= ch <= "\u9fff" for ch in str(zh)), str(zh)
    assert str(BY_ID["relu_prime_half"].en) == "relu′(0) taken as 1/2 (torch takes 0)"
    assert str(BY_ID["eps_outside_sqrt"].en) == (
        "LayerNorm's ε added outside the square root: √(σ²) + ε in place of √(σ² + ε)")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_words_render_with_katex(lang):
    """Every span of every mistake's words, typeset as the Markdown export writes them, is
    rendered by KaTeX without an error."""
    from test_export import katex_failures, math_spans

    from derive.render.document import Document, Paragraph, to_markdown
    from derive.render.said import typeset
    spans = []
    for m in MISTAKES:
        for w in [m.en, m.zh] + [x for s in m.sites for x in (s.en, s.zh) if x is not None]:
            if (lang == "zh") == any("\u4e00" <= ch <= "\u9fff" for ch in str(w)):
                md = to_markdown(Document("w", (Paragraph(typeset(w)),), lang))
                spans += math_spans(md, m.id)
    assert len(spans) > 20
    failures = katex_failures(spans)
    assert not failures, failures[:3]


def test_the_catalogue_lists_every_mistake_with_its_words():
    """docs/diagnosis.md's table of whole-tensor mistakes: every mistake once, in the order
    declared, with its kind and its words as check prints them."""
    from pathlib import Path
    text = Path(__file__).parent.parent.joinpath("docs", "diagnosis.md").read_text("utf-8")
    section = text.split("### Whole-tensor mistakes", 1)[1].split("\n## ", 1)[0]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in section.splitlines()
            if line.startswith("| `")]
    assert [r[0] for r in rows] == [f"`{m.id}`" for m in MISTAKES]
    for row, m in zip(rows, MISTAKES):
        assert (row[1], row[3], row[4]) == (m.kind, str(m.en), str(m.zh))


# ------------------------------------------------------------------ properties, exactly

_entry = st.sampled_from(["0", "1", "-1", "2", "0.5", "-1.5", "3"])


def _matrix(rows: int, cols: int):
    return st.lists(st.lists(_entry, min_size=cols, max_size=cols), min_size=rows,
                    max_size=rows)


def _by_name(ex: Exercise, target: str) -> dict[str, list]:
    return {m.name: [c.value for c in m.candidates(None)] for m in ex.mistakes
            if m.target == target}


def _fr(x) -> Fraction:
    return Fraction(str(x))


@examples(15, slow=100)
@given(st.integers(1, 3).flatmap(lambda n: st.tuples(_matrix(n, 3), _matrix(n, 3))))
def test_relu_derivatives_at_zero_as_fractions(data):
    """For L = sum(relu(A) ⊙ C), ∂L/∂A is C·[A > 0] (torch); relu′(0) = 1 gives C·[A ≥ 0],
    ½ gives C·([A > 0] + ½·[A = 0]), the mask forgotten C itself: each entry computed here
    with Fractions. A mistake is offered only where it changes the value (a zero in A for
    relu′(0), a negative entry for the mask) or gives the right value (it is never then a
    wrong claim's)."""
    a, c = data
    ex = Exercise({"A": a, "C": c}, [("L", "sum(relu(A) * C)", False),
                                     ("gA", "grad(L, A)", True)])
    got = _by_name(ex, "gA")
    A = [[_fr(x) for x in row] for row in a]
    C = [[_fr(x) for x in row] for row in c]

    def masked(step):
        return [[ci * step(ai) for ai, ci in zip(ra, rc)] for ra, rc in zip(A, C)]
    right = masked(lambda v: 1 if v > 0 else 0)
    expected = {"relu_prime_one": masked(lambda v: 1 if v >= 0 else 0),
                "relu_prime_half": masked(lambda v: 1 if v > 0 else (Fraction(1, 2) if v == 0
                                                                     else 0)),
                "mask_forgotten": C}
    assert [[_fr(x) for x in row] for row in ex.value("gA")] == right
    for name, value in expected.items():
        assert [[[_fr(x) for x in row] for row in v] for v in got.get(name, [value])] == [
            value], name


@examples(15, slow=100)
@given(st.integers(2, 3).flatmap(lambda n: _matrix(n, n)))
def test_sums_over_the_other_axis_and_transposes_as_fractions(a):
    """For a square A: sum(A, dim=1)'s wrong_axis value is its column sums, mean(v) of a
    vector summed is B times it, and a square quantity's transpose is its transpose: each
    computed here with Fractions."""
    ex = Exercise({"A": a}, [("r", "sum(A, dim=1)", False), ("B2", "A * 2", False),
                             ("m", "mean(r)", False)])
    A = [[_fr(x) for x in row] for row in a]
    cols = [sum(row[j] for row in A) for j in range(len(A))]
    rows = [sum(row) for row in A]
    got = _by_name(ex, "r")
    assert [[_fr(x) for x in v] for v in got.get("wrong_axis", [cols])] == [cols]
    if cols != rows:
        assert "wrong_axis" in got
    twice = [[2 * x for x in row] for row in A]
    transposed = [list(col) for col in zip(*twice)]
    got = _by_name(ex, "B2")
    assert [[[_fr(x) for x in row] for row in v]
            for v in got.get("transposed", [transposed])] == [transposed]
    if transposed != twice:
        assert "transposed" in got
    got = _by_name(ex, "m")
    assert [_fr(v) for v in got["batch_sum"]] == [sum(rows)]


def test_the_recipes_quantities():
    """quantities_of: a tensor quantity's shape and entry nodes from the recipe's tensors, a
    number one node of its own name; a formula with grad( or d( takes a derivative."""
    from types import SimpleNamespace

    from derive.recipes.tensor_variants import quantities_of
    got = quantities_of([("Z", "X @ W"), ("L", "mean(Z)"), ("g", "grad(L, W)"),
                         ("s", "d(L)/d(w)")],
                        {"Z": SimpleNamespace(shape=(1, 2), entries=("Z[1,1]", "Z[1,2]")),
                         "g": SimpleNamespace(shape=(2,), entries=("g[1]", "g[2]"))})
    assert got == (Quantity("Z", (1, 2), ("Z[1,1]", "Z[1,2]"), "X @ W", False),
                   Quantity("L", (), ("L",), "mean(Z)", False),
                   Quantity("g", (2,), ("g[1]", "g[2]"), "grad(L, W)", True),
                   Quantity("s", (), ("s",), "d(L)/d(w)", True))


def test_the_words_name_the_authors_temperature_and_scale():
    """The temperature and the scale are the author's symbols (τ written tau), not T and d."""
    ex = Exercise({"S": [[1, 2], [0.5, -1]], "tau": 3, "dk": 4},
                  [("P", "softmax(S / tau)", False), ("R", "S / sqrt(dk)", False)])
    by = {(m.name, m.target): m for m in ex.mistakes}
    (t,) = by["temperature_multiplied", "P"].candidates(None)
    assert str(t.en) == ("the temperature τ multiplied, not divided: the softmax of the logits "
                         "times it, in place of the logits divided by it")
    assert str(t.zh) == "温度 τ 乘了上去而不是除:算的是 logits 乘以它的 softmax,应为 logits 除以它"
    (d,) = by["inv_d", "R"].candidates(None)
    assert str(d.en) == "divided by dk in place of √dk (the square root of the scale forgotten)"
    assert d.value == [[sp.Rational(1, 4), sp.Rational(1, 2)], [sp.Rational(1, 8),
                                                                 sp.Rational(-1, 4)]]
