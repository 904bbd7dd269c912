"""`derive prove [ID | FILE.toml …] [--format text|json]`: decide every statement afresh, those
of proofs/ by id and the [[statement]] tables of files."""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING

from derive.cli import settings
from derive.cli.cache import Cache, folder_digest
from derive.cli.errors import UsageError, did_you_mean
from derive.cli.output import emit
from derive.errors import quoted, quoted_path
from derive.ids import ID_PATTERN
from derive.limits import RUN_SECONDS

if TYPE_CHECKING:
    from derive.statements import Outcome, Statement


def add_parser(sub) -> None:
    p = sub.add_parser("prove", help="prove the identities and refute the non-identities")
    p.add_argument("ids", nargs="*", metavar="ID|FILE.toml",
                   help="statement ids of proofs/, or files (or folders) of [[statement]] "
                        "tables (default: every statement of proofs/)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--total-time-limit", default=RUN_SECONDS, metavar="SECONDS",
                   help="time bound of the whole run: statements not begun by then are "
                   f"unknown (default {RUN_SECONDS:g}; each decision has its own bound)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="prove on N processes (default: DERIVE_JOBS, else the cores, at most 4)")
    p.add_argument("--no-cache", dest="cache", action="store_false",
                   help="prove every statement again, and keep nothing (the cache is "
                   "$DERIVE_CACHE_DIR, else ~/.cache/derive, safe to delete)")
    p.set_defaults(run=run)


def _show(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    text = getattr(value, "text", None)
    if text is not None:
        return f"≈{text}"
    # start-up: the kernel (and SymPy) only once there are outcomes to show
    from derive.kernel import exact_str

    return value if isinstance(value, str) else exact_str(value)


def outcome_json(o: Outcome) -> dict:
    s = o.statement
    return {
        "id": s.id,
        "title": s.title,
        "expect": s.expect.value,
        "verdict": o.verdict.value,
        "witness": o.witness.as_dict() if o.witness else None,
        "seconds": round(o.seconds, 4),
        "ok": o.ok,
        "claim": s.claim,
        "strategy": o.strategy,
        "detail": o.detail,
        "facts": [{"fact": name, "checked": ok, "reason": reason, "uses": list(uses)}
                  for name, ok, reason, uses in o.facts],
        "facts_used": sorted({f for d in o.steps for f in d.facts}),
        "holds_when": list(s.holds_when),
        "notes": list(s.notes),
        "sizes": list(s.sizes),
        "indices": list(s.indices),
        "steps": [{"reason": st.reason, "verdict": d.verdict.value, "rules": list(d.rules),
                   "facts": list(d.facts), "conditions": list(d.conditions)}
                  for st, d in zip(s.proof.steps if s.proof else (), o.steps)],
        "instances": [
            {"label": i.label, "source": i.source, "ok": i.ok,
             "values": {name: {"expected": _show(want), "got": _show(got) if got is not None
                               else None, "ok": ok} for name, want, got, ok in i.checks}}
            for i in o.instances
        ],
    }


def text_report(outcomes: list[Outcome]) -> str:
    """The table `derive prove` prints: one line per statement, its witness, what is not as
    expected, and a summary."""
    width = max(len(o.statement.id) for o in outcomes)
    lines = [f"{'ID':<{width}}  {'VERDICT':<8} {'EXPECTED':<8} {'COURSE':>6} {'TIME':>7}  TITLE"]
    for o in outcomes:
        s = o.statement
        good = sum(i.ok for i in o.instances)
        mark = "" if o.ok else "  ✗"
        lines.append(f"{s.id:<{width}}  {o.verdict.value:<8} {s.expect.value:<8} "
                     f"{good:>2}/{len(o.instances):<3} {o.seconds:>6.2f}s  {s.title}{mark}")
        if s.sizes or s.indices:
            lines.append(f"{'':<{width}}  " + "; ".join(
                ([f"sizes {', '.join(s.sizes)}"] if s.sizes else [])
                + ([f"entry-wise at {', '.join(s.indices)}"] if s.indices else [])))
        if o.witness:
            lines.append(f"{'':<{width}}  witness: {o.witness.describe()}")
        if o.verdict is not s.expect:
            lines.append(f"{'':<{width}}  expected {s.expect.value}, got {o.verdict.value}: "
                         f"{o.detail or o.strategy}")
        for inst in o.instances:
            for name, want, got, ok in inst.checks:
                if not ok:
                    lines.append(f"{'':<{width}}  {inst.label}: {name} should be {_show(want)}, "
                                 f"computed {_show(got) if got is not None else 'nothing'}")
    counts = {}
    for o in outcomes:
        counts[o.verdict.value] = counts.get(o.verdict.value, 0) + 1
    n_inst = sum(len(o.instances) for o in outcomes)
    ok_inst = sum(i.ok for o in outcomes for i in o.instances)
    bad = [o.statement.id for o in outcomes if not o.ok]
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    lines.append("")
    noun = "statement" if len(outcomes) == 1 else "statements"
    lines.append(f"{len(outcomes)} {noun}: {summary}; course instances {ok_inst}/{n_inst} "
                 f"reproduced (exact values, printed decimals as rounded); "
                 + ("all as expected" if not bad else f"NOT as expected: {', '.join(bad)}"))
    return "\n".join(lines)


def is_path(arg: str) -> bool:
    """Whether an argument names a file or folder rather than an id: it ends in .toml, holds a
    '/', or exists and is not written like an id (a folder `proofs` is written `proofs/`).
    Anything else is an id, so a mistyped id gets its suggestion."""
    # start-up: the bank's reader is loaded only for an argument that may be a path
    from derive.exercises.bank import on_disk

    return arg.endswith(".toml") or "/" in arg or os.sep in arg or (
        not ID_PATTERN.match(arg) and on_disk(arg))


def _select(ids: list[str]) -> list[Statement]:
    # start-up: the statements' layer (and SymPy) only once `derive prove` runs
    from derive.statements.registry import InvalidProofs, UnknownStatement, all_statements, select

    try:
        return select(ids)
    except InvalidProofs as exc:
        raise UsageError(str(exc)) from None
    except UnknownStatement as exc:
        name = exc.args[0]
        raise UsageError(f"no statement '{quoted(name)}' in proofs/"
                         f"{did_you_mean(name, [s.id for s in all_statements()])} "
                         f"(`derive prove` with no id runs them all; a file of statements "
                         f"ends in .toml)") from None


def statements_for(args: list[str]) -> list[Statement]:
    """The statements the arguments name, in their order: ids of proofs/ and the statements
    of files; every id once."""
    if not any(is_path(a) for a in args):
        return _select(args)
    # start-up: only `derive prove FILE.toml` loads the exercises layer, and every file is read
    # (a missing one, one not UTF-8 or not TOML refused) before the statements' layer and SymPy
    from derive.exercises.statement_files import read_paths

    read = {arg: read_paths([arg]) for arg in args if is_path(arg)}
    # start-up: the statements' layer (and SymPy) once every file is read
    from derive.exercises.statements import statements_in

    out: list[Statement] = []
    origin: dict[str, str] = {}
    for arg in args:
        found = statements_in(read[arg]) if arg in read else [(s, "proofs/")
                                                               for s in _select([arg])]
        for s, where in found:
            if s.id in origin:
                raise UsageError(f"{quoted_path(where)}: statement '{quoted(s.id)}' is also a "
                                 f"statement of {quoted_path(origin[s.id])}; give every "
                                 f"statement its own id (and name each file once)")
            origin[s.id] = where
            out.append(s)
    return out


def _cache_key(cache: Cache, args) -> str | None:
    """The address of what `derive prove` prints for statements of proofs/ named by id (or all
    of them): derive's source and versions (the cache's own part), every file of proofs/, the
    ids and the format. Files of statements are not cached (None)."""
    if not cache.enabled or any(is_path(a) for a in args.ids):
        return None
    # start-up: proofs/ is found, not imported (importing it is the statements' work)
    spec = importlib.util.find_spec("derive.proofs")
    if spec is None or not spec.submodule_search_locations:
        return None
    digest = hashlib.sha256()
    for folder in spec.submodule_search_locations:
        folder_digest(digest, Path(folder).resolve())
    return cache.key("prove", args.format, digest.hexdigest(), *args.ids)


def run(args) -> int:
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {quoted(args.jobs)}: give a number of processes ≥ 1")
    args.total_time_limit = settings.seconds(args.total_time_limit,
                                             settings.flag_fail("--total-time-limit"))
    cache = Cache.open(args.cache)
    key = _cache_key(cache, args)
    found = cache.get_text(key)
    if found is not None and found[:2] in ("0\n", "1\n"):
        emit(found[2:], None)
        return int(found[0])
    statements = statements_for(args.ids)  # a file that cannot be read: refused before SymPy
    # start-up: the statements' layer (and SymPy) only once statements are proved
    from derive.statements.parallel import prove_all

    outcomes = prove_all(statements, args.jobs, args.total_time_limit)
    if args.format == "json":
        # start-up: only the JSON output loads the renderers' escapes
        from derive.render.escape import json_text

        text = json_text({"statements": [outcome_json(o) for o in outcomes]}, indent=2)
    else:
        text = text_report(outcomes)
    code = 0 if all(o.ok for o in outcomes) else 1
    if code == 0 and all(o.verdict.value != "unknown" for o in outcomes):
        # kept only when every statement was decided as expected: an unknown (a time bound)
        # may be decided on another run
        cache.put_text(key, f"{code}\n{text}")
    emit(text, None)
    return code
