"""linear-batch-gradient — over a batch with mean reduction, ∂L/∂W = (1/B) Σ_r δ_r x_rᵀ.

    Z = X Wᵀ + b,  L = (1/B) Σ_r ℓ_r(z_r),  D[r] = ∂ℓ_r/∂z_r:
    (1/B) Σ_r Σ_i D[r, i] ∂Z[r, i]/∂W[p, q] = (1/B) Σ_r D[r, p]·X[r, q]
"""

from derive.graph import sized
from derive.statements import PROVED, Instance, Rounded, Statement, calc

from .lessons_data import LINB_B, LINB_B_GW
from .linear_weight_gradient import lin_delta
from .tensors import B, D, W, X, Z, m, n, numbers, sizes_of

mean_gradient = sized.backward(D, Z, W) / B
lhs, rhs, (p, q), facts = sized.entrywise(mean_gradient, (D.T @ X) / B)


def linb_b():
    """Each record's δ_r = ∂ mse_loss(z_r, y_r)/∂z_r (mse_loss over the B·m entries is the
    mean over records of the per-record mse), then (1/B) Σ_r δ_r x_rᵀ."""
    rows = [lin_delta({"W": LINB_B["W"], "x": xr, "b": LINB_B["b"], "y": yr})
            for xr, yr in zip(LINB_B["X"], LINB_B["Y"])]
    sizes = {**sizes_of(LINB_B["X"], B, n), m: len(LINB_B["W"])}
    return {"∂L/∂W": sized.concrete((D.T @ X) / B, sizes,
                                    {"D": rows, "X": numbers(LINB_B["X"])})}


STATEMENT = Statement(
    id="linear-batch-gradient",
    title="Over a batch with mean reduction, ∂L/∂W = (1/B) Σ_r δ_r x_rᵀ",
    title_zh="批均值损失下,∂L/∂W = (1/B) Σ_r δ_r x_rᵀ",
    expect=PROVED,
    claim="Z = X Wᵀ + b, L = (1/B) Σ_r ℓ_r(z_r), D[r] = ∂ℓ_r/∂z_r: "
          "∂L/∂W[p, q] = (1/B) Σ_r D[r, p]·X[r, q]",
    assumptions=(
        "X is B×n (one record per row), W m×n, b an m-vector, for any B, m, n ≥ 1",
        "L = (1/B) Σ_r ℓ_r, each ℓ_r depending on W only through z_r = W x_r + b (chain rule "
        "as the lhs); the per-record δ_r = ∂ℓ_r/∂z_r are the given rows of D",
        "entry (p, q) with 1 ≤ p ≤ m, 1 ≤ q ≤ n",
    ),
    lhs=lhs,
    rhs=rhs,
    facts=facts,
    proof=calc(
        lhs,
        (rhs, "∂Z[r, i]/∂W[p, q] = δ(i, p)·X[r, q]; the Σ over i keeps i = p (1 ≤ p ≤ m), "
              "for every record r"),
    ),
    instances=(
        Instance(
            label="a batch of 3, W 2×2 of linb-b; δ_r = ∂ mse(z_r, y_r)/∂z_r",
            source="lessons 05–07 bank, linb-b (torch float64, 4 places)",
            compute=linb_b,
            expected={"∂L/∂W": [[Rounded(v) for v in row] for row in LINB_B_GW]},
        ),
    ),
)
