"""The tensor statements of issue 36 (proofs/linear_*.py … attention_*.py): each gets its
expected verdict; each refutation's witness is rebuilt in torch float64 as a student would
write the two sides (autograd for gradients, torch.softmax, F.cross_entropy, F.layer_norm, not
derive) and torch confirms that they differ there; each proved statement is checked by torch at
3 random sizes and points; an adversarial table of false tensor statements built with
derive/graph/sized.py is never proved; and proofs/lessons_data.py is the bank's own numbers.
"""

from __future__ import annotations

import json
import math
import random
import tomllib
from pathlib import Path

import pytest
import sympy as sp

from derive.graph import sized
from derive.kernel import Verdict, decide, equal, every, hypothesis, nonzero
from derive.kernel.functions import relu
from derive.statements import prove
from derive.statements.registry import proofs_module, select

ROOT = Path(__file__).resolve().parent.parent
BANK = ROOT / "benchmarks" / "lessons07"

PROVED_IDS = (
    "linear-weight-gradient", "linear-bias-gradient", "linear-input-gradient",
    "linear-batch-gradient", "two-layer-relu-delta", "relu-kink-convention",
    "softmax-sums-to-one", "softmax-shift", "logsumexp-shift", "logsumexp-gradient",
    "cross-entropy-gradient", "label-smoothing-gradient", "layernorm-mean-zero",
    "layernorm-gradient-sums-to-zero", "layernorm-affine-gradient-sums-to-zero", "a2-matrix",
    "attention-rows-sum-to-one",
)
REFUTED_IDS = (
    "linear-weight-gradient-transposed", "linear-batch-sum", "relu-mask-wrong-layer",
    "cross-entropy-gradient-any-target", "cross-entropy-gradient-p", "layernorm-unbiased",
    "mean-of-means-matrix", "attention-scale-inverse-d",
)


@pytest.fixture(scope="module")
def outcomes():
    return {s.id: prove(s) for s in select(list(PROVED_IDS + REFUTED_IDS))}


@pytest.mark.parametrize("sid", PROVED_IDS + REFUTED_IDS)
def test_each_statement_gets_its_expected_verdict_and_its_instances(outcomes, sid):
    o = outcomes[sid]
    want = Verdict.PROVED if sid in PROVED_IDS else Verdict.REFUTED
    assert o.statement.expect is want
    assert o.verdict is want, o.detail
    assert all(i.ok for i in o.instances), [i.checks for i in o.instances if not i.ok]
    if want is Verdict.REFUTED:
        assert o.statement.holds_when and set(o.statement.holds_when) <= set(
            PROVED_IDS + ("mean-of-means-equal-sizes",))


# ------------------------------------------------------------------ the witnesses in torch
def sizes_of(w) -> dict[str, int]:
    return {str(s): int(v) for s, v in w.symbols}


def entries(w, name, *shape):
    """The witness's entries of the given `name` as nested floats (1-based Lambdas)."""
    fn = next(f for base, f in w.functions if str(base) == name)
    if len(shape) == 1:
        return [float(fn(i)) for i in range(1, shape[0] + 1)]
    return [[float(fn(i, j)) for j in range(1, shape[1] + 1)] for i in range(1, shape[0] + 1)]


def number(w, name):
    return float(dict((str(s), v) for s, v in w.symbols)[name])


def witness_sides_in_torch(sid, w):
    """(lhs, rhs) at the witness's entry, computed in torch float64 as a student writes it."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    t = lambda v, grad=False: torch.tensor(v, dtype=torch.float64, requires_grad=grad)  # noqa: E731
    s = sizes_of(w)
    if sid == "linear-weight-gradient-transposed":
        n, p, q = s["n"], s["p"] - 1, s["q"] - 1
        W, x = t(entries(w, "W", n, n), True), t(entries(w, "x", n))
        b, d = t(entries(w, "b", n)), t(entries(w, "delta", n))
        (d * (W @ x + b)).sum().backward()            # ∂L/∂z = δ
        return W.grad[p, q], torch.outer(x, d)[p, q]  # the student's x δᵀ
    if sid == "linear-batch-sum":
        B, m, n, p, q = s["B"], s["m"], s["n"], s["p"] - 1, s["q"] - 1
        W, X = t(entries(w, "W", m, n), True), t(entries(w, "X", B, n))
        b, D = t(entries(w, "b", m)), t(entries(w, "D", B, m))
        ((D * (X @ W.T + b)).sum(dim=1).mean()).backward()   # L = (1/B) Σ_r ℓ_r
        return W.grad[p, q], (D.T @ X)[p, q]                 # the student's Σ_r δ_r x_rᵀ
    if sid == "relu-mask-wrong-layer":
        h, m, p = s["h"], s["m"], s["p"] - 1
        z1 = t(entries(w, "z_1", h), True)
        W2, b2, d2 = (t(entries(w, "W_2", m, h)), t(entries(w, "b_2", m)),
                      t(entries(w, "delta_2", m)))
        yhat = W2 @ torch.relu(z1) + b2
        (d2 * yhat).sum().backward()
        return z1.grad[p], (W2.T @ (d2 * (yhat > 0)))[p]
    if sid in ("cross-entropy-gradient-any-target", "cross-entropy-gradient-p"):
        C, j = s["C"], s["j"] - 1
        z, y = t(entries(w, "z", C), True), t(entries(w, "y", C))
        F.cross_entropy(z[None], y[None]).backward()
        p = torch.softmax(z, -1)
        return z.grad[j], (p - y if sid.endswith("any-target") else p)[j]
    if sid == "layernorm-unbiased":
        n, j, eps = s["n"], s["j"] - 1, number(w, "epsilon")
        x = t(entries(w, "x", n))
        student = (x - x.mean()) / torch.sqrt(x.var(unbiased=True) + eps)
        return student[j], F.layer_norm(x, (n,), eps=eps)[j]
    if sid == "attention-scale-inverse-d":
        T, d, i, u = s["T"], s["d"], s["i"] - 1, s["t"] - 1
        Q, K = t(entries(w, "Q", T, d)), t(entries(w, "K", T, d))
        return (torch.softmax(Q @ K.T / math.sqrt(d), -1)[i, u],
                torch.softmax(Q @ K.T / d, -1)[i, u])
    if sid == "mean-of-means-matrix":
        # microbatches of the witness's sizes on the lesson's model ŷ = w·x, ℓ = (ŷ − y)²/2
        values = {k: float(v) for k, v in w.assignment}
        sizes = [int(v) for v in w.shape.split("(")[1].rstrip(")").split(",") if v.strip()]
        records = [(values[f"x_{i}"], values[f"y_{i}"]) for i in range(1, sum(sizes) + 1)]

        def mean_grad(rs):
            W = t([[values["w"]]], True)
            loss = sum((W[0, 0] * xi - yi) ** 2 / 2 for xi, yi in rs) / len(rs)
            loss.backward()
            return W.grad[0, 0]
        bounds = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
        mbs = [records[bounds[k]:bounds[k + 1]] for k in range(len(sizes))]
        return sum(mean_grad(mb) for mb in mbs) / len(mbs), mean_grad(records)
    raise AssertionError(sid)


@pytest.mark.parametrize("sid", REFUTED_IDS)
def test_each_witness_is_confirmed_by_torch(outcomes, sid):
    pytest.importorskip("torch")
    o = outcomes[sid]
    lhs, rhs = (v.detach() for v in witness_sides_in_torch(sid, o.witness))
    assert float(lhs) == pytest.approx(float(o.witness.lhs.evalf(30)), abs=1e-12)
    assert float(rhs) == pytest.approx(float(o.witness.rhs.evalf(30)), abs=1e-12)
    assert abs(float(lhs) - float(rhs)) > 1e-6


def test_the_witnesses_are_the_smallest_sizes_that_show_each_mistake(outcomes):
    """One size smaller, every one of these claims holds (by hand): n = 1 makes x δᵀ = δ xᵀ,
    B = 1 makes the sum the mean, T = 1 gives softmax 1 either way and d = 1 gives √d = d, n = 1
    has no unbiased variance, C = 1 is the smallest class count."""
    sizes = {sid: sizes_of(outcomes[sid].witness) for sid in REFUTED_IDS
             if sid != "mean-of-means-matrix"}
    assert sizes["linear-weight-gradient-transposed"]["n"] == 2
    assert sizes["linear-batch-sum"]["B"] == 2
    assert (sizes["attention-scale-inverse-d"]["T"], sizes["attention-scale-inverse-d"]["d"]) \
        == (2, 2)
    assert sizes["layernorm-unbiased"]["n"] == 2
    assert sizes["cross-entropy-gradient-p"]["C"] == 1
    assert sizes["cross-entropy-gradient-any-target"]["C"] == 1
    assert (sizes["relu-mask-wrong-layer"]["h"], sizes["relu-mask-wrong-layer"]["m"]) == (1, 1)
    assert outcomes["mean-of-means-matrix"].witness.shape == "n = (1, 2)"


# ------------------------------------------------------------------ proved statements in torch
def torch_sides(sid, rng):
    """Both sides of a proved statement at random sizes (1–4) and a random point, in torch."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    g = torch.Generator().manual_seed(rng.randrange(2**31))

    def r(*shape, grad=False):
        return torch.randn(*shape, generator=g, dtype=torch.float64).requires_grad_(grad)
    B, m, n, h, C, d = (rng.randint(1, 4) for _ in range(6))
    if sid.startswith("linear-") and sid != "linear-batch-gradient":
        W, x, b, delta = r(m, n, grad=True), r(n, grad=True), r(m, grad=True), r(m)
        (delta * (W @ x + b)).sum().backward()
        return {"linear-weight-gradient": (W.grad, torch.outer(delta, x)),
                "linear-bias-gradient": (b.grad, delta),
                "linear-input-gradient": (x.grad, W.T @ delta)}[sid]
    if sid == "linear-batch-gradient":
        W, X, b, D = r(m, n, grad=True), r(B, n), r(m), r(B, m)
        (D * (X @ W.T + b)).sum(dim=1).mean().backward()
        return W.grad, D.T @ X / B
    if sid == "two-layer-relu-delta":
        z1, W2, b2, d2 = r(h, grad=True), r(m, h), r(m), r(m)
        (d2 * (W2 @ torch.relu(z1) + b2)).sum().backward()
        return z1.grad, (W2.T @ d2) * (z1 > 0)
    if sid == "relu-kink-convention":
        u = torch.zeros((), dtype=torch.float64, requires_grad=True)
        torch.relu(u).backward()
        return u.grad, torch.zeros(())
    z = r(C, grad=True)
    if sid == "softmax-sums-to-one":
        return torch.softmax(z, -1).sum(), torch.ones(())
    if sid == "softmax-shift":
        a = float(r(()))
        return torch.softmax(z + a, -1), torch.softmax(z, -1)
    if sid == "logsumexp-shift":
        mm = float(r(()))
        return torch.logsumexp(z, -1), mm + torch.logsumexp(z - mm, -1)
    if sid == "logsumexp-gradient":
        torch.logsumexp(z, -1).backward()
        return z.grad, torch.softmax(z, -1)
    if sid in ("cross-entropy-gradient", "label-smoothing-gradient"):
        y = torch.softmax(r(C), -1)          # any distribution: Σ_c y_c = 1
        eps = 0.0 if sid == "cross-entropy-gradient" else rng.choice([0.1, 0.2, 0.35])
        F.cross_entropy(z[None], y[None], label_smoothing=eps).backward()
        return z.grad, torch.softmax(z, -1) - ((1 - eps) * y + eps / C)
    if sid.startswith("layernorm"):
        x, gup = r(n, grad=True), r(n)
        weight = r(n) if "affine" in sid else None
        bias = r(n) if "affine" in sid else None
        y = F.layer_norm(x, (n,), weight=weight, bias=bias, eps=1e-5)
        if sid == "layernorm-mean-zero":
            return y.mean(), torch.zeros(())
        (gup * y).sum().backward()
        return x.grad.sum(), torch.zeros(())
    if sid == "a2-matrix":
        sizes = [rng.randint(1, 3) for _ in range(rng.randint(1, 3))]
        X, Y = r(sum(sizes), n), r(sum(sizes), m)

        def mean_grad(rows):
            W = torch.zeros(m, n, dtype=torch.float64, requires_grad=True)
            with torch.no_grad():
                W += 0.5
            F.mse_loss(X[rows] @ W.T, Y[rows], reduction="sum").div(len(rows)).backward()
            return W.grad
        bounds = [sum(sizes[:k]) for k in range(len(sizes) + 1)]
        parts = [list(range(bounds[k], bounds[k + 1])) for k in range(len(sizes))]
        weighted = sum(len(p) / sum(sizes) * mean_grad(p) for p in parts)
        return mean_grad(list(range(sum(sizes)))), weighted
    if sid == "attention-rows-sum-to-one":
        T = rng.randint(1, 4)
        Q, K = r(T, d), r(T, d)
        return torch.softmax(Q @ K.T / math.sqrt(d), -1).sum(-1), torch.ones(T)
    raise AssertionError(sid)


@pytest.mark.parametrize("sid", PROVED_IDS)
def test_each_proved_statement_holds_in_torch_at_three_random_sizes(sid):
    torch = pytest.importorskip("torch")
    rng = random.Random(sid)
    for _ in range(3):
        lhs, rhs = torch_sides(sid, rng)
        assert torch.allclose(lhs.detach(), rhs.detach().to(lhs.dtype), rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ adversarial table
B_, m_, n_, h_, C_, d_, T_ = (sized.size(s) for s in ("B", "m", "n", "h", "C", "d", "T"))


def _table():
    """False tensor statements (name, lhs, rhs, facts), each built with sized.py, each false at
    some sizes and entries its facts allow (the name says how it goes wrong). Not in it: the
    mask written 1[z₁ ≥ 0] without the fact z₁ ≠ 0, which differs from torch's 1[z₁ > 0] only
    at z₁_p = 0, where relu has no derivative: no point of its domain tells them apart."""
    out = []

    def add(name, lhs, rhs, names="pqrs", facts=()):
        if isinstance(lhs, sized.Sized):
            lhs, rhs, _, fs = sized.entrywise(lhs, rhs, names)
            facts = fs + tuple(facts)
        out.append((name, lhs, rhs, tuple(facts)))

    W, x, b, dl = (sized.given("W", m_, n_), sized.given("x", n_), sized.given("b", m_),
                   sized.given("delta", m_))
    Wsq, xsq, bsq, dsq = (sized.given("W", n_, n_), sized.given("x", n_), sized.given("b", n_),
                          sized.given("delta", n_))
    zsq = Wsq @ xsq + bsq
    X, D, Z = sized.given("X", B_, n_), sized.given("D", B_, m_), None
    Z = X @ W.T + b
    z, y, v = sized.given("z", C_), sized.given("y", C_), sized.given("v", C_)
    a, eps = sp.Symbol("a", real=True), sp.Symbol("epsilon", real=True)
    Zb = sized.given("Z", B_, C_)
    k = sp.Dummy("k", integer=True)
    dist = equal(sized.reduce("sum", y, 0).item - 1, "Σ y = 1")
    # the linear layer (square W where the shapes must agree)
    add("transposed x δᵀ (n = 2)", sized.backward(dsq, zsq, Wsq), sized.outer(xsq, dsq))
    add("input gradient W δ, not Wᵀ δ (n = 2)", sized.backward(dsq, zsq, xsq), Wsq @ dsq)
    add("bias gradient δ ⊙ x (n = 1, x ≠ 1)", sized.backward(dsq, zsq, bsq), dsq * xsq)
    add("weight gradient δ_p x_p (index slip)", sized.backward(dsq, zsq, Wsq),
        sized.Sized((n_, n_), lambda p, q: dsq[p] * xsq[p]))
    add("the 1/B left out (B = 2)", sized.backward(D, Z, W) / B_, D.T @ X)
    add("1/(B·m) for 1/B (m = 2)", sized.backward(D, Z, W) / B_, (D.T @ X) / (B_ * m_))
    add("Σ over i stops at m − 1 (m = 1)",
        sized.Sized((m_, n_), lambda p, q: sp.Sum(dl[k] * sp.Derivative((W @ x + b)[k], W[p, q]),
                                                  (k, 1, m_ - 1))),
        sized.outer(dl, x))
    # two layers
    z1, W2, b2, d2 = (sized.given("z_1", h_), sized.given("W_2", m_, h_), sized.given("b_2", m_),
                      sized.given("delta_2", m_))
    out2 = W2 @ sized.relu(z1) + b2
    jj = sized.index("j")
    no_kink = (every(nonzero(z1[jj], "z₁ ≠ 0"), (jj, 1, h_)),)
    add("mask forgotten", sized.backward(d2, out2, z1), W2.T @ d2, facts=no_kink)
    add("mask on the output layer", sized.backward(d2, out2, z1),
        W2.T @ (d2 * sized.compare(">", out2, sized.scalar(sp.S.Zero))), facts=no_kink)
    uu = sp.Symbol("u", real=True)
    add("relu′(0) = 1", relu(uu).fdiff(), sp.S.One,
        facts=(hypothesis(uu, "u ≥ 0"), hypothesis(-uu, "u ≤ 0")))
    # softmax, logsumexp, cross-entropy
    add("softmax summed along the batch axis",
        sized.reduce("sum", sized.softmax(Zb, -1), 0), sized.ones(C_), "c")
    add("softmax sums to 1 over C − 1 classes (C = 1)",
        sp.Sum(sized.softmax(z)[k], (k, 1, C_ - 1)), sp.S.One)
    add("softmax of z + a·v, an entry-dependent shift", sized.softmax(z + v * a),
        sized.softmax(z), "j")
    add("softmax(a·z) = softmax(z) (temperature)", sized.softmax(z * a), sized.softmax(z), "j")
    add("logsumexp shift with the wrong sign", sized.logsumexp(z).item,
        a + sized.logsumexp(z + a).item)
    add("∂ logsumexp/∂z = exp(z) (denominator dropped)",
        sized.grad(sized.logsumexp(z), z), sized.exp(z), "j")
    add("∂CE/∂z = softmax − y without Σy = 1", sized.grad(sized.cross_entropy(z, y), z),
        sized.softmax(z) - y, "j")
    add("∂CE/∂z = softmax (p for p − y)", sized.grad(sized.cross_entropy(z, y), z),
        sized.softmax(z), "j", facts=dist)
    add("∂CE/∂z = (softmax − y)/C, a mean over classes (C = 2)",
        sized.grad(sized.cross_entropy(z, y), z), (sized.softmax(z) - y) / C_, "j", facts=dist)
    add("label smoothing, the fact Σy = 1 dropped",
        sized.grad(sized.cross_entropy(z, y, label_smoothing=eps), z),
        sized.softmax(z) - sized.smoothed(y, eps), "j")
    add("label smoothing ignored: softmax − y",
        sized.grad(sized.cross_entropy(z, y, label_smoothing=eps), z), sized.softmax(z) - y,
        "j", facts=dist)
    add("label smoothing target (1 − ε)y + ε (no /C)",
        sized.grad(sized.cross_entropy(z, y, label_smoothing=eps), z),
        sized.softmax(z) - (y * (1 - eps) + eps), "j", facts=dist)
    add("label smoothing target (1 − ε)y + ε/(C − 1) (C = 2)",
        sized.grad(sized.cross_entropy(z, y, label_smoothing=eps), z),
        sized.softmax(z) - (y * (1 - eps) + eps / (C_ - 1)), "j",
        facts=dist + (hypothesis(C_ - 2, "C ≥ 2"),))
    # LayerNorm
    xs, gm, bt = sized.given("x", n_), sized.given("gamma", n_), sized.given("beta", n_)
    le = sp.Symbol("epsilon", positive=True)
    dev = xs - sized.reduce("mean", xs, 0)
    var = sized.reduce("mean", dev * dev, 0)
    add("LayerNorm with the unbiased variance (n = 2)",
        sized.layer_norm(xs, eps=le, unbiased=True), sized.layer_norm(xs, eps=le), "j")
    add("LayerNorm with ε outside the √", dev / (var.map(sp.sqrt) + le),
        sized.layer_norm(xs, eps=le), "j")
    add("LayerNorm with γ, β has mean 0",
        sized.reduce("mean", sized.layer_norm(xs, eps=le, weight=gm, bias=bt), 0).item,
        sp.S.Zero)
    add("LayerNorm's squares sum to n (only at ε = 0)",
        sized.reduce("sum", sized.layer_norm(xs, eps=le) * sized.layer_norm(xs, eps=le), 0).item,
        n_)
    # attention
    Q, K = sized.given("Q", T_, d_), sized.given("K", T_, d_)
    add("attention scaled by 1/d", sized.attention_scores(Q, K, 1 / sp.sqrt(d_)),
        sized.attention_scores(Q, K, 1 / d_), "it")
    add("attention columns sum to 1 (T = 2)",
        sized.reduce("sum", sized.attention_scores(Q, K, 1 / sp.sqrt(d_)), 0), sized.ones(T_),
        "t")
    add("attention without the scale", sized.attention_scores(Q, K, sp.S.One),
        sized.attention_scores(Q, K, 1 / sp.sqrt(d_)), "it")
    return out


TABLE = _table()


def test_the_adversarial_table_has_at_least_25_false_statements():
    assert len(TABLE) >= 25
    assert len({name for name, *_ in TABLE}) == len(TABLE)


@pytest.mark.parametrize("name, lhs, rhs, facts", TABLE, ids=[t[0] for t in TABLE])
def test_no_false_tensor_statement_is_proved(name, lhs, rhs, facts):
    d = decide(lhs, rhs, facts)
    assert d.verdict is not Verdict.PROVED, name


# ------------------------------------------------------------------ the data are the bank's
def _bank():
    exercises = {e["id"]: e for e in tomllib.loads(
        (BANK / "exercises.toml").read_text(encoding="utf-8"))["exercise"]}
    expected = json.loads((BANK / "expected.json").read_text(encoding="utf-8"))["exercises"]
    return exercises, expected


def _text(v):
    """A TOML given (float or int) as the text it was written with (4 places at most)."""
    if isinstance(v, list):
        return [_text(u) for u in v]
    return v if isinstance(v, str) else repr(v)


def test_the_lessons_data_are_the_banks_numbers():
    from derive.kernel import exact
    L = proofs_module("lessons_data")
    exercises, expected = _bank()

    def given(ex, name):
        return exercises[ex]["given"][name]

    def same_numbers(ours, theirs):
        if isinstance(ours, list):
            return len(ours) == len(theirs) and all(same_numbers(a, b) for a, b in
                                                    zip(ours, theirs))
        return exact(ours) == exact(_text(theirs))

    checks = [
        (L.LIN_A, "lin-a"), (L.LINB_B, "linb-b"), (L.MLP_B, "mlp-b"), (L.MLP_E, "mlp-e"), (L.SM_A, "sm-a"),
        (L.SM_D, "sm-d"), (L.LN_D, "ln-d"), (L.LN_C, "ln-c"),
    ]
    for data, ex in checks:
        for name, value in data.items():
            assert same_numbers(value, given(ex, name)), (ex, name)
    assert same_numbers(L.ATT_A["Q"], given("att-a", "Q"))
    assert same_numbers(L.ATT_A["Km"], given("att-a", "Km"))
    assert L.ATT_A_D == given("att-a", "dk")
    for data, ex in ((L.CE_F, "ce-f"), (L.CE_E, "ce-e")):
        assert same_numbers(data["Z"], given(ex, "Z"))
        classes = given(ex, "y")
        assert data["Y"] == [["1" if c == k else "0" for k in range(len(data["Z"][0]))]
                             for c in classes]
    assert exact(L.CE_E_SMOOTHING) == exact("0.2")
    assert "label_smoothing=0.2" in exercises["ce-e"]["define"]["loss"]
    right = {
        ("lin-a", "gW"): L.LIN_A_GW, ("lin-a", "gb"): L.LIN_A_GB, ("linb-b", "gW"): L.LINB_B_GW,
        ("mlp-b", "gb1"): L.MLP_B_GB1, ("mlp-e", "gb1"): L.MLP_E_GB1, ("sm-a", "P"): L.SM_A_P, ("sm-a", "S"): L.SM_A_S,
        ("sm-d", "P"): L.SM_D_P, ("sm-d", "S"): L.SM_D_S, ("ce-f", "gZ"): L.CE_F_GZ,
        ("ce-e", "gZ"): L.CE_E_GZ, ("ln-d", "Y"): L.LN_D_Y, ("ln-d", "gX"): L.LN_D_GX,
        ("ln-c", "gX"): L.LN_C_GX, ("att-a", "A"): L.ATT_A_A,
    }
    for (ex, name), ours in right.items():
        c = expected[ex]["claims"][name]
        theirs = c["right"] if c["status"] == "wrong" else exercises[ex]["claims"][name]
        assert ours == theirs, (ex, name)
    planted = expected["ln-d"]["claims"]["Y"]
    assert planted["mistake"] == "unbiased_variance"
    assert L.LN_D_Y_UNBIASED == exercises["ln-d"]["claims"]["Y"]
