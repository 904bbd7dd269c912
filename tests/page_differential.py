"""The self-check page against `derive check`: a differential test's support (not a test file).

A "student" types a sequence of answers into one exercise's questions, in order, each checked in
turn (answers to earlier questions carry forward). The page's verdict for each answer comes from
the page's own script (the one embedded in the exported HTML), run in QuickJS; the oracle is
`derive check` on an exercise file with the same exercise whose claims are the typed answers.
Per answer both give (verdict, named mistake or None, carried-forward sources or None); any
difference is a disagreement, of one of three kinds:

- `names`: the page names a mistake or a carried source that derive does not (the serious kind);
- `silent`: the page names nothing where derive names something;
- `verdict`: holds / wrong / undecided differ (garbage: the page must say "not a number").

Typed values are computed from the page's exact values with Fractions (round half away from
zero, half to even, float reprs, digits changed), never from derive's output; the values that
follow from a wrong earlier answer are computed with derive's Context as a generator only: the
expected verdict is always derive check's.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import time
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import sympy as sp

ROOT = Path(__file__).resolve().parent.parent

# --------------------------------------------------------------------------- pages

COURSE = sorted(p for p in (ROOT / "proofs" / "course").glob("*.toml")
                if p.name != "derive.toml")  # the bank's settings, no exercise
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*.toml"))
BANK24 = sorted(p for p in (ROOT / "benchmarks" / "bank24").glob("*.toml")
                if p.name != "intended.toml")
HELDOUT24 = [ROOT / "benchmarks" / "heldout24" / "exercises.toml"]


@dataclass(frozen=True)
class PageSpec:
    path: Path
    lang: str = "en"
    variants: int | None = None

    @property
    def label(self) -> str:
        rel = self.path.relative_to(ROOT)
        extra = (f" {self.lang}" if self.lang != "en" else "") + (
            f" --variants {self.variants}" if self.variants else "")
        return f"{rel}{extra}"


def export(spec: PageSpec, out: Path) -> Path | str:
    """The page of `spec` written to `out`, or the export's error text when it fails."""
    from derive.cli.main import main

    args = ["export", str(spec.path), "--format", "html", "-o", str(out)]
    if spec.lang != "en":
        args += ["--lang", spec.lang]
    if spec.variants:
        args += ["--variants", str(spec.variants)]
    err = io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(err):
        code = main(args)
    return out if code == 0 else f"exit {code}: {err.getvalue().strip()}"


DATA = re.compile(r'<script type="application/json" id="derive-data">(.*?)</script>', re.S)
SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
KEY = re.compile(r"^v(\d+)-e(\d+)-q(\d+)$")


@dataclass
class PageExercise:
    """One exercise of one variant of a page: its questions (key, Q) in order and the raw
    exercise table the oracle copies (the variant's givens for a variant)."""

    variant: int
    index: int
    questions: list[tuple[str, dict]]
    raw: dict
    notation: dict | None


@dataclass
class Page:
    spec: PageSpec
    html: Path
    data: dict
    script: str
    exercises: list[PageExercise]

    @property
    def words(self) -> dict:
        return self.data.get("words", {})


def _raw_tables(spec: PageSpec) -> tuple[list[list[dict]], dict | None]:
    """The raw exercise tables per variant (the file's as written for variant 0 of a page
    without variants), and the file's [notation]."""
    from derive.exercises.bank import load_file
    from derive.exercises.reader import read_toml

    doc = read_toml(spec.path)
    exercises = load_file(spec.path)
    base = [dict(ex.raw) for ex in exercises]
    if not spec.variants:
        return [base], doc.get("notation")
    from derive.exercises.variants import generate

    columns = []
    for ex, raw in zip(exercises, base):
        if not ex.vary:
            columns.append([raw] * spec.variants)
            continue
        found = generate(ex, spec.variants, 0).variants
        columns.append([{**raw, "given": v.given} for v in found])
    return [list(row) for row in zip(*columns)], doc.get("notation")


def load_page(spec: PageSpec, folder: Path) -> Page | str:
    """Export `spec` into `folder` and read its data; the error text when it does not export."""
    name = spec.label.replace("/", "_").replace(" ", "_") + ".html"
    got = export(spec, folder / name)
    if isinstance(got, str):
        return got
    text = got.read_text(encoding="utf-8")
    data = json.loads(DATA.search(text).group(1))
    script = SCRIPT.search(text).group(1)
    tables, notation = _raw_tables(spec)
    grouped: dict[tuple[int, int], list] = {}
    for variant in data["variants"]:
        for key, q in variant["questions"].items():
            m = KEY.match(key)
            grouped.setdefault((int(m.group(1)), int(m.group(2))), []).append(
                (int(m.group(3)), key, q))
    exercises = []
    for (v, j), qs in sorted(grouped.items()):
        qs.sort()
        exercises.append(PageExercise(v, j, [(k, q) for _, k, q in qs], tables[v][j], notation))
    return Page(spec, got, data, script, exercises)


# --------------------------------------------------------------------------- exact values

def value_of(V) -> Fraction | None:
    """The exact value of a page value {"q": "p/q"}; None for an enclosure."""
    return Fraction(V["q"]) if "q" in V else None


def half_away(x: Fraction, places: int) -> Fraction:
    scale = Fraction(10) ** places
    n = abs(x) * scale
    q = int(n)
    if n - q >= Fraction(1, 2):
        q += 1
    return (q if x >= 0 else -q) / scale


def half_even(x: Fraction, places: int) -> Fraction:
    scale = Fraction(10) ** places
    return Fraction(round(x * scale)) / scale  # Fraction.__round__ rounds half to even


def fixed(x: Fraction, places: int) -> str:
    """x (a multiple of 10^-places) written with exactly that many places."""
    scaled = x * Fraction(10) ** places
    assert scaled.denominator == 1
    n = scaled.numerator
    digits = str(abs(n)).rjust(places + 1, "0")
    body = digits if places == 0 else digits[:-places] + "." + digits[-places:]
    return ("-" if n < 0 else "") + body


def exact_text(x: Fraction) -> str:
    """A terminating decimal when x has one (of at most 12 places), else p/q."""
    for p in range(13):
        if (x * 10 ** p).denominator == 1:
            return fixed(x, p)
    return f"{x.numerator}/{x.denominator}"


def near_miss(x: Fraction, places: int, rng: random.Random) -> str:
    """x rounded at `places`, its last digit changed by ±1."""
    step = Fraction(1, 10 ** places)
    return fixed(half_away(x, places) + rng.choice((-1, 1)) * step, places)


def ulps(x: Fraction, k: int) -> str:
    import math

    f = float(x)
    for _ in range(abs(k)):
        f = math.nextafter(f, math.inf if k > 0 else -math.inf)
    return repr(f)


def tie_even(x: Fraction) -> str | None:
    """x rounded half to even at the place where it is a tie (when it ends in 5)."""
    for p in range(0, 12):
        scaled = x * 10 ** (p + 1)
        if scaled.denominator == 1:
            if scaled.numerator % 10 in (5, -5 % 10) and half_even(x, p) != half_away(x, p):
                return fixed(half_even(x, p), p)
            return None
    return None


FULL = {c: chr(ord(c) + 0xFEE0) for c in "0123456789-+./"}


def full_width(text: str) -> str:
    return "".join(FULL.get(c, c) for c in text)


GARBAGE = ("abc", "1..2", "--3", "1/0", "2 3", "3²", "0x10", "1,5.5", "", "e5", "NaN", "½")


# --------------------------------------------------------------------------- generators

def scalar_answers(x: Fraction | None, Q: dict, rng: random.Random) -> list[tuple[str, str]]:
    """(category, text) candidates for one value x of question Q."""
    out: list[tuple[str, str]] = []
    if x is None:
        return [("garbage", rng.choice(GARBAGE))]
    out.append(("right_exact", exact_text(x)))
    for p in range(0, 7):
        out.append((f"right_rounded_{p}", fixed(half_away(x, p), p)))
        out.append(("near_miss", near_miss(x, p, rng)))
    rule = Q.get("rule") or {}
    if rule.get("kind") == "places" and rule.get("places", 0) >= 1:
        p = rule["places"] - 1
        out.append(("one_place_short", fixed(half_away(x, p), p)))
    tie = tie_even(x)
    if tie is not None:
        out.append(("half_to_even", tie))
    out.append(("float_repr", repr(float(x))))
    out.append(("float_ulps", ulps(x, rng.choice((-3, -2, -1, 1, 2, 3)))))
    out.append(("full_width", full_width(fixed(half_away(x, 4), 4))))
    out.append(("spaces", "  " + exact_text(x) + " \u3000"))
    return out


def mistake_answers(Q: dict, element: int | None) -> list[tuple[str, str]]:
    out = []
    for m in Q.get("mistakes") or []:
        V = m["value"][element] if element is not None else m["value"]
        x = value_of(V)
        if x is None:
            continue
        out.append(("mistake_exact", exact_text(x)))
        for p in range(1, 5):
            out.append((f"mistake_rounded_{p}", fixed(half_away(x, p), p)))
        out.append(("mistake_near_miss", near_miss(x, 2, random.Random(str(x)))))
        out.append(("mistake_0_places", fixed(half_away(x, 0), 0) + "."))
    return out


def question_candidates(Q: dict, rng: random.Random) -> list[tuple[str, str]]:
    """Whole answers to Q (a list question's elements joined by commas)."""
    size = Q.get("size")
    if size is None:
        x = value_of(Q["value"])
        cands = scalar_answers(x, Q, rng) + mistake_answers(Q, None)
    else:
        per = [scalar_answers(value_of(Q["value"][i]), Q, rng) for i in range(size)]
        cands = []
        for k in range(len(per[0])):  # the same category for every element, most of the time
            cat = per[0][k][0]
            texts = [next((t for c, t in e if c == cat), e[0][1]) for e in per]
            cands.append((cat, ", ".join(texts)))
        wrong_one = [e[0][1] for e in per]
        if size > 0:
            i = rng.randrange(size)
            x = value_of(Q["value"][i])
            if x is not None:
                wrong_one[i] = near_miss(x, 3, rng)
                cands.append(("list_one_near_miss", ", ".join(wrong_one)))
        mistakes = Q.get("mistakes") or []
        for m in mistakes:
            xs = [value_of(V) for V in m["value"]]
            if None not in xs:
                cands.append(("mistake_exact", ", ".join(exact_text(x) for x in xs)))
                p = rng.randint(1, 4)
                cands.append(("mistake_rounded", ", ".join(fixed(half_away(x, p), p)
                                                           for x in xs)))
        cands.append(("wrong_count", ", ".join(exact_text(value_of(V) or Fraction(0))
                                               for V in Q["value"][:-1]) or "1, 2"))
    cands.append(("garbage", rng.choice(GARBAGE)))
    return cands


def parsed_number(text: str, size: int | None):
    """The typed answer as derive reads a claim (after NFKC and the minus sign), a list of
    texts for a list question; None when it is not a number (garbage)."""
    from derive.kernel.exact import ExactNumberError, parse_exact

    t = unicodedata.normalize("NFKC", text).replace("\u2212", "-").strip()
    pieces = [t]
    if size is not None:
        if t.startswith("[") and t.endswith("]"):
            t = t[1:-1]
        pieces = [p.strip() for p in re.split("[,\uff0c\u3001]", t)]
    if "²" in text or "³" in text or "¹" in text:
        return None
    for p in pieces:
        if not p or len(p) > 128:
            return None
        try:
            parse_exact(p)
        except (ExactNumberError, ValueError, ZeroDivisionError):
            return None
    return pieces if size is not None else pieces[0]


def carried_value(ex, name: str, earlier: dict) -> object | None:
    """The value of `name` computed from the typed earlier answers (exact), with derive's
    Context: a generator of carried-forward answers only, never an expected verdict."""
    from derive.exercises.diagnosis import _try
    from derive.kernel.exact import parse_exact
    from derive.recipes.base import Context

    over = {}
    for k, texts in earlier.items():
        over[k] = ([parse_exact(t) for t in texts] if isinstance(texts, list)
                   else parse_exact(texts))
    try:
        got = _try(lambda c: c[name], Context(ex.recipe, ex.given, over))
    except Exception:
        return None
    return got


def _as_fraction(v) -> Fraction | None:
    v = sp.sympify(v) if not isinstance(v, sp.Basic) else v
    if not v.is_Rational:
        return None
    return Fraction(int(v.p), int(v.q))


def sequence(pe: PageExercise, ex, rng: random.Random) -> list[tuple[str, str]]:
    """One student's answers to the exercise's questions, in order: (category, text) each."""
    out: list[tuple[str, str]] = []
    typed: dict[str, object] = {}
    for _key, Q in pe.questions:
        cands = question_candidates(Q, rng)
        cat, text = rng.choice(cands)
        wrong_before = any(c not in ("right_exact", "spaces") and not c.startswith("right_")
                           for c, _ in out)
        if typed and wrong_before and ex is not None and rng.random() < 0.3:
            v = carried_value(ex, Q["name"], typed)
            if v is not None:
                items = v if isinstance(v, list) else [v]
                fr = [_as_fraction(x) for x in items]
                if None not in fr and (Q.get("size") is None) == (not isinstance(v, list)):
                    p = rng.choice((None, 2, 3, 4))
                    texts = [exact_text(x) if p is None else fixed(half_away(x, p), p)
                             for x in fr]
                    cat, text = "carried", ", ".join(texts)
        out.append((cat, text))
        num = parsed_number(text, Q.get("size"))
        if num is not None:
            typed[Q["name"]] = num
        else:
            typed.pop(Q["name"], None)
    return out


# --------------------------------------------------------------------------- the oracle

def _toml(v) -> str:
    from derive.exercises.reader import Written

    if isinstance(v, Written):
        return v.text
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=True)  # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_toml(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _tolerance(raw_claim, test: str):
    """The test's tolerance as the source file writes it."""
    items = raw_claim if isinstance(raw_claim, list) else [raw_claim]
    for c in items:
        if isinstance(c, dict) and test in c:
            return c[test]
    return None


def _claim(text, Q: dict, raw_claim=None):
    rule = Q.get("rule") or {}
    if rule.get("kind") != "test":
        return text
    tol = _tolerance(raw_claim, rule["test"])
    if tol is None:
        tol = int(Fraction(rule["tol"])) if rule["test"] in ("places", "sig") else rule["tol"]

    def one(t):
        return {"value": t, rule["test"]: tol}
    return [one(t) for t in text] if isinstance(text, list) else one(text)


def oracle_toml(pe: PageExercise, sequences: list[list[str]]) -> str:
    """An exercise file: the exercise once per sequence, its claims the sequence's numbers."""
    lines = []
    if pe.notation:
        lines.append("notation = " + _toml(pe.notation))
    base = {k: v for k, v in pe.raw.items() if k not in ("claims", "vary", "require", "id")}
    raw_claims = pe.raw.get("claims") if isinstance(pe.raw.get("claims"), dict) else {}
    for n, seq in enumerate(sequences):
        claims = {}
        for (_key, Q), text in zip(pe.questions, seq):
            num = parsed_number(text, Q.get("size"))
            if num is not None:
                claims[Q["name"]] = _claim(num, Q, raw_claims.get(Q["name"]))
        table = {"id": f"{pe.raw.get('id', 'ex')}-seq{n}", **base}
        if claims:
            table["claims"] = claims
        lines.append("[[exercise]]")
        lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


VERDICT = {"exact": "holds", "rounded": "holds", "within": "holds", "equivalent": "holds",
           "wrong": "wrong", "undecided": "undecided"}


@dataclass(frozen=True)
class Outcome:
    verdict: str | None
    mistake: str | None
    carried: tuple[str, ...] | None
    unsure: bool = False
    message: str = ""


def derive_outcomes(pe: PageExercise, sequences: list[list[str]], folder: Path
                    ) -> list[list[Outcome]]:
    """`derive check` on the sequences' claims: one Outcome per typed answer."""
    from derive.exercises.bank import load_file
    from derive.exercises.check import check_exercise

    path = folder / f"oracle-v{pe.variant}-e{pe.index}.toml"
    path.write_text(oracle_toml(pe, sequences), encoding="utf-8")
    out = []
    for ex in load_file(path):
        report = check_exercise(ex)
        by = {c.name: c for c in report.claims}
        row = []
        for _key, Q in pe.questions:
            c = by.get(Q["name"])
            if c is None:
                row.append(Outcome(None, None, None))
                continue
            d = c.diagnosis
            row.append(Outcome(VERDICT[c.status], d.mistake if d else None,
                               tuple(d.carried) or None if d else None,
                               message=d.explanation if d else ""))
        out.append(row)
    return out


def exercise_object(pe: PageExercise, folder: Path):
    """The page exercise as derive reads it (for the carried-forward generator)."""
    from derive.exercises.bank import load_file

    path = folder / f"gen-v{pe.variant}-e{pe.index}.toml"
    path.write_text(oracle_toml(pe, [[]]), encoding="utf-8")
    return load_file(path)[0]


# --------------------------------------------------------------------------- the page, in QuickJS

STEP = r"""
var _typed = {};
function _s(v) { return JSON.stringify(v, function (k, x) {
  return typeof x === "bigint" ? x.toString() : x; }); }
function T_reset() { _typed = {}; return 0; }
function T_step(args) {
  var a = JSON.parse(args), key = a[0], Q = a[1], text = a[2], words = a[3], book = a[4];
  _typed[key] = undefined; // as the page's check(): never carried from itself
  var r = DeriveCheck.classify(text, Q, _typed, words, book);
  _typed[key] = r.values;
  return _s(r);
}
"""

_CONTEXTS: dict[int, object] = {}


def js_context(script: str):
    import quickjs

    h = hash(script)
    if h not in _CONTEXTS:
        ctx = quickjs.Context()
        ctx.eval(script)
        ctx.eval(STEP)
        _CONTEXTS[h] = ctx
    return _CONTEXTS[h]


MISTAKE = re.compile(r"\(([A-Za-z_][A-Za-z0-9_]*)\)\W*$")


def _fill(template: str, params: dict) -> str:
    return re.sub(r"\{([A-Za-z_]+)\}", lambda m: str(params.get(m.group(1), m.group(0))),
                  template)


def page_outcome(r: dict, Q: dict, words: dict) -> Outcome:
    """The page's result as an Outcome: the contract's fields when the page gives them, else
    recovered from today's {status, key, message}."""
    message = r.get("message", "")
    if "verdict" in r:
        carried = r.get("carried")
        return Outcome(r["verdict"], r.get("mistake"), tuple(carried) if carried else None,
                       bool(r.get("unsure")), message)
    status, key = r["status"], r["key"]
    rule = Q.get("rule") or {}
    if status == "nan":
        verdict = None
    elif status == "right":
        verdict = "holds"
    elif status == "undecided":
        verdict = "undecided"
    elif status == "rounded":
        verdict = "holds" if key in ("rounded_places", "rounded_exact") else "wrong"
        if rule.get("kind") == "test" and key != "rounded_other":
            verdict = "wrong"
    else:
        verdict = "wrong"
    mistake = carried = None
    if key == "wrong_mistake":
        m = MISTAKE.search(message)
        mistake = m.group(1) if m else "?"
    if key == "wrong_carried":
        template = words.get("wrong_carried", "")
        for entry in Q.get("carried") or []:
            if _fill(template, {"names": entry["names"], "answer": "", "name": Q["name"]}) \
                    == message:
                carried = tuple(entry["names"].split(", "))
                break
        else:
            carried = ("?",)
    return Outcome(verdict, mistake, carried, False, message)


def run_page_sequence(page: Page, pe: PageExercise, texts: list[str]
                      ) -> tuple[list[dict], list[float]]:
    """The page's classify() on each answer in turn; the raw results and each one's seconds."""
    ctx = js_context(page.script)
    ctx.eval("T_reset()")
    step = ctx.get("T_step")
    results, seconds = [], []
    book = dict(pe.questions)  # the exercise's questions by key: the earlier ones' data
    for (key, Q), text in zip(pe.questions, texts):
        arg = json.dumps([key, Q, text, page.words, book])
        t0 = time.perf_counter()
        got = step(arg)
        seconds.append(time.perf_counter() - t0)
        results.append(json.loads(got))
    return results, seconds


# --------------------------------------------------------------------------- comparing

KINDS = ("names", "silent", "verdict")


def disagreements(page_o: Outcome, derive_o: Outcome) -> list[str]:
    """The kinds in which the page's outcome differs from derive's (empty: they agree)."""
    kinds = []
    if page_o.verdict != derive_o.verdict:
        kinds.append("verdict")
    named_page = (page_o.mistake, page_o.carried)
    named_derive = (derive_o.mistake, derive_o.carried)
    if named_page != named_derive:
        if page_o.mistake is None and page_o.carried is None:
            kinds.append("silent")
        else:
            kinds.append("names")
    return kinds


@dataclass
class Disagreement:
    page: str
    exercise: str
    sequence: list[tuple[str, str]]
    index: int
    kinds: list[str]
    page_result: dict
    derive: Outcome

    def describe(self) -> str:
        seq = "; ".join(f"{q}={t!r}" for (q, t) in self.sequence)
        r = {k: v for k, v in self.page_result.items() if k != "values"}
        return (f"{self.page} {self.exercise} answer {self.index + 1} ({', '.join(self.kinds)})\n"
                f"    typed: {seq}\n    page:   {json.dumps(r, ensure_ascii=False)}\n"
                f"    derive: verdict={self.derive.verdict} mistake={self.derive.mistake} "
                f"carried={self.derive.carried} {self.derive.message[:160]!r}")


@dataclass
class Tally:
    answers: int = 0
    sequences: int = 0
    counts: dict = field(default_factory=lambda: {k: 0 for k in KINDS})
    by_category: dict = field(default_factory=dict)
    slowest: tuple[float, str] = (0.0, "")
    found: list[Disagreement] = field(default_factory=list)
    unsure: int = 0

    @property
    def total(self) -> int:
        return sum(1 for d in self.found)

    def add(self, other: Tally) -> None:
        self.answers += other.answers
        self.sequences += other.sequences
        self.unsure += other.unsure
        for k in KINDS:
            self.counts[k] += other.counts[k]
        for c, (n, bad) in other.by_category.items():
            a, b = self.by_category.get(c, (0, 0))
            self.by_category[c] = (a + n, b + bad)
        self.slowest = max(self.slowest, other.slowest)
        self.found += other.found


def run_exercise(page: Page, pe: PageExercise, n: int, rng: random.Random, folder: Path
                 ) -> Tally:
    """n generated sequences typed into one page exercise, compared with derive check."""
    ex = exercise_object(pe, folder)
    seqs = [sequence(pe, ex, rng) for _ in range(n)]
    oracle = derive_outcomes(pe, [[t for _, t in s] for s in seqs], folder)
    tally = Tally(sequences=n)
    ex_label = f"v{pe.variant}-e{pe.index} ({pe.raw.get('id')})"
    for seq, expected in zip(seqs, oracle):
        results, seconds = run_page_sequence(page, pe, [t for _, t in seq])
        for i, ((key, Q), (cat, text), r, s, d) in enumerate(
                zip(pe.questions, seq, results, seconds, expected)):
            tally.answers += 1
            if s > tally.slowest[0]:
                tally.slowest = (s, f"{page.spec.label} {key} {text[:40]!r}")
            po = page_outcome(r, Q, page.words)
            tally.unsure += po.unsure
            kinds = disagreements(po, d)
            a, b = tally.by_category.get(cat, (0, 0))
            tally.by_category[cat] = (a + 1, b + bool(kinds))
            for k in kinds:
                tally.counts[k] += 1
            if kinds:
                tally.found.append(Disagreement(page.spec.label, ex_label, [
                    (q["name"], t) for (_, q), (_, t) in zip(pe.questions, seq)], i, kinds, r, d))
    return tally


def run_page(page: Page, per_exercise: int, seed: int, folder: Path) -> Tally:
    total = Tally()
    for pe in page.exercises:
        rng = random.Random(f"{seed}:{page.spec.label}:{pe.variant}:{pe.index}")
        total.add(run_exercise(page, pe, per_exercise, rng, folder))
    return total
