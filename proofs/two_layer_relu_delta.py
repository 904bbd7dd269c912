"""two-layer-relu-delta — back through a ReLU layer: δ₁ = (W₂ᵀ δ₂) ⊙ 1[z₁ > 0].

    ŷ = W₂ relu(z₁) + b₂,  δ₂ = ∂L/∂ŷ:
    Σ_i (δ₂)_i ∂ŷ_i/∂z₁[p] = (W₂ᵀ δ₂)_p · 1[(z₁)_p > 0]   wherever no entry of z₁ is 0
"""

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc, every, nonzero

from .lessons_data import MLP_B, MLP_B_GB1
from .tensors import W2, delta2, first, h, m, n, numbers, out2, write_out, z1

mask = sized.compare(">", z1, sized.scalar(sized.sp.S.Zero))
lhs, rhs, (p,), facts = sized.entrywise(sized.backward(delta2, out2, z1), (W2.T @ delta2) * mask)
j = sized.index("j")
no_kink = (every(nonzero(z1[j], "no hidden pre-activation is at ReLU's kink"), (j, 1, h)),)


def bias_gradient(data):
    """∂L/∂b₁ = (1/B)·Σ_r (δ₁)_r (∂z₁/∂b₁ is the identity), with the record r's
    (δ₁)_r = (W₂ᵀ (δ₂)_r) ⊙ 1[(z₁)_r > 0] and (δ₂)_r = ∂ mse(ŷ_r, y_r)/∂ŷ_r: mse_loss over B
    records of one output is (1/B) Σ_r ℓ_r."""
    sizes = {h: len(data["W1"]), n: len(data["X"][0]), m: len(data["W2"])}
    layers = {"W_1": data["W1"], "b_1": data["b1"], "W_2": data["W2"], "b_2": data["b2"]}
    yhat, y = sized.given("yhat", m), sized.given("y", m)
    rows = []
    for xr, yr in zip(data["X"], data["Y"]):
        zr = write_out(first, sizes, {**layers, "x": xr})
        d2 = sized.concrete(sized.grad(sized.mse_loss(yhat, y), yhat), sizes,
                            {"yhat": write_out(out2, sizes, {**layers, "z_1": zr}),
                             "y": numbers(yr)})
        rows.append(sized.concrete((W2.T @ delta2) * mask, sizes,
                                   {"W_2": numbers(data["W2"]), "delta_2": d2, "z_1": zr}))
    return {"∂L/∂b₁": [sum(col) / len(rows) for col in zip(*rows)]}


STATEMENT = Statement(
    id="two-layer-relu-delta",
    title="Back through a ReLU layer: δ₁ = (W₂ᵀ δ₂) ⊙ 1[z₁ > 0], no pre-activation at 0",
    title_zh="经过 ReLU 层反向传播:δ₁ = (W₂ᵀ δ₂) ⊙ 1[z₁ > 0](预激活不为 0)",
    expect=PROVED,
    claim="ŷ = W₂ relu(z₁) + b₂, δ₂ = ∂L/∂ŷ: Σ_i (δ₂)_i ∂ŷ_i/∂z₁[p] = (W₂ᵀ δ₂)_p · 1[(z₁)_p > 0]",
    assumptions=(
        "W₂ is m×h, z₁ an h-vector of pre-activations, b₂ an m-vector, for any m, h ≥ 1",
        "L depends on z₁ only through ŷ (chain rule as the lhs); δ₂ = ∂L/∂ŷ a given vector",
        "no entry of z₁ is 0, so relu is differentiable at every entry (the kink is its own "
        "statement, relu-kink-convention)",
        "entry p with 1 ≤ p ≤ h",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts + no_kink,
    proof=calc(
        lhs,
        (rhs, "∂ŷ_i/∂z₁[p] = W₂[i, p]·relu′((z₁)_p), relu′(u) = 1[u > 0] for u ≠ 0; the Σ over "
              "the hidden units keeps j = p"),
    ),
    instances=(
        Instance(
            label="the two-layer network of mlp-b, batch of 2: ∂L/∂b₁ = mean of the δ₁ rows",
            source="lessons 05–07 bank, mlp-b (torch float64, 4 places)",
            compute=lambda: bias_gradient(MLP_B),
            expected={"∂L/∂b₁": [Rounded(v) for v in MLP_B_GB1]},
        ),
    ),
)
