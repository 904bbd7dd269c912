"""Exact arithmetic on tensors (issue 35 item 7: "measure and choose"): the forward and
backward pass of a two-layer ReLU network with a mean-squared loss, every value exact, at the
course's sizes and beyond, computed four ways in the same run:

- `derive`: what an exercise does today: derive/graph/tensor.py builds each entry's SymPy
  expression over the givens' symbols, the gradient is `sympy.diff` of the loss written out,
  then every entry is evaluated at the exact data (SymPy Rationals, `xreplace`);
- `sympy-numbers`: the same operations of tensor.py on Tensors of Rationals (no symbols, no
  diff: the backward pass written as backprop), SymPy's generic arithmetic;
- `fractions`: Python's Fraction, loops, backprop;
- `flint`: python-flint's fmpq_mat for every product, fmpq entry-wise (if installed);
- `domainmatrix`: SymPy's DomainMatrix over QQ (its ground types: python, gmpy or flint, as
  SYMPY_GROUND_TYPES says).

Every way's loss and gradient are compared for equality with the Fraction result (exact), then
timed (best of 3 in one process, CPU). Ratios are against `derive` in the same run. Data:
decimals of 4 places as torch prints them (seeded). Run: python benchmarks/tensor_exact.py.
"""

from __future__ import annotations

import random
import sys
import time
from fractions import Fraction

import sympy as sp

from derive.graph import tensor as T

SIZES = [(3, 2, 3, 2), (4, 3, 4, 3), (4, 4, 4, 3), (6, 6, 6, 3), (8, 8, 8, 4), (16, 16, 16, 8)]
"""(batch B, inputs d, hidden h, outputs C): the lesson's network first."""


def data(B, d, h, C, seed=0):
    rng = random.Random(seed)

    def dec():
        return Fraction(rng.randint(-20000, 20000), 10000)
    return {"X": [[dec() for _ in range(d)] for _ in range(B)],
            "W1": [[dec() for _ in range(d)] for _ in range(h)],
            "W2": [[dec() for _ in range(h)] for _ in range(C)],
            "Y": [[dec() for _ in range(C)] for _ in range(B)]}


# ------------------------------------------------------------------------- Fractions (reference)
def fractions(D):
    X, W1, W2, Y = D["X"], D["W1"], D["W2"], D["Y"]
    B, h, C = len(X), len(W1), len(W2)
    Z = [[sum(x * w for x, w in zip(row, wr)) for wr in W1] for row in X]
    H = [[z if z > 0 else Fraction(0) for z in r] for r in Z]
    Out = [[sum(a * w for a, w in zip(r, wr)) for wr in W2] for r in H]
    n = B * C
    loss = sum((o - y) ** 2 for ro, ry in zip(Out, Y) for o, y in zip(ro, ry)) / n
    dO = [[2 * (o - y) / n for o, y in zip(ro, ry)] for ro, ry in zip(Out, Y)]
    gW2 = [[sum(dO[b][c] * H[b][j] for b in range(B)) for j in range(h)] for c in range(C)]
    dH = [[sum(dO[b][c] * W2[c][j] for c in range(C)) for j in range(h)] for b in range(B)]
    dZ = [[dH[b][j] if Z[b][j] > 0 else Fraction(0) for j in range(h)] for b in range(B)]
    gW1 = [[sum(dZ[b][j] * X[b][i] for b in range(B)) for i in range(len(X[0]))]
           for j in range(h)]
    return loss, gW1, gW2


# ------------------------------------------------------------------------- derive today
def derive_way(D):
    names = {k: T.symbols(k, (len(v), len(v[0]))) for k, v in D.items()}
    X, W1, W2, Y = names["X"], names["W1"], names["W2"], names["Y"]
    Z = T.matmul(X, T.transpose(W1))
    Out = T.matmul(T.elementwise("relu", Z), T.transpose(W2))
    loss = T.mse_loss(Out, Y).item
    at = {s: sp.Rational(v.numerator, v.denominator)
          for k, t in names.items() for s, v in zip(t.entries,
                                                    [x for r in D[k] for x in r])}
    value = loss.xreplace(at)
    g1 = [sp.diff(loss, w).xreplace(at) for w in W1.entries]
    g2 = [sp.diff(loss, w).xreplace(at) for w in W2.entries]
    return value, _rows(g1, len(D["W1"])), _rows(g2, len(D["W2"]))


def _rows(flat, n):
    m = len(flat) // n
    return [flat[i * m:(i + 1) * m] for i in range(n)]


# ------------------------------------------------------------------------- SymPy numbers
def sympy_numbers(D):
    R = {k: T.Tensor.of([[sp.Rational(x.numerator, x.denominator) for x in r] for r in v])
         for k, v in D.items()}
    X, W1, W2, Y = R["X"], R["W1"], R["W2"], R["Y"]
    Z = T.matmul(X, T.transpose(W1))
    H = Z.map(lambda z: z if z > 0 else sp.S.Zero)
    Out = T.matmul(H, T.transpose(W2))
    n = Out.size
    loss = T.mse_loss(Out, Y).item
    dO = T.binary("*", T.binary("-", Out, Y), T.Tensor.scalar(sp.Rational(2, n)))
    gW2 = T.matmul(T.transpose(dO), H)
    dH = T.matmul(dO, W2)
    dZ = T.Tensor(Z.shape, tuple(g if z > 0 else sp.S.Zero for g, z in zip(dH.entries,
                                                                           Z.entries)))
    gW1 = T.matmul(T.transpose(dZ), X)
    return loss, gW1.nested(), gW2.nested()


# ------------------------------------------------------------------------- python-flint
def flint_way(D):
    import flint
    M = {k: flint.fmpq_mat([[flint.fmpq(x.numerator, x.denominator) for x in r] for r in v])
         for k, v in D.items()}
    X, W1, W2, Y = M["X"], M["W1"], M["W2"], M["Y"]
    Z = X * W1.transpose()
    zero = flint.fmpq(0)
    mask = [[1 if Z[i, j] > 0 else 0 for j in range(Z.ncols())] for i in range(Z.nrows())]
    H = flint.fmpq_mat([[Z[i, j] if mask[i][j] else zero for j in range(Z.ncols())]
                        for i in range(Z.nrows())])
    Out = H * W2.transpose()
    n = Out.nrows() * Out.ncols()
    E = Out - Y
    loss = sum((E[i, j] ** 2 for i in range(E.nrows()) for j in range(E.ncols())),
               zero) / n
    dO = E * flint.fmpq(2, n)
    gW2 = dO.transpose() * H
    dH = dO * W2
    dZ = flint.fmpq_mat([[dH[i, j] if mask[i][j] else zero for j in range(dH.ncols())]
                         for i in range(dH.nrows())])
    gW1 = dZ.transpose() * X
    return loss, _fmat(gW1), _fmat(gW2)


def _fmat(m):
    return [[m[i, j] for j in range(m.ncols())] for i in range(m.nrows())]


# ------------------------------------------------------------------------- DomainMatrix
def domainmatrix(D):
    from sympy.polys.domains import QQ
    from sympy.polys.matrices import DomainMatrix
    M = {k: DomainMatrix([[QQ(x.numerator, x.denominator) for x in r] for r in v],
                         (len(v), len(v[0])), QQ) for k, v in D.items()}
    X, W1, W2, Y = M["X"], M["W1"], M["W2"], M["Y"]
    Z = X * W1.transpose()
    zl = Z.to_list()
    zero = QQ(0)
    H = DomainMatrix([[z if z > 0 else zero for z in r] for r in zl], Z.shape, QQ)
    Out = H * W2.transpose()
    E = (Out - Y).to_list()
    n = Out.shape[0] * Out.shape[1]
    loss = sum((e * e for r in E for e in r), zero) / n
    dO = DomainMatrix([[2 * e / n for e in r] for r in E], Out.shape, QQ)
    gW2 = dO.transpose() * H
    dH = (dO * W2).to_list()
    dZ = DomainMatrix([[g if z > 0 else zero for g, z in zip(gr, zr)]
                       for gr, zr in zip(dH, zl)], Z.shape, QQ)
    gW1 = dZ.transpose() * X
    return loss, gW1.to_list(), gW2.to_list()


def _fraction(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, sp.Rational):
        return Fraction(int(x.p), int(x.q))
    text = str(x)  # fmpq, PythonMPQ, gmpy2.mpq print as p/q
    return Fraction(text)


def _same(a, b) -> bool:
    la, ga1, ga2 = a
    lb, gb1, gb2 = b
    flat = [(x, y) for A, B in ((ga1, gb1), (ga2, gb2)) for ra, rb in zip(A, B)
            for x, y in zip(ra, rb)]
    return _fraction(la) == _fraction(lb) and all(_fraction(x) == _fraction(y) for x, y in flat)


def best(fn, D, repeat=3) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn(D)
        out.append(time.process_time() - t0)
    return min(out)


def main() -> None:
    ways = {"derive": derive_way, "sympy-numbers": sympy_numbers, "fractions": fractions,
            "domainmatrix": domainmatrix}
    try:
        import flint
        ways["flint"] = flint_way
        print(f"python-flint {flint.__version__}")
    except ImportError:
        print("python-flint not installed: its column is left out")
    from sympy.external.gmpy import GROUND_TYPES
    print(f"sympy {sp.__version__}, ground types {GROUND_TYPES}, Python {sys.version.split()[0]}")
    for size in SIZES:
        D = data(*size)
        ref = fractions(D)
        times = {}
        for name, fn in ways.items():
            if name == "derive" and size[0] > 8:
                continue  # sympy.diff of the written-out loss: minutes at 16
            if not _same(fn(D), ref):
                raise SystemExit(f"{name} disagrees with Fractions at {size}")
            times[name] = best(fn, D)
        base = times.get("derive", times["sympy-numbers"])
        row = "  ".join(f"{n} {t * 1000:8.1f} ms ({t / base:6.3f}×)" for n, t in times.items())
        print(f"B,d,h,C = {size}: {row}")
    print("all ways equal the Fraction reference exactly")


if __name__ == "__main__":
    main()
