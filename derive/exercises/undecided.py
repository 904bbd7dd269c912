"""Why a formula answer is `undecided`, in one sentence a reader can act on: what derive tried,
and which fact or bound would decide it (issue 34). Every reason is declared here once, in
English and in Chinese; a reason's fields are numbers, the quantity's name, and at most a short
piece of math in the reader form (derive/graph/reader.py) — never a SymPy expression or a
normal form (a 600-character normal form was once printed as the reason).

`tests/test_undecided_reasons.py` fills every declaration and holds each to one sentence of at
most 200 characters without SymPy's names."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from derive.exercises.claims import UNDECIDED, judge
from derive.graph.reader import formula_reader
from derive.kernel import intervals
from derive.kernel.reader import NotWritable


@dataclass(frozen=True)
class Reason:
    """One declared reason: its English and Chinese sentence, with {fields}."""

    en: str
    zh: str


REASONS: dict[str, Reason] = {
    "members_unknown": Reason(
        "derive could not work out how many members {name} has from the givens, so the "
        "formula was not compared; claiming its values would decide it",
        "无法从已知量算出 {name} 有多少项,因此没有比较公式;改为给出它的值即可判定"),
    "too_many_members": Reason(
        "{name} has {size} members and a formula is compared on at most {most}; claiming its "
        "values, or fewer records, would decide it",
        "{name} 有 {size} 项,而公式最多在 {most} 项上比较;改为给出它的值或减少记录即可判定"),
    "too_large": Reason(
        "writing the formula out on this exercise's values passed derive's bound on one "
        "computation; smaller givens or fewer steps would decide it",
        "在本题数值上展开公式超出了 derive 单次计算的上限;更小的已知量或更少的步数即可判定"),
    "no_form": Reason(
        "{name} has no symbolic form on this exercise's values that the formula could be "
        "compared with; claiming its value would decide it",
        "{name} 在本题数值上没有可与公式比较的符号形式;改为给出它的值即可判定"),
    "too_deep": Reason(
        "the formula is nested too deeply to compare once written out; a shorter formula, or "
        "its value, would decide it",
        "公式展开后嵌套过深,无法比较;更短的公式或直接给出值即可判定"),
    "kink": Reason(
        "{name} is a derivative through a kink (relu, clamp, max or min), which derive takes "
        "at this exercise's values only; claiming its value would decide it",
        "{name} 是经过折点(relu、clamp、max 或 min)的导数,derive 只在本题数值处求它;"
        "改为给出它的值即可判定"),
    "expansion": Reason(
        "expanding the formula could give more than {terms} terms, and no point tried makes it "
        "differ; a formula closer to {name}'s own form would decide it",
        "展开公式可能超过 {terms} 项,且所试的点都没有使它不同;写得更接近 {name} 原式的公式"
        "即可判定"),
    "time": Reason(
        "the kernel reached the formula's time bound of {seconds} s of CPU time with neither a "
        "proof nor a witness; a longer --time-limit may decide it",
        "在公式的时间上限 {seconds} 秒(CPU 时间)内既未证明也未找到反例;更长的 --time-limit "
        "可能判定"),
    "beyond": Reason(
        "comparing the formula needs a step beyond the kernel's bounds (an expansion or a "
        "degree too large); claiming its value would decide it",
        "比较公式需要超出内核上限的步骤(展开或次数过大);改为给出它的值即可判定"),
    "sign": Reason(
        "the kernel's normal form of the difference still depends on the sign of {sign} and "
        "no point tried makes the two sides differ; a fact giving that sign may decide it",
        "内核化简后两边之差仍取决于 {sign} 的符号,所试的点也都没有使两边不同;给出该符号的事实"
        "可能判定"),
    "open": Reason(
        "the kernel's normal form of the difference is not 0 and no point tried makes the two "
        "sides differ; a fact about the symbols (a sign or a range) may decide it",
        "内核化简后两边之差不为 0,所试的点也都没有使两边不同;关于符号的事实(符号或范围)"
        "可能判定"),
    "general_failed": Reason(
        "too many records to write the formula out, and it could not be compared for general "
        "sizes either; claiming its value would decide it",
        "记录太多,无法逐项展开公式,也无法按一般大小比较;改为给出它的值即可判定"),
    "general_witness": Reason(
        "too many records to write the formula out; for general sizes it differs from {name} "
        "at some size, which may not be this exercise's, so its value would decide it",
        "记录太多,无法逐项展开公式;按一般大小它在某个大小上与 {name} 不同,但未必是本题的"
        "大小,给出它的值即可判定"),
    "general_open": Reason(
        "too many records to write the formula out, and for general sizes the kernel found "
        "neither a proof nor a witness; claiming its value would decide it",
        "记录太多,无法逐项展开公式;按一般大小既未证明也未找到反例;改为给出它的值即可判定"),
    "no_time": Reason(
        "the exercise's time bound (--time-limit) left no time for this formula; a longer "
        "--time-limit would decide it",
        "本题的时间上限(--time-limit)没有给这条公式留下时间;更长的 --time-limit 即可判定"),
    # a number claimed for a value that is not rational (derive/exercises/claims.py)
    "equal_open": Reason(
        "certified enclosures of up to {bits} bits contain the claimed value and no exact zero "
        "test shows the difference is 0; a claim with a tolerance (abs = …) would decide it",
        "最多 {bits} 位的可靠区间都包含所写的值,精确的零检验也未显示差为 0;写明容差"
        "(abs = …)即可判定"),
    "rounding_open": Reason(
        "the value lies too near a rounding boundary for certified enclosures of up to {bits} "
        "bits to settle its rounding; a claim with a tolerance (abs = …) would decide it",
        "该值离舍入边界太近,最多 {bits} 位的可靠区间无法确定它的舍入;写明容差(abs = …)"
        "即可判定"),
    "tolerance_open": Reason(
        "certified enclosures of up to {bits} bits do not settle whether the value is within "
        "the claim's tolerance; a looser or tighter tolerance may decide it",
        "最多 {bits} 位的可靠区间无法确定该值是否在所写容差之内;放宽或收紧容差可能判定"),
}
"""Every reason a claim (a formula answer, or a number for an irrational value) can be
undecided for, by key."""


@dataclass(frozen=True)
class Undecided:
    """A declared reason with its fields filled: `say(lang)` is its sentence."""

    key: str
    fields: tuple[tuple[str, str], ...] = ()

    def say(self, lang: str = "en") -> str:
        reason = REASONS[self.key]
        return (reason.zh if lang == "zh" else reason.en).format(**dict(self.fields))

    def __str__(self) -> str:
        return self.say("en")


def because(key: str, **fields) -> Undecided:
    """The reason `key` (declared in REASONS) with its fields, as text."""
    if key not in REASONS:
        raise KeyError(f"undeclared reason {key!r}")
    return Undecided(key, tuple((k, str(v)) for k, v in fields.items()))


SIGN_CHARS = 40
"""Longest piece of math a reason quotes (the argument whose sign is left open)."""

_SIGNED = (sp.Abs, sp.sign, sp.Heaviside)


def left_open(residual: sp.Basic | None) -> Undecided:
    """What a difference the kernel could neither reduce to 0 nor refute still depends on: the
    sign of the first |u|, sign(u) or step [u > 0] in it (u in the reader form, when short),
    else a fact in general. Never the difference itself."""
    if residual is not None:
        for a in sp.preorder_traversal(residual):
            if isinstance(a, _SIGNED) and a.args and a.args[0].free_symbols:
                try:
                    u = formula_reader(a.args[0], {})
                except NotWritable:
                    continue
                if len(u) <= SIGN_CHARS:
                    return because("sign", sign=u)
    return because("open")


def number_left_open(claim, expected) -> Undecided:
    """Why a number claimed for a value that is not rational is undecided, from the test of
    its first undecided element: an exact comparison, a rounding, or a tolerance."""
    if claim.is_list:
        for c, e in zip(claim.value, expected):
            if judge(c, e) == UNDECIDED:
                return number_left_open(c, e)
    bits = f"{intervals.MAX_BITS:,}"
    if claim.test in ("rel", "abs"):
        return because("tolerance_open", bits=bits)
    if claim.test in ("places", "sig") or claim.places is not None:
        return because("rounding_open", bits=bits)
    return because("equal_open", bits=bits)
