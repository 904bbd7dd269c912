"""The training-state memory ledger per card: bytes per parameter by component, ZeRO stages
as which components are sharded over the data-parallel degree D, activations per card added
unsharded, and the two units GB (10⁹ bytes) and GiB (2³⁰ bytes).

Stage 0: nothing sharded.  Stage 1: optimizer states and the master copy.
Stage 2: also gradients.   Stage 3: also parameters.

`grad_fp32_partition` is DeepSpeed's fp32 gradient partition: beside the fp16/bf16 gradients,
ZeRO stages 1 and 2 keep an fp32 copy of each card's own gradient partition
(`single_partition_of_fp32_groups[i].grad`, allocated with `partition_size[i]` elements in
deepspeed/runtime/zero/stage_1_and_2.py), so it is sharded from stage 1 on, like the master
copy it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.kernel.exact import to_expr

GB = sp.Integer(10) ** 9
GIB = sp.Integer(2) ** 30

PARAM, GRAD, MASTER = "param", "grad", "master"
GRAD_FP32_PARTITION = "grad_fp32_partition"
OPTIMIZER_STATES = ("adam_m", "adam_v", "momentum")
COMPONENTS = (PARAM, GRAD, GRAD_FP32_PARTITION, MASTER, *OPTIMIZER_STATES)

SHARDED = {
    0: frozenset(),
    1: frozenset({GRAD_FP32_PARTITION, MASTER, *OPTIMIZER_STATES}),
    2: frozenset({GRAD_FP32_PARTITION, MASTER, *OPTIMIZER_STATES, GRAD}),
    3: frozenset(COMPONENTS),
}
"""Which components a ZeRO stage divides over D."""


@dataclass(frozen=True)
class Preset:
    """A named ledger: bytes per parameter of each component, and where the figure comes from."""

    name: str
    bytes: dict
    source: str


PRESETS = {p.name: p for p in (
    Preset("mixed_adam", {PARAM: 2, GRAD: 2, MASTER: 4, "adam_m": 4, "adam_v": 4},
           "the course's 16 bytes: fp16/bf16 parameters and gradients, fp32 master copy and "
           "Adam moments (Lesson 03; the ZeRO paper's K = 12)"),
    Preset("mixed_adam_fp32_grads", {PARAM: 2, GRAD: 4, MASTER: 4, "adam_m": 4, "adam_v": 4},
           "18 bytes: mixed precision with fp32 gradients, as Hugging Face's "
           "'Model training anatomy' counts mixed-precision AdamW (6 + 4 + 8)"),
    Preset("deepspeed_zero2", {PARAM: 2, GRAD: 2, GRAD_FP32_PARTITION: 4, MASTER: 4,
                               "adam_m": 4, "adam_v": 4},
           "20 bytes: DeepSpeed's own ZeRO-2 estimate without offload, "
           "deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs: "
           "gpu_mem = 2 * total_params + int(18 * total_params / total_gpus), "
           "18 = 2 fp16 grads + 4 fp32 grads + 4 fp32 params + 8 Adam states (DeepSpeed "
           "commit f4cb866, PR #5099); at stage 2 derive gives 2P + 18P/D exactly, "
           "DeepSpeed's int() truncates it"),
    Preset("fp32_adam", {PARAM: 4, GRAD: 4, "adam_m": 4, "adam_v": 4},
           "16 bytes: fp32 parameters and gradients, Adam moments, no master copy"),
    Preset("fp32_sgd_momentum", {PARAM: 4, GRAD: 4, "momentum": 4},
           "12 bytes: fp32 SGD with a momentum buffer"),
    Preset("fp32_sgd", {PARAM: 4, GRAD: 4}, "8 bytes: fp32 SGD without momentum"),
)}
DEFAULT = PRESETS["mixed_adam"].bytes


def bytes_per_param(ledger: dict) -> sp.Expr:
    """Σ_c bytes_c: the unsharded ledger per parameter."""
    return sp.Add(*[to_expr(b) for b in ledger.values()])


def component_bytes(ledger: dict, stage: int, dp) -> dict:
    """Each component's bytes per parameter on one card: 1/D of them when the stage shards it."""
    d = to_expr(dp)
    return {c: to_expr(b) / d if c in SHARDED[stage] else to_expr(b) for c, b in ledger.items()}


def card_bytes_per_param(ledger: dict, stage: int, dp) -> sp.Expr:
    """Bytes per parameter held on one card: Σ_c of `component_bytes`."""
    return sp.Add(*component_bytes(ledger, stage, dp).values())


def state_bytes(params, ledger: dict, stage: int = 0, dp=1) -> sp.Expr:
    """Training-state bytes per card: P · Σ_c bytes_c / (D if sharded)."""
    return to_expr(params) * card_bytes_per_param(ledger, stage, dp)


def total_gib(params, ledger: dict, stage: int, dp, activation_gib) -> sp.Expr:
    """State per card in GiB plus the activations per card, which are never divided by D."""
    return state_bytes(params, ledger, stage, dp) / GIB + to_expr(activation_gib)
