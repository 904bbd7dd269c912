"""Windows of K microbatches that all hold m records: the setting of the statements that say
when a wrong scheme is right (or off by a known factor).

    n_k = m for every k,  N = m·K,  ∇L_k the mean gradient of microbatch k
"""

import sympy as sp

from derive.model.objective import K, batch_objective, boundary, grad, microbatch_objective

m = sp.Symbol("m", integer=True, positive=True)


def size(_k):
    """n_k = m."""
    return m


def microbatch_gradient(k):
    """∇L_k with n_k = m."""
    return grad(microbatch_objective(k, size=size))


target = grad(batch_objective(count=boundary(K, size)))
"""∇L over N = m·K records."""
