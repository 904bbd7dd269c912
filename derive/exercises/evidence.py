"""The rule of evidence (docs/diagnosis.md, "The rule of evidence"): when the diagnosis of a
wrong claim names a known mistake, when it lists a tie, when it only offers one.

derive names a mistake only when no other candidate it knows gives the same value. Candidates
that fit equally are all given (a tie: "a (…) or b (…)", none named), the author's declared
mistakes first, then the course's own (the recipes' mistakes and wrong schemes, the mutations
that are a mistake the course teaches), then the generic edits of a derivation (two givens or
columns swapped, a factor dropped, a sign changed, …). A generic edit that alone fits is
offered, not named, unless the same edit also fits another wrong claim of the exercise (it is
then corroborated, and named). Each candidate's words come with it, in English and Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass

from derive.graph.words import Quoted, Words, cat

NAMED, TIED, OFFERED = "named", "tied", "offered"
"""A diagnosis's certainty: one mistake named; several that fit equally, listed; one offered
as a possibility."""

DECLARED, COURSE, GENERIC = "declared", "course", "generic"
ORIGINS = (DECLARED, COURSE, GENERIC)
"""Where a known mistake comes from (a recipe `Mistake`'s `origin`), in the order candidates
are listed: the author's declared mistakes, the course's own, the generic edits."""


@dataclass(frozen=True)
class Fit:
    """A known mistake that gives the claimed value, with its words and facts."""

    name: str
    en: str
    zh: str = ""
    origin: str = COURSE
    details: dict | None = None


def weigh(fits, corroborated=frozenset()) -> tuple[str, tuple[Fit, ...]] | None:
    """(certainty, the fits in the order they are listed) or None when nothing fits: several
    fits are a tie; one generic edit is offered unless `corroborated` (the names that also fit
    another wrong claim of the exercise) holds it; else the one fit is named."""
    if not fits:
        return None
    ordered = tuple(sorted(fits, key=lambda f: ORIGINS.index(f.origin)))  # stable
    if len(ordered) > 1:
        return TIED, ordered
    if ordered[0].origin == GENERIC and ordered[0].name not in corroborated:
        return OFFERED, ordered
    return NAMED, ordered


def said(f: Fit, lang: str = "en") -> Words:
    """A fit's words in `lang` (English where it has no Chinese), with their math; an author's
    declared words are quoted text, never math (derive.graph.words)."""
    text = f.zh if lang == "zh" and f.zh else f.en
    return cat(Quoted(str(text))) if f.origin == DECLARED else cat(text)


def listed(fits: tuple[Fit, ...], lang: str = "en") -> Words:
    """The fits as alternatives, each with its words: "a (…) or b (…)", or "a: …" for one."""
    if len(fits) == 1:
        return cat(fits[0].name, ":" if lang == "zh" else ": ", said(fits[0], lang))
    sep, last = ("、", " 或 ") if lang == "zh" else (", ", " or ")
    parts = [cat(f.name, "(", said(f, lang), ")") if lang == "zh"
             else cat(f.name, " (", said(f, lang), ")") for f in fits]
    head = [x for n, p in enumerate(parts[:-1]) for x in ((sep, p) if n else (p,))]
    return cat(*head, last, parts[-1])


def words(certainty: str, fits: tuple[Fit, ...]) -> tuple[Words, Words]:
    """(English, Chinese) of a tie or an offer."""
    if certainty == TIED:
        return (cat(f"{len(fits)} known mistakes give this value, so none is named: ",
                    listed(fits)),
                cat(f"{len(fits)} 个已知错误都给出这个值,因此不指明其中之一:", listed(fits, "zh")))
    return (cat("could be ", listed(fits), " (a generic edit that alone fits this value, and "
                "no other wrong claim of the exercise confirms it: offered, not named)"),
            cat("可能是 ", listed(fits, "zh"),
                "(一个通用的改动恰好给出这个值,本题没有其他错误答案印证它:只作提示,不指明)"))
