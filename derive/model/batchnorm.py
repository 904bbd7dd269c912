"""BatchNorm in training mode on scalar features: each batch normalises with its own mean and
(biased) variance, x̂ = (x − μ_B)/√(σ²_B + ε), then y = γ·x̂ + β (torch.nn.BatchNorm1d)."""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from derive.model.linear import squared_error
from derive.model.objective import mean

gamma, beta = sp.symbols("gamma beta", real=True)


def normalize(xs, eps):
    """x̂_i for one batch, with that batch's own statistics."""
    mu = mean(xs)
    var = mean([(x - mu) ** 2 for x in xs])
    return [(x - mu) / sp.sqrt(var + eps) for x in xs]


@lru_cache(maxsize=None)
def _gamma_derivative():
    h, t = sp.symbols("xhat t", real=True)
    return sp.diff(squared_error(gamma * h + beta, t), gamma), h, t


def gamma_gradient(xs, ts, gamma_, beta_, eps):
    """∂L/∂γ of one batch's mean loss (ŷ − t)²/2, by `sympy.diff`, statistics of that batch."""
    d, h, t = _gamma_derivative()
    return mean([d.xreplace({h: hx, t: tx, gamma: gamma_, beta: beta_})
                 for hx, tx in zip(normalize(xs, eps), ts)])
