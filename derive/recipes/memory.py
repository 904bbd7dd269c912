"""`memory`: the training-state memory ledger per card (Lesson 03's "16 bytes per parameter"
and the ZeRO stages), exact in bytes, GB (10⁹) and GiB (2³⁰)."""

from __future__ import annotations

import sympy as sp

from derive.model import memory as m
from derive.recipes.base import Input, Mistake, Quantity, Recipe


def _ledger(c):
    if c.has("bytes"):
        return c.given["bytes"]
    if c.has("preset"):
        return m.PRESETS[c.given["preset"]].bytes
    return m.DEFAULT


def _stage(c):
    return int(c.given["stage"]) if c.has("stage") else 0


def _dp(c):
    return c.given["dp"] if c.has("dp") else sp.Integer(1)


def _activations(c):
    return c.given["activation_gib"] if c.has("activation_gib") else sp.S.Zero


QUANTITIES = (
    Quantity("bytes_per_param", "the ledger's bytes per parameter, unsharded", "Σ_c bytes_c",
             lambda c: m.bytes_per_param(_ledger(c)), zh="每参数字节"),
    Quantity("card_bytes_per_param", "bytes per parameter held on one card at this stage",
             "Σ_c bytes_c / (D if sharded)",
             lambda c: m.card_bytes_per_param(_ledger(c), _stage(c), _dp(c)),
             zh="每卡每参数字节"),
    Quantity("state_bytes", "training-state bytes per card", "P · card bytes per parameter",
             lambda c: c["params"] * c["card_bytes_per_param"], zh="每卡状态字节"),
    Quantity("state_gb", "the state in GB (10⁹ bytes)", "state_bytes / 10⁹",
             lambda c: c["state_bytes"] / m.GB, zh="状态 GB"),
    Quantity("state_gib", "the state in GiB (2³⁰ bytes)", "state_bytes / 2³⁰",
             lambda c: c["state_bytes"] / m.GIB, zh="状态 GiB"),
    Quantity("total_gib", "state plus activations per card, in GiB (activations not divided "
             "by D)", "state_gib + activation_gib",
             lambda c: c["state_gib"] + _activations(c), zh="合计 GiB"),
)

MISTAKES = (
    Mistake("state_gb_as_gib", "state_gib", "the state in GB written as GiB (10⁹ for 2³⁰)",
            lambda c: c["state_gb"]),
    Mistake("state_gib_as_gb", "state_gb", "the state in GiB written as GB (2³⁰ for 10⁹)",
            lambda c: c["state_gib"]),
    Mistake("activations_divided_by_dp", "total_gib", "the activations divided by D too",
            lambda c: c["state_gib"] + _activations(c) / _dp(c)),
    Mistake("total_gib_unsharded", "total_gib", "the stage-0 state: no sharding applied",
            lambda c: m.state_bytes(c["params"], _ledger(c)) / m.GIB + _activations(c)),
    Mistake("total_in_gb", "total_gib", "GB state plus GiB activations",
            lambda c: c["state_gb"] + _activations(c)),
)


def check(given):
    problems = []
    if given.get("bytes") is not None and given.get("preset") is not None:
        problems.append(("bytes", "is given together with preset", "give one of them"))
    stage = given.get("stage")
    if stage is not None and stage not in (0, 1, 2, 3):
        problems.append(("stage", f"is {stage}", "a ZeRO stage is 0, 1, 2 or 3"))
    return problems


RECIPE = Recipe(
    name="memory",
    title="The training-state memory ledger per card (ZeRO stages, GB and GiB)",
    doc=__doc__,
    inputs=(
        Input("params", "count", "P, the number of parameters (2e9 is fine)"),
        Input("bytes", "ledger", "bytes per parameter by component: param, grad, master, "
              "adam_m, adam_v, momentum (default: the course's 2 + 2 + 4 + 4 + 4)",
              required=False),
        Input("preset", "preset", "a named ledger instead of bytes: " + ", ".join(m.PRESETS),
              required=False),
        Input("stage", "stage", "ZeRO stage 0, 1, 2 or 3 (default 0)", required=False),
        Input("dp", "count", "the data-parallel degree D (default 1)", required=False),
        Input("activation_gib", "nonnegative", "activations per card in GiB (default 0; never "
              "divided by D)", required=False),
    ),
    quantities=QUANTITIES,
    mistakes=MISTAKES,
    check=check,
)
