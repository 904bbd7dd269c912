"""Words of the exports in English and Chinese (rule table, apart from the renderers)."""

from __future__ import annotations

from derive.graph.words import cat
from derive.wording import short

LANGS = ("en", "zh")

WORDS = {
    "en": {
        "key": "Answer key", "quantity": "Quantity", "exact": "Exact", "decimal": "Decimal",
        "formula": "Formula", "recipe": "Recipe", "given": "Given",
        "wrong_scheme": "a wrong scheme",
        "claim": "Claim", "assumptions": "Assumptions", "proof": "Proof", "verdict": "Verdict",
        "expected": "expected", "witness": "Witness", "instances": "Course instances",
        "value": "Value", "computed": "Computed", "source": "Source", "holds_when": "Holds when",
        "derivation": "Derivation", "self_check": "Self-check", "claimed": "claimed",
        "status": "status",
        "diagnosis": "diagnosis", "rounding": "Decimals after ≈ are rounded half away from zero "
        "to {places} places; exact values are fractions.", "statement": "Statement",
        "proved": "proved", "refuted": "refuted", "unknown": "unknown", "steps": "Reasons",
        "strategy": "strategy", "zh_only": "(title in Chinese: see the --lang zh export)",
        "facts": "Facts", "checked": "checked", "notes": "Notes", "exercises": "Exercises",
        "more_members": "({count} more, computed the same way, are not shown.)",
        "key_rounding": "Exact values are integers, decimals that end within {terminating} "
        "places, or fractions; decimals are rounded half away from zero to {significant} "
        "significant digits.",
        "sizes": "Sizes (any positive integers)", "entrywise": "Decided entry by entry at",
        "shapes": "Shapes (real entries)",
        "statements": "Statements",
    },
    "zh": {
        "key": "参考答案", "quantity": "量", "exact": "精确值", "decimal": "小数",
        "formula": "公式", "recipe": "计算流程", "given": "已知", "wrong_scheme": "错误做法",
        "claim": "命题", "assumptions": "假设", "proof": "证明", "verdict": "结论",
        "expected": "预期", "witness": "反例", "instances": "课程算例", "value": "值",
        "computed": "计算值", "source": "出处", "holds_when": "成立条件",
        "derivation": "推导", "self_check": "自测", "claimed": "作者答案", "status": "状态",
        "diagnosis": "诊断",
        "rounding": "≈ 后的小数按四舍五入(远离零)保留 {places} 位;精确值为分数。",
        "statement": "命题", "proved": "已证明", "refuted": "已反驳", "unknown": "未定",
        "steps": "理由", "strategy": "方法", "zh_only": "", "facts": "事实",
        "checked": "已核验", "notes": "附注", "exercises": "练习",
        "more_members": "(其余 {count} 项按同样方法计算,此处从略。)",
        "key_rounding": "精确值为整数、{terminating} 位以内的有限小数或分数;小数按四舍五入"
        "(远离零)保留 {significant} 位有效数字。",
        "sizes": "维数(任意正整数)", "entrywise": "逐元素判定,下标", "statements": "命题",
        "shapes": "形状(实数元素)",
    },
}

STATUS = {
    "en": {"exact": "exact", "rounded": "rounded", "within": "within", "wrong": "wrong",
           "equivalent": "equivalent", "undecided": "undecided"},
    "zh": {"exact": "精确", "rounded": "舍入一致", "within": "容差内", "wrong": "错误",
           "equivalent": "等价", "undecided": "未判定"},
}


def words(lang: str) -> dict[str, str]:
    if lang not in WORDS:
        raise ValueError(f"unknown language {lang!r}; use one of {LANGS}")
    return WORDS[lang]


def in_language(pair: tuple[str, str], lang: str) -> str:
    """(English, Chinese) in the document's language: English where no Chinese is given."""
    en, zh = pair
    return zh if lang == "zh" and zh else en


def explanation(diagnosis, lang: str) -> str:
    """A diagnosis's explanation in the document's language."""
    if lang != "zh":
        return diagnosis.explanation
    formulas = getattr(diagnosis, "from_formula", ())
    names = "、".join(f"{p}(你的公式在本题数值上的值)" if p in formulas else p
                     for p in diagnosis.carried)
    if diagnosis.args and diagnosis.args[0] == "carried_rounding":
        rounded = diagnosis.args[1]
        if len(diagnosis.carried) > 1 and set(diagnosis.carried) == set(rounded):
            return (f"由舍入后分别等于你错误的 {'、'.join(diagnosis.carried)} 的值一起正确推出:"
                    "这些错误被带到了后面")
        lists = diagnosis.args[2] if len(diagnosis.args) > 2 else ()
        names = "和".join(f"一组舍入后等于你错误的 {p} 的值" if p in lists
                         else f"一个舍入后等于你错误的 {p} 的值" if p in rounded
                         else f"你错误的 {p}(你的公式在本题数值上的值)" if p in formulas
                         else f"你错误的 {p}" for p in diagnosis.carried)
        if len(diagnosis.carried) > 1:
            return f"由{names}一起正确推出:这些错误被带到了后面"
        return f"由{names}正确推出:错误被带到了后面"
    if len(diagnosis.carried) > 1:
        return f"由你错误的 {names} 一起正确推出:这些错误被带到了后面"
    if diagnosis.carried_from:
        return f"由你错误的 {names} 正确推出:错误被带到了后面"
    kind = diagnosis.args[0] if diagnosis.args else None
    if kind == "float":
        _, facts, test = diagnosis.args
        parts = ";".join((f"第 {n} 项:" if n else "") + f"{claimed} 是二进制浮点数打印出的 {right}"
                         for n, claimed, right in facts)
        write = facts[0][2] if facts[0][0] == 0 else "精确值"
        tests = ";".join((f"第 {n} 项:" if n else "") + f"{{ value = {claimed}, {test} }}"
                         for n, claimed, _ in facts)
        return (f"{parts}(与精确值相差不超过几个 ulp 的双精度数):请写 {write},"
                f"或写明检验方式:{tests}")
    if kind == "half_even":
        parts = []
        for n, claimed, exact, how, digits, away in diagnosis.args[1]:
            at = f" {digits} 位小数" if how == "places" else f" {digits} 位有效数字"
            parts.append((f"第 {n} 项:" if n else "") + f"{claimed} 是恰为中点的 {exact} 取到{at}"
                         f"时舍入到偶数位的结果;按四舍五入(远离零)应为 {away}")
        return ";".join(parts) + f"。{diagnosis.args[2]};derive 按远离零舍入"
    if kind == "shape":
        return f"答案的形状({diagnosis.args[1]})与该量({diagnosis.args[2]})不同"
    if kind == "rounded":
        _, p, places, name = diagnosis.args
        return f"计算 {name} 之前,{p} 被提前四舍五入到 {places} 位"
    if kind == "unknown":
        feeder = diagnosis.args[2] if len(diagnosis.args) > 2 else None
        first = diagnosis.first_wrong
        where = ("这是第一个错误的量" if diagnosis.args[1]
                 else f"第一个错误的量是 {first}" if feeder in (None, first)
                 else f"它所依赖的第一个错误的量是 {feeder}" if feeder
                 else f"没有更早的错误量参与它的计算(第一个错误的量 {first} 不用于计算它)")
        return f"没有已知错误给出这个值;{where}"
    if kind == "formula":
        w = dict(diagnosis.args[1])
        claimed, expected, member = w.pop("claimed"), w.pop("expected"), w.pop("member", None)
        shown = {k: v for k, v in w.items() if v != "0"} if len(w) > 6 else w
        at = ", ".join(f"{k} = {short(v)}" for k, v in shown.items())
        if len(shown) < len(w):
            at = f"{at}、其余符号为 0" if at else "所有符号为 0"
        of = f"(第 {member} 项)" if member else ""
        where = f"在 {at}{of} 处," if at else (f"对第 {member} 项," if member else "")
        named = cat(diagnosis.zh, ";") if diagnosis.mistake and diagnosis.zh else ""
        return cat(named, f"{where}公式给出 {short(claimed)},而 {diagnosis.first_wrong} 是 "
                   f"{short(expected)}")
    if kind == "undecided":  # its declared Chinese sentence (derive/exercises/undecided.py)
        return f"未判定:{diagnosis.args[-1]}"
    if kind == "near":  # a mistake offered, not named (derive.exercises.diagnosis)
        could, listed = diagnosis.args[1], diagnosis.args[2]
        return cat("与正确值只差一次笔误(一位数字写错,或舍入了两次),因此不指明错误;也可能是 ",
                   listed or cat(f"{could.mistake}:", explanation(could, "zh")))
    return diagnosis.zh or diagnosis.explanation  # each mistake carries its own Chinese

