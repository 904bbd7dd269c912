"""The derivation graph: every quantity of a recipe defined once, as a SymPy expression over
structural symbols (inputs, earlier quantities, indexed families). Its value, its formula, its
substituted line and its mistakes all come from that one expression."""

from derive.graph.node import Family, Node, Variant
from derive.graph.notation import Notation, family, notation_of, symbol

__all__ = ["Family", "Node", "Notation", "Variant", "family", "notation_of", "symbol"]
