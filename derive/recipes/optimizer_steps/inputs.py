"""Cross-input checks of `optimizer_steps`: steps and batches, and a saved state against its
optimizer (only the state torch keeps for it, and all of it), from its module's state slots."""

from __future__ import annotations

from derive.optimizers import Optimizer


def check(given):
    problems = []
    if given.get("steps") is not None and given["steps"] > MAX_STEPS:
        problems.append(("steps", f"is {given['steps']}", f"at most {MAX_STEPS} steps"))
    batches = given.get("batches")
    if batches is not None:
        if given.get("records") is not None:
            problems.append(("batches", "is given with records",
                             "give records (one batch for every step) or batches (one per "
                             "step), not both"))
        elif len(batches) > MAX_STEPS:
            problems.append(("batches", f"has {len(batches)} batches",
                             f"at most {MAX_STEPS} steps"))
        elif given.get("steps") is not None and given["steps"] != len(batches):
            problems.append(("steps", f"is {given['steps']}, but batches has {len(batches)}",
                             "one step per batch: leave steps out, or make them equal"))
    elif given.get("records") is None:
        problems.append(("records", "is missing",
                         "optimizer_steps needs records (the batch of every step) or batches "
                         "(one batch per step)"))
    problems += _check_shapes(given)
    if given.get("state") is not None and not problems:
        problems += _check_state(given)
    return problems


def _shown(v) -> str:
    return f"a list of {len(v)}" if isinstance(v, list) else "a number"


def _check_shapes(given) -> list[tuple[str, str, str]]:
    """w, every record's x and the saved state tensors of w of one shape: all numbers, or all
    vectors of w's d entries (b and its state are numbers)."""
    w = given.get("w")
    d = len(w) if isinstance(w, list) else None
    batches = given.get("batches")
    where = ([(f"batches[{k}]", b) for k, b in enumerate(batches)] if batches is not None
             else [("records", given.get("records") or [])])
    xs = [(f"{at}[{n}][0]", x) for at, records in where for n, (x, _) in enumerate(records)]
    for key, x in xs[1:]:
        first_key, first = xs[0]
        if _shown(x) != _shown(first):
            return [(key, f"is {_shown(x)}, but {first_key} is {_shown(first)}",
                     "every record's x of one shape: all numbers, or all vectors of w's "
                     "entries")]
    if xs:
        key, x = xs[0]
        if d is None and isinstance(x, list):
            return [(key, f"is {_shown(x)}, but w is a number",
                     f"write w as a vector of {len(x)} entries, or x as a number")]
        if d is not None and _shown(x) != _shown(w):
            return [("w", f"is {_shown(w)}, but {key} is {_shown(x)}",
                     "one entry of w per entry of every record's x")]
    for key, value in (given.get("state") or {}).items():
        if key == "step":
            continue
        vector = d is not None and not key.startswith("b_")
        if isinstance(value, list) != vector or (vector and len(value) != d):
            what = f"w's {d} entries" if vector else "a number"
            return [(f"state.{key}", f"is {_shown(value)}",
                     f"one value per entry of its parameter: {what}" +
                     ("" if vector or not key.startswith("b_") else " (b is a number)"))]
    return []


def state_keys(opt: Optimizer, with_b: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the keys a saved state of this optimizer must have, the keys it may have)."""
    params = ("", "b_") if with_b else ("",)
    used = opt.spec.used_slots(opt)
    keys = tuple(p + s.key for p in params for s in used)
    if not opt.spec.keeps_step:
        return (), keys
    keys = ("step",) + keys
    return keys, keys


def _check_state(given) -> list[tuple[str, str, str]]:
    """The saved state against the optimizer: only the state torch keeps for it, and all of it
    (a checkpoint holds the state of every parameter, or none)."""
    opt = given.get("optimizer") or Optimizer.make("sgd")
    spec, state = opt.spec, given["state"]
    required, allowed = state_keys(opt, given.get("b") is not None)
    kind = spec.kind_text(opt)
    for key in state:
        if key not in allowed:
            why = ("b is not given" if key.startswith("b_") and key[2:] in
                   {k.removeprefix("b_") for k in allowed} else f"{kind} keeps no {key}")
            return [(f"state.{key}", f"is not a state of this exercise ({why})",
                     f"a saved state of {kind} holds {', '.join(allowed)}" if allowed
                     else f"{kind} keeps no state: leave state out")]
    if not spec.keeps_step and state and set(state) != set(allowed):
        missing = next(k for k in allowed if k not in state)
        return [(f"state.{missing}", "is missing",
                 "torch saves the momentum buffer of every parameter, or none: give "
                 f"{' and '.join(allowed)}, or leave state out for a fresh optimizer")]
    torch_keys = ", ".join(["step"] + [s.torch_key for s in spec.used_slots(opt)])
    for key in required:
        if key not in state:
            return [(f"state.{key}", "is missing",
                     f"a saved state of {kind} holds {', '.join(required)} (torch's "
                     f"{torch_keys})")]
    if "step" in state and state["step"] > MAX_SAVED_STEP:
        return [("state.step", f"is {state['step']}",
                 f"a saved step count of at most {MAX_SAVED_STEP:,}")]
    return []


MAX_SAVED_STEP = 1000
"""Largest saved step count t_0, as many as a run may take (MAX_STEPS): β^(t_0 + t) is an
exact rational of about 10·t_0 bits for β₂ = 0.999; at t_0 = 1000 three resumed steps check in
a few seconds, at 10,000 they pass the time bound."""


MAX_STEPS = 1000
"""Most steps one exercise may ask for, Adam and AdamW included. Exact Adam values nest a
square root per step; past a few steps they stay exact as a DAG of unevaluated operations over
the earlier steps' values (derive/graph/evaluate.py: linear in the steps, where SymPy's
rewriting made them three times larger per step and capped Adam at 5 steps), and their
digits, roundings and comparisons come from certified enclosures (derive/kernel/intervals.py)."""
