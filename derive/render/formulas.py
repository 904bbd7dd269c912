"""Numbers substituted into the course's formulas (rule table: quantity → template).

A template receives `v`, the exercise's values as LaTeX fragments (`v.w`, `v.lr`, `v.gradient`,
lists such as `v.microbatch_mean_gradients`), and returns the substituted right-hand side; the
symbolic side is the recipe's own formula text. Quantities without a template show their
formula and their value only.
"""

from __future__ import annotations

from derive.render.latex import Tex, add, frac, mul, number, paren, power, sub


class Values:
    """Exact values of inputs and quantities as LaTeX fragments, looked up by name."""

    def __init__(self, given: dict, values: dict):
        self._given, self._values = given, values

    def given(self, name: str):
        """An input, even where a quantity has the same name (`loss` in sgd_step)."""
        return self._given.get(name)

    def raw(self, name: str):
        if name in self._values:
            return self._values[name]
        return self._given.get(name)

    def __getattr__(self, name: str):
        raw = self.raw(name)
        if raw is None:
            raise KeyError(name)
        if isinstance(raw, (list, tuple)):
            return [number(r) if not isinstance(r, (list, tuple)) else None for r in raw]
        return number(raw)


def _one_record(v: Values):
    records = v.raw("records")
    if len(records) != 1:
        raise KeyError("records")
    x, y = records[0]
    return number(x), number(y)


def _half(v: Values) -> bool:
    return (v.given("loss") or "half") == "half"


def _loss(v: Values, prediction: Tex) -> Tex:
    _, y = _one_record(v)
    square = power(sub(prediction, y), Tex("2"))
    return mul(frac(Tex("1"), Tex("2")), square) if _half(v) else square


def _prediction(v: Values, w: Tex, b: str) -> Tex:
    x, _ = _one_record(v)
    return add(mul(w, x), getattr(v, b)) if v.raw("b") is not None else mul(w, x)


def _scalar_list(v: Values, name: str) -> list[Tex]:
    items = getattr(v, name)
    if any(i is None for i in items):
        raise KeyError(name)
    return items


def _step(v: Values, g: str) -> Tex:
    return sub(v.w, mul(v.lr, getattr(v, g)))


SGD_STEP = {
    "prediction": lambda v: _prediction(v, v.w, "b"),
    "loss": lambda v: _loss(v, v.prediction),
    "gradient": lambda v: mul(sub(v.prediction, _one_record(v)[1]), _one_record(v)[0])
    if _half(v) else mul(Tex("2"), sub(v.prediction, _one_record(v)[1]), _one_record(v)[0]),
    "b_gradient": lambda v: sub(v.prediction, _one_record(v)[1])
    if _half(v) else mul(Tex("2"), sub(v.prediction, _one_record(v)[1])),
    "w_new": lambda v: _step(v, "gradient"),
    "b_new": lambda v: sub(v.b, mul(v.lr, v.b_gradient)),
    "prediction_new": lambda v: _prediction(v, v.w_new, "b_new"),
    "loss_new": lambda v: _loss(v, v.prediction_new),
}


def _weighted(v: Values, weights: str, values: str) -> Tex:
    return add(*[mul(a, g) for a, g in zip(_scalar_list(v, weights), _scalar_list(v, values))])


def _scaled_sum(v: Values, scale: Tex) -> Tex:
    return mul(scale, paren(add(*_scalar_list(v, "microbatch_mean_gradients"))))


ACCUMULATION = {
    "gradient": lambda v: _weighted(v, "weights", "microbatch_mean_gradients"),
    "mean_of_means": lambda v: _scaled_sum(
        v, frac(Tex("1"), Tex(str(len(v.raw("microbatch_mean_gradients")))))),
    "sum_of_means": lambda v: add(*_scalar_list(v, "microbatch_mean_gradients")),
    "divisor_gradient": lambda v: _scaled_sum(v, frac(Tex("1"), v.divisor)),
    "w_new": lambda v: _step(v, "gradient"),
    "w_new_mean_of_means": lambda v: _step(v, "mean_of_means"),
    "w_new_sum_of_means": lambda v: _step(v, "sum_of_means"),
    "w_new_divisor": lambda v: _step(v, "divisor_gradient"),
}


TEMPLATES = {"sgd_step": SGD_STEP, "accumulation": ACCUMULATION}


def substituted(recipe: str, name: str, values: Values) -> Tex | None:
    """The formula of `name` with the exercise's numbers, or None where none applies."""
    template = TEMPLATES.get(recipe, {}).get(name)
    if template is None:
        return None
    try:
        tex = template(values)
    except (KeyError, AttributeError, TypeError):  # a list where the template needs a number
        return None
    return tex if isinstance(tex, Tex) else None
