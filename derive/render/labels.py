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
