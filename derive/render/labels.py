"""Words of the exports in English and Chinese (rule table, apart from the renderers)."""

from __future__ import annotations

LANGS = ("en", "zh")

WORDS = {
    "en": {
        "key": "Answer key", "quantity": "Quantity", "exact": "Exact", "decimal": "Decimal",
        "formula": "Formula", "recipe": "Recipe", "given": "Given", "wrong_scheme": "a wrong scheme",
        "claim": "Claim", "assumptions": "Assumptions", "proof": "Proof", "verdict": "Verdict",
        "expected": "expected", "witness": "Witness", "instances": "Course instances",
        "value": "Value", "computed": "Computed", "source": "Source", "holds_when": "Holds when",
        "derivation": "Derivation", "claimed": "claimed", "status": "status",
        "diagnosis": "diagnosis", "rounding": "Decimals after ≈ are rounded half away from zero "
        "to {places} places; exact values are fractions.", "statement": "Statement",
        "proved": "proved", "refuted": "refuted", "unknown": "unknown", "steps": "Reasons",
        "strategy": "strategy", "zh_only": "(title in Chinese: see the --lang zh export)",
        "facts": "Facts", "checked": "checked", "notes": "Notes", "exercises": "Exercises",
        "more_members": "({count} more, computed the same way, are not shown.)",
    },
    "zh": {
        "key": "参考答案", "quantity": "量", "exact": "精确值", "decimal": "小数",
        "formula": "公式", "recipe": "配方", "given": "已知", "wrong_scheme": "错误做法",
        "claim": "命题", "assumptions": "假设", "proof": "证明", "verdict": "结论",
        "expected": "预期", "witness": "反例", "instances": "课程算例", "value": "值",
        "computed": "计算值", "source": "出处", "holds_when": "成立条件",
        "derivation": "推导", "claimed": "作者答案", "status": "状态", "diagnosis": "诊断",
        "rounding": "≈ 后的小数按四舍五入(远离零)保留 {places} 位;精确值为分数。",
        "statement": "命题", "proved": "已证明", "refuted": "已反驳", "unknown": "未定",
        "steps": "理由", "strategy": "方法", "zh_only": "", "facts": "事实",
        "checked": "已核验", "notes": "附注", "exercises": "练习",
        "more_members": "(其余 {count} 项按同样方法计算,此处从略。)",
    },
}

STATUS = {
    "en": {"exact": "exact", "rounded": "rounded", "within": "within", "wrong": "wrong"},
    "zh": {"exact": "精确", "rounded": "舍入一致", "within": "容差内", "wrong": "错误"},
}


def words(lang: str) -> dict[str, str]:
    if lang not in WORDS:
        raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")
    return WORDS[lang]


MISTAKES_ZH = {
    # accumulation (sgd_step's mistakes carry their own Chinese)
    "w_new_sign": "更新方向反了: w + η·g",
    "mean_of_means": "1/K 错误:各微批均值直接等权平均",
    "sum_of_means": "微批均值直接相加,没有除",
    "w_new_mean_of_means": "用均值的均值做的更新",
    "w_new_sum_of_means": "用未除的和做的更新",
    "w_micro_steps": "每个微批后都更新得到的 w(另一条轨迹)",
    "divisor_gradient": "微批均值之和除以固定分母 d(尾部窗口仍按计划个数除)",
    "w_new_divisor": "用固定分母的梯度做的更新",
    "weights_by_records": "目标是 token 均值,却按记录数加权 n_k/N",
    "weights_one_over_k": "每个微批都取 1/K",
    "gradient_by_records": "目标是 token 均值,却按记录数加权",
    "microbatch_gradient_sums": "微批梯度和,没有除以 n_k",
    # memory
    "state_gb_as_gib": "把 GB(10⁹ 字节)当成 GiB(2³⁰ 字节)",
    "state_gib_as_gb": "把 GiB(2³⁰ 字节)当成 GB(10⁹ 字节)",
    "activations_divided_by_dp": "激活也除以了数据并行度 D",
    "total_gib_unsharded": "没有按阶段分片:用了阶段 0 的状态",
    "total_in_gb": "GB 的状态加上 GiB 的激活",
}
"""The diagnosis's known mistakes in Chinese (names as in the JSON `diagnosis`)."""


def explanation(diagnosis, lang: str) -> str:
    """A diagnosis's explanation in the document's language."""
    if lang != "zh":
        return diagnosis.explanation
    if diagnosis.carried_from:
        return f"由你错误的 {diagnosis.carried_from} 正确推出:错误被带到了后面"
    kind = diagnosis.args[0] if diagnosis.args else None
    if kind == "shape":
        return f"答案的形状({diagnosis.args[1]})与该量({diagnosis.args[2]})不同"
    if kind == "rounded":
        _, p, places, name = diagnosis.args
        return f"计算 {name} 之前,{p} 被提前四舍五入到 {places} 位"
    if kind == "unknown":
        where = "这是第一个错误的量" if diagnosis.args[1] else \
            f"第一个错误的量是 {diagnosis.first_wrong}"
        return f"没有已知错误给出这个值;{where}"
    return diagnosis.zh or MISTAKES_ZH.get(diagnosis.mistake, diagnosis.explanation)
