"""Math into HTML at export time: KaTeX (bundled in derive/render/web) run in-process by the
QuickJS engine, so that a page shows its formulas with no script and no network.

Every formula is LaTeX built by derive (author words reach it only through `escape_latex(…,
math=True)`); KaTeX runs in strict mode and fails loudly, as the Markdown export's KaTeX test
does. The engine is bounded: memory per context, time per formula.
"""

from __future__ import annotations

import base64
import re
import signal
from functools import lru_cache
from importlib import resources

from derive.errors import EngineMissing, NotSupportedError
from derive.kernel.timebound import DecisionTimeout

MEMORY_BYTES = 512 * 1024 * 1024
"""The JavaScript heap of the engine."""
SECONDS_PER_FORMULA = 10
"""QuickJS's own bound on one formula, in CPU seconds (QuickJS counts clock()); a formula
gets less when less is left of the command's time bound."""
MAX_FORMULA_CHARS = 20_000
"""Longest formula given to KaTeX, refused before KaTeX runs: KaTeX's time grows faster than
a formula's length (in QuickJS a run of 20,000 digits takes 7 s of CPU, 10,000 digits 1.5 s;
a list of 47,794 characters 1.7 s), so the page is bounded by its input, not only by a timer
QuickJS cannot hear."""
MIN_SECONDS = 0.05
"""Less than this left of the command's bound: the bound has passed (no formula is begun)."""

OPTIONS = ('{displayMode: D, throwOnError: true, strict: "error", output: "htmlAndMathml", '
           'trust: false, maxExpand: 1000, maxSize: 50}')


class KatexError(Exception):
    """KaTeX refused a formula derive built: an internal error, never the author's."""


class FormulaTooLong(NotSupportedError):
    """A formula past MAX_FORMULA_CHARS, or one KaTeX did not finish in its own bound: what is
    wrong (`problem`) and what would be right (`expected`), for a line that names the file,
    the exercise and the key where the page knows them (derive.render.html)."""

    def __init__(self, problem: str, expected: str = ""):
        self.problem, self.expected = problem, expected
        super().__init__(f"{problem}; {expected}" if expected else problem)


def _left() -> float | None:
    """Seconds left of the command's time bound: the interval timers that
    derive.kernel.timebound arms (wall or CPU time), the nearest; None when none is armed."""
    left = [signal.getitimer(t)[0] for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL,
                                             signal.ITIMER_PROF)]
    return min((x for x in left if x > 0), default=None)


def asset(name: str) -> bytes:
    """A file of derive/render/web (KaTeX's files, the page's script and style)."""
    return resources.files("derive.render").joinpath("web", name).read_bytes()


@lru_cache(maxsize=1)
def _engine():
    try:
        # a dependency of derive (pyproject.toml), imported only when a page is written
        import quickjs
    except ImportError:
        raise EngineMissing("KaTeX's engine, the Python package quickjs (a dependency of "
                            "derive), is not installed; reinstall derive (pip install -e . in "
                            "its folder, or make demo)") from None
    ctx = quickjs.Context()
    ctx.set_memory_limit(MEMORY_BYTES)
    ctx.set_time_limit(60)  # loading KaTeX
    ctx.eval("var module = {exports: {}}; var exports = module.exports;")
    ctx.eval(asset("katex.min.js").decode("utf-8"))
    ctx.eval("var K = (typeof katex !== 'undefined') ? katex : module.exports;"
             f"function renderTex(t, D) {{ return K.renderToString(t, {OPTIONS}); }}")
    ctx.set_time_limit(SECONDS_PER_FORMULA)
    return ctx, ctx.get("renderTex")


@lru_cache(maxsize=20_000)
def render(tex: str, display: bool = False) -> str:
    """One formula as KaTeX's HTML (with MathML for screen readers). A formula past
    MAX_FORMULA_CHARS is "not supported" before KaTeX runs; KaTeX gets at most what is left
    of the command's time bound (DecisionTimeout, as the bound itself, when that runs out)."""
    if len(tex) > MAX_FORMULA_CHARS:
        raise FormulaTooLong(f"a formula of {len(tex):,} characters, past the page's bound of "
                             f"{MAX_FORMULA_CHARS:,}", "give fewer records or smaller values "
                             "(--format md and tex have no such bound)")
    ctx, fn = _engine()
    left = _left()
    if left is not None and left < MIN_SECONDS:
        raise DecisionTimeout("time bound passed")
    share = SECONDS_PER_FORMULA if left is None else min(SECONDS_PER_FORMULA, left)
    ctx.set_time_limit(share)
    try:
        return fn(tex, display)
    except Exception as exc:  # quickjs.JSException: a ParseError, the memory or time limit
        first = (str(exc).splitlines() or [""])[0][:200]  # never KaTeX's JavaScript stack
        if "interrupted" in first:
            if share < SECONDS_PER_FORMULA:  # the command's bound, not the formula's own
                raise DecisionTimeout("time bound passed while KaTeX ran") from None
            raise FormulaTooLong(f"a formula of {len(tex):,} characters that KaTeX did not "
                                 f"render within its bound of {SECONDS_PER_FORMULA} s",
                                 "give fewer records or smaller values") from None
        if "out of memory" in first:
            raise FormulaTooLong(f"a formula of {len(tex):,} characters that KaTeX could not "
                                 f"render within {MEMORY_BYTES >> 20} MB",
                                 "give fewer records or smaller values") from None
        raise KatexError(f"KaTeX: {first} in {tex[:200]!r}") from None


# ------------------------------------------------------------------------------ stylesheet

_FACE = re.compile(r"@font-face\{([^}]*)\}")
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASS = re.compile(r"\.([A-Za-z0-9_-]+)")


def _used_families(css: str, classes: set[str]) -> set[str]:
    """The font families that KaTeX's rules set for a page with these classes: a rule counts
    when every class of one of its selectors (but the common `katex`) is on the page."""
    used = {"KaTeX_Main"}
    for selectors, body in _RULE.findall(_FACE.sub("", css)):
        families = set(re.findall(r"KaTeX_[A-Za-z0-9]+", body))
        if families and any(set(_CLASS.findall(s)) - {"katex"} <= classes
                            for s in selectors.split(",")):
            used |= families
    return used


def stylesheet(html: str) -> str:
    """KaTeX's stylesheet for a page: the @font-face rules of the families that the page's
    classes use, each with its WOFF2 file inlined as a data: URL (the page loads nothing)."""
    css = asset("katex.min.css").decode("utf-8")
    classes = {c for attr in re.findall(r'class="([^"]*)"', html) for c in attr.split()}
    used = _used_families(css, classes)

    def face(m: re.Match) -> str:
        body = m.group(1)
        family = re.search(r"font-family:\"?(KaTeX_[A-Za-z0-9]+)", body).group(1)
        if family not in used:
            return ""
        src = re.search(r"url\((fonts/[^)]+\.woff2)\)", body).group(1)
        data = base64.b64encode(asset(src)).decode("ascii")
        rest = re.sub(r"src:[^;]*", f'src:url(data:font/woff2;base64,{data}) format("woff2")',
                      body)
        return "@font-face{" + rest + "}"
    return _FACE.sub(face, css)
