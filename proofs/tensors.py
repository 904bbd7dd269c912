"""What the tensor statements share: their symbolic sizes and givens (each declared once), and
how an instance writes a statement's tensors out on a lesson's numbers.

Sizes are positive integer symbols, so a statement proved here holds for every size, B = 1 and
a single class included. The givens are torch's tensors as the lessons name them.
"""

import sympy as sp

from derive.graph import sized
from derive.kernel import exact
from derive.statements import equal

B, m, n, h, C, d, T = (sized.size(s) for s in ("B", "m", "n", "h", "C", "d", "T"))

# a linear layer z = W x + b, with upstream gradient δ = ∂L/∂z
W, x, b, delta = (sized.given("W", m, n), sized.given("x", n), sized.given("b", m),
                  sized.given("delta", m))
z = W @ x + b

# the same layer on a batch: Z = X Wᵀ + b, the row r of D the record r's ∂ℓ_r/∂z_r
X, D = sized.given("X", B, n), sized.given("D", B, m)
Z = X @ W.T + b

# two layers: z₁ = W₁ x + b₁ (h hidden units), ŷ = W₂ relu(z₁) + b₂, δ₂ = ∂L/∂ŷ
W1, b1 = sized.given("W_1", h, n), sized.given("b_1", h)
first = W1 @ x + b1
z1, W2, b2, delta2 = (sized.given("z_1", h), sized.given("W_2", m, h), sized.given("b_2", m),
                      sized.given("delta_2", m))
out2 = W2 @ sized.relu(z1) + b2

# logits over C classes, a target distribution y, a shift a (or m) of every logit
logits, target = sized.given("z", C), sized.given("y", C)
shift = sp.Symbol("a", real=True)
smoothing = sp.Symbol("epsilon", real=True)

# LayerNorm over n features: upstream gradient g, affine γ, β
features, upstream, gamma, beta = (sized.given("x", n), sized.given("g", n),
                                   sized.given("gamma", n), sized.given("beta", n))
ln_eps = sp.Symbol("epsilon", positive=True)

# attention: T queries and T keys of dimension d
Q, K_ = sized.given("Q", T, d), sized.given("K", T, d)


def numbers(data):
    """The lesson's printed text ("0.9674", nested lists) as exact rationals (an exact value
    already computed is kept)."""
    if isinstance(data, list):
        return [numbers(v) for v in data]
    return data if isinstance(data, sp.Basic) else exact(data)


def sizes_of(value, *dims):
    """{size symbol: its length in the nested list `value`}, dims in the order of value's axes."""
    out = {}
    for s in dims:
        out[s] = len(value)
        value = value[0]
    return out


def write_out(t, sizes, values):
    """t at the lesson's sizes and numbers (nested lists, 0-based as torch prints them)."""
    return sized.concrete(t, sizes, {k: numbers(v) for k, v in values.items()})


def rows_summed(matrix):
    return [sp.Add(*row) for row in matrix]


def sums_to_one(t, reason):
    """Σ_c t[c] = 1 (a target distribution: one-hot rows in particular), as the kernel's
    equal(): the two facts Σ_c t[c] − 1 ≥ 0 and 1 − Σ_c t[c] ≥ 0."""
    return equal(sized.reduce("sum", t, 0).item - 1, reason)
