"""The symbols every part of the course shares: the lesson's weight w, bias b and learning rate
η, each declared once here (the recipes build on them, statements print them the same way)."""

from __future__ import annotations

from derive.graph.notation import symbol

w = symbol("w", "w")
b = symbol("b", "b")
eta = symbol("eta", "eta", nonnegative=True)
