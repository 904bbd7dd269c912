"""Lines that fit the text block: a display formula wider than the page is set as aligned rows,
broken where a reader expects it (a chain a = b = c one relation per row, a list of inputs
one or a few per row, a long sum at its + and −, inside a \\left( … \\right) group as the last
resort), never by changing what it says.

TeX does not break display math, and KaTeX neither; so the renderers ask here how wide a
formula will be (`width`, an estimate in pt at 11 pt, a little generous) and how to break it
(`rows`). The estimate only has to be right enough for tests/test_layout.py, which compiles
every export and fails on a line that leaves the text block.
"""

from __future__ import annotations

import re

TEXT_WIDTH = 480.0
"""The narrowest text block of the exports (A4 with 2 cm margins: 483.7 pt; letter: 500.5 pt)."""

FITS = 0.95 * TEXT_WIDTH
"""A formula estimated no wider than this is left as it is (the estimate errs wide by a few
per cent)."""

LIMIT = 0.85 * TEXT_WIDTH
"""The widest estimated row of a formula that is broken; the rest is the estimate's margin of
error and the alignment's indent."""

# ------------------------------------------------------------------------------ tokenizing

_TOKEN = re.compile(r"\\[A-Za-z]+\*?|\\.|\s+|.", re.S)
_RELATIONS = {"=", "<", ">", r"\approx", r"\neq", r"\ne", r"\leq", r"\geq", r"\le", r"\ge",
              r"\to", r"\equiv", r"\sim", r"\mapsto", r"\Rightarrow", r"\iff", r"\lt", r"\gt"}
_BINARY = {"+", "-", r"\pm", r"\mp"}
_TEXTLIKE = {r"\text", r"\texttt", r"\textrm", r"\textbf", r"\textit", r"\mathrm", r"\mathtt",
             r"\operatorname", r"\mathit", r"\mathsf", r"\textsf"}


def _tokens(tex: str) -> list[str]:
    """Tokens of a formula, with braces `{…}` and environments `\\begin…\\end` as one token
    each (a break never falls inside them), and `\\left(`, `\\right)` as one token each."""
    raw = _TOKEN.findall(tex)
    out: list[str] = []
    i = 0
    while i < len(raw):
        t = raw[i]
        j = i
        if t == "{":
            depth = 0
            while j < len(raw):
                depth += {"{": 1, "}": -1}.get(raw[j], 0)
                if depth == 0:
                    break
                j += 1
        elif t == r"\begin":
            depth = 0
            while j < len(raw):
                depth += {r"\begin": 1, r"\end": -1}.get(raw[j], 0)
                if depth == 0:
                    break
                j += 1
            if j + 1 < len(raw) and raw[j + 1] == "{":  # the \end's {name}
                j += 1
                while j < len(raw) and raw[j] != "}":
                    j += 1
        elif t in (r"\left", r"\right"):
            while j + 1 < len(raw) and raw[j + 1].isspace():
                j += 1
            j += 1
            out.append(t + raw[j] if j < len(raw) else t)
            i = j + 1
            continue
        out.append("".join(raw[i:j + 1]))
        i = j + 1
    return out


# -------------------------------------------------------------------------------- widths

LAYOUT_CHARS = 4000
"""The longest line of math that is broken into rows."""


_CHAR = 5.6
_WIDE = {r"\cdot": 8.0, r"\quad": 11.0, r"\qquad": 22.0, r"\,": 1.9, r"\:": 2.4, r"\;": 3.1,
         r"\!": -1.9, "\\ ": 3.7, r"\sum": 16.0, r"\prod": 16.0, r"\int": 10.0, r"\infty": 11.0,
         r"\ldots": 15.0, r"\dots": 15.0, r"\cdots": 15.0, r"\nabla": 9.0, r"\partial": 6.0,
         r"\times": 11.0, r"\in": 10.0, r"\mid": 7.0}
_OPERATORS = {r"\sin", r"\cos", r"\tan", r"\sinh", r"\cosh", r"\tanh", r"\log", r"\ln",
              r"\exp", r"\max", r"\min", r"\sign", r"\arctan"}
r"""Operator names, set upright as their letters (SymPy writes \tanh{\left(x \right)})."""
_ZERO = {r"\left.", r"\right.", r"\displaystyle", r"\limits", r"\nolimits", r"\allowbreak"}


def _inner(group: str) -> str:
    return group[1:-1] if group.startswith("{") and group.endswith("}") else group


def width(tex: str) -> float:
    """The estimated width of a formula in pt (display style, 11 pt); a formula past
    LAYOUT_CHARS characters (thousands of digits) by its length alone, which bounds the time
    of laying out huge exact values."""
    if len(tex) > LAYOUT_CHARS:
        return len(tex) * _CHAR
    return _width(_tokens(tex))


def _width(toks: list[str]) -> float:
    w = 0.0
    i = 0
    prev = None  # the last token that was not a space: a binary − after it or a sign?
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if t.isspace():
            i += 1
            continue
        if t in (r"\frac", r"\dfrac", r"\tfrac", r"\binom"):
            a = toks[i + 1] if i + 1 < len(toks) else ""
            b = toks[i + 2] if i + 2 < len(toks) else ""
            scale = 0.75 if t == r"\tfrac" else 1.0
            w += scale * max(width(_inner(a)), width(_inner(b))) + 3
            i += 3
        elif t == r"\sqrt":
            w += width(_inner(nxt)) + 9
            i += 2
        elif t in _TEXTLIKE:
            w += len(_inner(nxt).replace("\\", "")) * (5.8 if "tt" in t else 5.3)
            i += 2
        elif t in ("^", "_"):
            w += 0.72 * width(_inner(nxt))
            i += 2
        elif t.startswith(r"\begin"):
            w += _env_width(t)
            i += 1
        elif t.startswith("{"):
            w += width(_inner(t))
            i += 1
        elif t.startswith((r"\left", r"\right")):
            w += 0 if t in _ZERO else 5.5
            i += 1
        elif t in _ZERO:
            i += 1
        elif t in _RELATIONS:
            w += 14.5
            i += 1
        elif t in _BINARY:
            unary = prev is None or prev in _RELATIONS or prev in _BINARY or prev in \
                ("(", "[", ",", "&") or prev.startswith(r"\left")
            w += 9.0 if unary else 13.5
            i += 1
        elif t in _WIDE:
            w += _WIDE[t]
            i += 1
        elif t in _OPERATORS:
            w += (len(t) - 1) * _CHAR + 2
            i += 1
        elif t.startswith("\\") and len(t) > 2 and t[1:].isalpha() and nxt.startswith("{") \
                and t not in (r"\sum", r"\prod"):
            w += width(_inner(nxt)) + (0 if t.startswith(r"\math") or t in (
                r"\hat", r"\bar", r"\tilde", r"\vec", r"\boldsymbol", r"\mathbf") else 6)
            i += 2
        elif t.startswith("\\"):
            w += 6.5
            i += 1
        elif t in ",;.":
            w += 3.0 + (2.0 if t == "," else 0)
            i += 1
        elif t in "()[]|/":
            w += 4.3
            i += 1
        elif t in "&":
            w += 11.0
            i += 1
        else:
            w += _CHAR
            i += 1
        prev = t
    return w


def _env_width(env: str) -> float:
    m = re.match(r"\\begin\{(\w+\*?)\}(.*)\\end\{\w+\*?\}$", env, re.S)
    if not m:
        return len(env) * _CHAR
    rows = [r for r in re.split(r"\\\\", m.group(2))]
    widest = max((sum(width(c) for c in _split_top(r, "&")) + 11 * r.count("&") for r in rows),
                 default=0.0)
    return widest + (14 if m.group(1) in ("cases", "pmatrix", "bmatrix") else 4)


def _split_top(tex: str, sep: str) -> list[str]:
    """`tex` split at `sep` tokens outside braces and environments."""
    parts, cur = [], []
    for t in _tokens(tex):
        if t == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(t)
    parts.append("".join(cur))
    return parts


def text_width(text: str) -> float:
    """A rough width in pt of a line of LaTeX text at \\small (math in it counted as math)."""
    w = 0.0
    for k, piece in enumerate(re.split(r"(?<!\\)\$", text)):
        if k % 2:
            w += 0.92 * width(piece)
        else:
            plain = re.sub(r"\\[A-Za-z]+\*?\s*|[{}]", "", piece).replace("\\", "")
            w += len(plain) * (5.5 if r"\texttt" in piece else 5.0)
    return w


# ------------------------------------------------------------------------------- breaking

def _breaks(toks: list[str]) -> list[tuple[int, int, str]]:
    """Where a row may break: (token index the next row starts at, \\left depth there, kind):
    before a relation or a binary + and − (a sign is not one), after a list's comma, after the
    \\quad that separates the items of a list of inputs."""
    out = []
    depth = 0
    prev = None
    opens: list[str] = []
    for i, t in enumerate(toks):
        if t.isspace():
            continue
        if t.startswith(r"\left"):
            depth += 1
            opens.append(t)
        elif t.startswith(r"\right"):
            depth -= 1
            if opens:
                opens.pop()
        elif t in _RELATIONS and prev is not None:
            out.append((i, depth, "rel"))
        elif t in _BINARY and prev is not None and not (
                prev in _RELATIONS or prev in _BINARY or prev in ("(", "[", ",", ":")
                or prev.startswith(r"\left") or prev in (r"\quad", r"\qquad")):
            out.append((i, depth, "bin"))
        elif prev == "," and depth > 0 and opens and opens[-1] in (r"\left[", r"\left\{"):
            out.append((i, depth, "item"))
        elif t in (r"\quad", r"\qquad") and prev in (",", ":") and depth == 0:
            out.append((i + 1, depth, "clause"))
        elif t in _TEXTLIKE and i >= 2 and toks[i - 2] in _TEXTLIKE:  # a long \text, cut
            out.append((i, depth, "text"))
        prev = t
    return out


def _depth_stack(toks: list[str], upto: int) -> list[str]:
    """The \\left delimiters open before token `upto`."""
    stack: list[str] = []
    for t in toks[:upto]:
        if t.startswith(r"\left"):
            stack.append(t)
        elif t.startswith(r"\right") and stack:
            stack.pop()
    return stack


_RANK = {"clause": 0, "rel": 1, "bin": 2, "item": 2, "text": 3}
"""Which break a row prefers, at the same \\left depth: between inputs, at a relation, at
+ and − or between a list's items, inside a text."""


def _cut_text(toks: list[str], limit: float) -> list[str]:
    """A `\\text{…}` too wide for a row as several, cut after its commas and spaces (the
    same letters: `\\text{a, b}` is `\\text{a, }\\text{b}`)."""
    out: list[str] = []
    for i, t in enumerate(toks):
        if i and toks[i - 1] in _TEXTLIKE and t.startswith("{") and \
                width(toks[i - 1] + t) > 0.5 * limit:
            pieces = re.findall(r"[^,\s]*(?:[,\s]+|$)", _inner(t))
            pieces = [p for p in pieces if p]
            out.append("{" + pieces[0] + "}")
            for p in pieces[1:]:
                out += [toks[i - 1], "{" + p + "}"]
        else:
            out.append(t)
    return out


_TEXT_JOIN = re.compile(r"(\\text\{[^{}]*?)(\}\\text\{)([^{}]*\})")
"""Two pieces of a cut `\\text` that share a row, joined back (applied until none is left)."""


def _fill(tex: str, limit: float, first: float = 0.0, with_kinds: bool = False) -> list:
    """`tex` as rows no wider than `limit` (the first one after `first` pt already set),
    breaking at the shallowest break that leaves the row at least 40 % full, the latest one
    of those; a row that closes inside a \\left group is closed by \\right. and the next one
    reopens it with \\left."""
    toks = _cut_text(_tokens(tex), limit)
    breaks = _breaks(toks)
    rows: list[str] = []
    kinds: list[str] = [""]  # the break before each row
    start, used = 0, first
    while True:
        rest = "".join(toks[start:])
        if used + width(rest) <= limit:
            break
        candidates = []
        for at, depth, kind in breaks:
            if at <= start:
                continue
            w = used + _width(toks[start:at])
            if w > limit:
                break
            candidates.append((at, depth, kind, w))
        if not candidates:  # nothing fits: the first break after, if any
            later = [b for b in breaks if b[0] > start]
            if not later:
                break
            at = later[0][0]
        else:
            roomy = [c for c in candidates if c[3] >= 0.4 * limit] or candidates
            best = min((c[1], _RANK[c[2]]) for c in roomy)
            at = [c for c in roomy if (c[1], _RANK[c[2]]) == best][-1][0]
        rows.append("".join(toks[start:at]).strip())
        kinds.append(next(k for a, _, k in breaks if a == at))
        start, used = at, 0.0
    rows.append("".join(toks[start:]).strip())
    # balance each row's \left … \right
    out = []
    carried: list[str] = []
    for row in rows:
        toks_row = _tokens(row)
        stack = list(carried)
        for t in toks_row:
            if t.startswith(r"\left"):
                stack.append(t)
            elif t.startswith(r"\right") and stack:
                stack.pop()
        while _TEXT_JOIN.search(row):
            row = _TEXT_JOIN.sub(lambda m: m.group(1) + m.group(3), row)
        out.append(r"\left. " * len(carried) + row + r" \right." * len(stack))
        carried = stack
    return out if not with_kinds else list(zip(kinds, out))


def _relation_split(tex: str) -> list[str]:
    """`a = b \\approx c` as ["a", "= b", "\\approx c"] (top-level relations only)."""
    toks = _tokens(tex)
    parts, cur, depth, prev = [], [], 0, None
    for t in toks:
        if t.startswith(r"\left"):
            depth += 1
        elif t.startswith(r"\right"):
            depth -= 1
        if t in _RELATIONS and depth == 0 and prev is not None:
            parts.append("".join(cur).strip())
            cur = []
        cur.append(t)
        if not t.isspace():
            prev = t
    parts.append("".join(cur).strip())
    return parts


INDENT = r"\quad "


def rows(lines: tuple[str, ...], limit: float = LIMIT) -> list[str] | None:
    """The rows of an `align*` (or `aligned`) for display math whose lines are too wide, or
    None when every line fits as it is. A line past LAYOUT_CHARS characters (an exact value of
    thousands of digits) is left as it is: breaking it costs time quadratic in its length."""
    if any(len(line) > LAYOUT_CHARS for line in lines):
        return None
    if all(width(line) <= FITS for line in lines):
        return None
    out: list[str] = []
    for line in lines:
        cells = _split_top(line, "&")
        if width(line) <= FITS:  # whole, in the second column: in the first it would push
            out.append(line if len(cells) > 1 else "& " + line)  # the other rows out
            continue
        if len(cells) > 1:  # already aligned: left & right [&& tag]
            left, right = cells[0].strip(), cells[1].strip()
            tag = ("&" + "&".join(cells[2:])) if len(cells) > 2 else ""
        else:
            toks = _tokens(line)
            if any(k == "clause" for _, d, k in _breaks(toks)):
                out += ["& " + ("" if k in ("", "clause") else INDENT) + r
                        for k, r in _fill(line, limit, with_kinds=True)]
                continue
            parts = _relation_split(line)
            left, right, tag = parts[0], " ".join(parts[1:]), ""
            if len(parts) == 1:
                out += ["& " + (INDENT if k else "") + r
                        for k, r in enumerate(_fill(line, limit))]
                continue
        out += _chain(left, right, tag, limit)
    return out


def _chain(left: str, right: str, tag: str, limit: float) -> list[str]:
    """`left & right` with every relation of `right` on a row of its own, and each row filled
    (broken at + and −) within `limit`; the tag on the last row."""
    out: list[str] = []
    lw = width(left)
    if lw > 0.45 * limit:  # a long left side: rows of its own, then the relations
        out += ["& " + (INDENT if k else "") + r for k, r in enumerate(_fill(left, limit))]
        left, lw = "", 0.0
    pieces = _relation_split("x " + right)[1:] if right else []
    for n, piece in enumerate(pieces):
        lead = left + " " if n == 0 and left else ""
        for k, r in enumerate(_fill(piece, limit, lw if n == 0 else 0.0)):
            out.append((lead if k == 0 else "") + "&" + (" " if k == 0 else " " + INDENT) + r)
    if not pieces:
        out.append(left + " &")
    if tag:
        out[-1] += " " + tag
    return out


MD_LINE = 200
"""Characters of a Markdown line at most (a reader's editor, a diff): display math is broken
into more rows and paragraphs at spaces to stay within it."""


def _aligned(row: str) -> str:
    return row if len(_split_top(row, "&")) > 1 else "& " + row


def _char_split(row: str, chars: int) -> list[str]:
    """One aligned row as rows of at most about `chars` characters, broken only where no
    \\left group is open (before a relation, + or −; after a clause), continuations
    indented; a row with no such break stays whole (`wrap_math_source` wraps its source)."""
    cells = _split_top(row, "&")
    prefix, content = cells[0], cells[1].strip()
    tag = ("&" + "&".join(cells[2:])) if len(cells) > 2 else ""
    toks = _tokens(content)
    top = [at for at, depth, _ in _breaks(toks) if depth == 0]
    # greedy: cut at the last top-level break before the row grows past `chars`
    cuts, begin = [], 0
    for k, at in enumerate(top):
        nxt = top[k + 1] if k + 1 < len(top) else len(toks)
        if len("".join(toks[begin:nxt])) > chars:
            cuts.append(at)
            begin = at
    bounds = [0] + cuts + [len(toks)]
    pieces = ["".join(toks[i:j]).strip() for i, j in zip(bounds, bounds[1:])]
    pieces = [p for p in pieces if p]
    if len(pieces) <= 1:
        return [row]
    out = [prefix + "& " + pieces[0]] + ["& " + INDENT + p for p in pieces[1:]]
    out[-1] += (" " + tag) if tag else ""
    return out


def char_rows(lines: tuple[str, ...], chars: int = MD_LINE - 20) -> list[str] | None:
    """`rows` for Markdown: the rows of an `aligned` where also a row longer than MD_LINE is
    broken into rows of about `chars` characters (a row narrow to the eye but long as text:
    nested \\frac and \\left … \\right), or None when every line stays as it is."""
    out = rows(lines)
    base = list(lines) if out is None else out
    if all(len(r) <= MD_LINE for r in base) or any(len(r) > LAYOUT_CHARS for r in base):
        return out
    result: list[str] = []
    for r in base:
        result += _char_split(_aligned(r), chars) if len(r) > MD_LINE else [_aligned(r)]
    return result


_NO_LINE_START = re.compile(r"[#>|=]|[-+*](?=[\s*_-]|$)|\d+[.)](?=\s|$)")
"""What must not begin a Markdown line of a paragraph (it would become a heading, a quote, a
table, a setext underline, a thematic break or a list item; a list marker needs a space
after it, so -0.5 or 0.25 may begin a line)."""


def wrap_markdown(text: str, chars: int = MD_LINE) -> str:
    """A paragraph of Markdown with lines of at most `chars` characters where it can be: broken
    at spaces outside `$…$` and code spans, never before a character that would start a block
    (a line with no such space stays long)."""
    if len(text) <= chars or "\n" in text:
        return text
    spaces, math, code, i = [], False, False, 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`" and not math:
            code = not code
        elif c == "$" and not code:
            math = not math
        elif c == " " and not math and not code and not _NO_LINE_START.match(text, i + 1):
            spaces.append(i)
        i += 1
    lines, start = [], 0
    while len(text) - start > chars:
        fit = [s for s in spaces if start < s <= start + chars]
        later = [s for s in spaces if s > start]
        if not fit and not later:
            break
        at = fit[-1] if fit else later[0]
        lines.append(text[start:at])
        start = at + 1
    return "\n".join(lines + [text[start:]])


_LONG_DIGITS = re.compile(r"\d{30,}")
"""Longer than any decimal a report writes (15 significant digits): only an exact value."""


def breakable(tex: str) -> str:
    """LaTeX text where a line may break inside a long run of digits (every ten), so a line,
    in Chinese without spaces, never leaves the text block (a long identifier breaks after
    each `\\_`: `document.FIT`)."""
    return _LONG_DIGITS.sub(lambda m: r"\allowbreak{}".join(
        m.group(0)[i:i + 10] for i in range(0, len(m.group(0)), 10)), tex)


def wrap_math_source(line: str, chars: int = MD_LINE) -> str:
    """A line of display-math source in lines of at most `chars` characters, broken at spaces
    (a newline is a space to TeX and KaTeX: what is drawn does not change); for a term no
    break of `char_rows` reaches, such as one long \\frac."""
    out = []
    while len(line) > chars:
        at = line.rfind(" ", 1, chars + 1)
        if at <= 0:
            at = line.find(" ", chars)
            if at < 0:
                break
        out.append(line[:at])
        line = line[at + 1:]
    return "\n".join(out + [line])
