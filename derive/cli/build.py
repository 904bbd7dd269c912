"""`derive build BANK -o SITE`: every artefact of every exercise of a bank, and an index page;
one forked worker per exercise (derive.cli.pool), results cached by content, the site written
all at once (built beside SITE, then renamed into place).

Each exercise's artefacts are separate files, SITE/<file>/<exercise id>/…, so that editing one
exercise recomputes only its files (and the index, always rebuilt).
"""

from __future__ import annotations

import base64
import dataclasses
import errno
import json
import os
import pickle
import shutil
import sys
import time
from pathlib import Path

from derive import interrupt
from derive.cli import build_site, settings
from derive.cli.build_files import file_key, read_entry, write_entry
from derive.cli.build_site import MANIFEST
from derive.cli.output import _check_target
from derive.cli.progress import progress
from derive.cli.terminal import safe
from derive.errors import DeriveError, OutputError, capped, quoted, quoted_path
from derive.limits import EXERCISE_SECONDS, RUN_SECONDS, run_passed
from derive.render.site import STATUSES

INDEX = "index.html"
LMS = "lms"
"""The folder of the bank-level LMS files (SITE/lms/: the SCORM packages, …)."""


def add_parser(sub) -> None:
    p = sub.add_parser("build", help="build every artefact of a bank of exercises, and an "
                       "index page")
    p.add_argument("bank", metavar="BANK", help="a folder of exercise files")
    p.add_argument("-o", dest="out", metavar="SITE", required=True,
                   help="the site's folder (new, empty, or built by derive before)")
    p.add_argument("--lang", nargs="+", metavar="LANG",
                   help="languages: en, zh, or both (`--lang en zh` or `--lang en,zh`; "
                        "default both)")
    p.add_argument("--only", metavar="ARTEFACTS",
                   help=f"artefacts, comma-separated, of {','.join(settings.ARTEFACTS)} "
                        f"(default all but pdf)")
    p.add_argument("--jobs", metavar="N", help="workers (default: the cores)")
    p.add_argument("--no-cache", dest="cache", action="store_false", default=None,
                   help="compute everything again, use and store no cached result")
    p.add_argument("--quiet", action="store_true", default=None,
                   help="no progress display and no summary line")
    p.add_argument("--time-limit", metavar="SECONDS",
                   help=f"time bound of one exercise (default {EXERCISE_SECONDS:g})")
    p.add_argument("--total-time-limit", metavar="SECONDS",
                   help=f"time bound of the whole build (default {RUN_SECONDS:g})")
    p.set_defaults(run=run)


# ---------------------------------------------------------------------------- one exercise

def artefact_files(only: tuple[str, ...], langs: tuple[str, ...]) -> list[tuple[str, str]]:
    """(artefact, file name) of every file each exercise gets, in a fixed order."""
    out = []
    if "check" in only:
        out += [("check", "check.txt"), ("check", "check.json")]
    for lang in langs:
        for art, name in (("key", f"key.{lang}.html"), ("key", f"key.{lang}.md"),
                          ("key", f"key.{lang}.tex"), ("pdf", f"key.{lang}.pdf"),
                          ("questions", f"sheet.{lang}.html"),
                          ("questions", f"questions.{lang}.md"),
                          ("export", f"export.{lang}.md"), ("page", f"page.{lang}.html"),
                          ("moodle", f"moodle.{lang}.xml"), ("qti", f"qti.{lang}.xml")):
            # a SCORM package is made of the exercises' pages
            if art in only or art == "page" and "scorm" in only:
                out.append((art, name))
    return out


_PAGES: dict[int, tuple] = {}
"""The page's questions of the report a worker renders (self-check pages and QTI items of both
languages draw from the same), computed once: (report, its PageExercise) by id(report)."""


def _page_exercise(report):
    # start-up: loaded only when `derive build` runs this
    from derive.exercises.report import page_exercises

    held = _PAGES.get(id(report))
    if held is None or held[0] is not report:
        _PAGES.clear()  # one report at a time: a worker renders one exercise
        held = _PAGES[id(report)] = (report, page_exercises([report], None))
    return held[1]


def _render(name: str, report, ex_name: str):
    """The text (bytes for a PDF) of one artefact of one exercise's report."""
    # start-up: the renderers are loaded by the workers that use them
    from derive.render import formats

    stem, _, fmt = name.partition(".")
    lang = fmt.partition(".")[0]
    ext = name.rsplit(".", 1)[1]
    if stem == "check":
        return formats.render("check", "text" if ext == "txt" else "json", [report])
    if stem == "key" and ext == "pdf":
        # start-up: loaded only when `derive build` runs this
        from derive.cli.pdf import pdf_of

        return pdf_of(formats.render("key", "tex", [report], lang=lang), lang)
    if stem == "key" and ext == "html":  # the key as a page, its formulas set by KaTeX
        # start-up: loaded only when `derive build` runs this
        from derive.render.derivation import key_document

        return formats.render("export", "html", key_document([report], lang))
    if stem == "key":
        return formats.render("key", ext, [report], lang=lang)
    if stem == "sheet":  # the printable sheet; the students' site assembles a lesson's
        # start-up: loaded only when `derive build` runs this
        from derive.render.numbers import writable
        from derive.render.questions import question_blocks
        from derive.render.students import exercise_sheet

        blocks = question_blocks(writable(report), lang)
        heading = blocks[0]
        return exercise_sheet(blocks, lang, ex_name + (f" — {heading.detail}"
                                                       if heading.detail else ""))
    if stem == "questions":
        # start-up: loaded only when `derive build` runs this
        from derive.render.questions import questions_document

        return formats.render("export", "md", questions_document([report], lang, ex_name))
    if stem == "export":
        # start-up: loaded only when `derive build` runs this
        from derive.render.derivation import exercises_document

        return formats.render("export", "md", exercises_document([report], lang, ex_name))
    if stem == "moodle":
        return _moodle(report, lang)
    if stem == "qti":
        # start-up: loaded only when `derive build` runs this
        from derive.render.qti import item_xml

        return item_xml(_page_exercise(report)[0][0], lang)
    # start-up: loaded only when `derive build` runs this
    from derive.render.selfcheck import selfcheck_document

    doc = selfcheck_document(_page_exercise(report), lang, ex_name)
    return formats.render("export", "html", doc)


MOODLE_VARIANTS = 10
"""Variants of an exercise with [exercise.vary] in its Moodle question category (besides the
exercise as written): enough that a quiz's random draw rarely gives two students the same
numbers, few enough that checking them (a full check and diagnosis each, 0.1–0.5 s) keeps a
bank's build within a few seconds per varied exercise."""

_moodle_pages: list = []
"""The last exercise's (report, pages): its variants are checked once for both languages."""


def _moodle(report, lang: str) -> str:
    """An exercise's Moodle questions: the exercise as written, then up to MOODLE_VARIANTS
    verified variants (`derive variants`' own, seed 0), each checked and graded as the
    self-check page judges it (derive.exercises.graded)."""
    # start-up: loaded only when `derive build` writes Moodle questions
    from derive.exercises import check_exercise
    from derive.exercises.graded import graded_parts
    from derive.exercises.report import page_exercise
    from derive.exercises.variants import VariantError, generate, variant_exercise
    from derive.render.moodle import moodle_questions

    if not (_moodle_pages and _moodle_pages[0] is report):
        reports = [report]
        if report.exercise.vary:
            try:
                found = generate(report.exercise, MOODLE_VARIANTS, 0, allow_fewer=True).variants
            except VariantError:
                found = ()
            for v in found:
                checked = check_exercise(variant_exercise(report.exercise, v), None)
                if checked.outcome != "undecided":
                    reports.append(checked)
        pages = [page_exercise(report, r) for r in reports]
        _moodle_pages[:] = [report, [(p, graded_parts(p.asked)) for p in pages]]
    return moodle_questions(_moodle_pages[1], lang)


def compute(ex, names: list[str], seconds: float, reason: str = "", cache=None,
            wall: float | None = None, wall_reason: str = "") -> tuple:
    """(texts by file name, status, line, report, failed): the exercise checked within
    `seconds` of CPU time (and `wall` seconds of the run's, said as `wall_reason`), then each
    artefact rendered within the same bounds. The status is the check's verdict (ok, wrong,
    undecided; invalid when the check refuses the exercise). An undecided exercise gets its
    check files only (as `derive key` and `export` refuse it). An artefact that cannot be
    written is left out and put in `failed` (file name: (reason, whether its engine is
    missing)): it never changes the verdict."""
    # start-up: loaded only when `derive build` runs this
    from derive.errors import EngineMissing
    from derive.exercises import check_exercise
    from derive.kernel.timebound import DecisionTimeout, time_bound

    try:
        report = None
        if cache is not None and not reason:
            report = cache.get_report(cache.exercise_key(ex, "report"), ex)
        if report is None:
            report = check_exercise(ex, seconds, reason=reason, wall=wall,
                                    wall_reason=wall_reason)
    except DeriveError as exc:
        return {}, "invalid", exc.line(), None, {}
    status = report.outcome
    line = report.undecided or ("a claim is undecided" if status == "undecided" else "")
    texts, failed = {}, {}
    for name in names:
        if status == "undecided" and not name.startswith("check."):
            continue
        try:
            with time_bound(seconds, wall=wall):
                texts[name] = _render(name, report, ex.id)
        except DecisionTimeout as exc:
            said = wall_reason if exc.wall and wall_reason else \
                f"passed its time bound of {seconds:g} s of CPU time (--time-limit)"
            failed[name] = (f"{said} while writing", False)
        except DeriveError as exc:
            failed[name] = (exc.line(), isinstance(exc, EngineMissing))
        except Exception as exc:  # noqa: BLE001 — a bug: this artefact's reason, the rest go on
            failed[name] = (_internal(exc), False)
    return texts, status, line, report, failed


def _internal(exc: Exception) -> str:
    return (f"internal error (a bug in derive, please report it with the input): "
            f"{type(exc).__name__}: {exc}")


# ------------------------------------------------------------------------------- the bank

@dataclasses.dataclass
class Item:
    """One exercise of the bank, or one invalid file (ex None, error its line)."""
    file: str
    folder: str
    ex: object = None
    error: str = ""
    id: str = ""
    title: str = ""
    texts: dict = dataclasses.field(default_factory=dict)
    status: str = ""
    line: str = ""
    cached: bool = False
    file_key: str | None = None
    """The address of its file's entry in the cache (derive.cli.build_files)."""
    addresses: dict = dataclasses.field(default_factory=dict)
    """The cache addresses of its artefacts when its file came whole from the cache: each is
    read as it is written."""
    failed: dict = dataclasses.field(default_factory=dict)
    """Its artefacts not written: file name → (reason, whether the engine is missing)."""


def _folder_name(part: str) -> str:
    """A path part safe as a folder of the site ('.', '..' and hidden names escaped)."""
    return "%2E" + part[1:] if part.startswith(".") else part


def load_bank(bank: str, cache=None, names: list[str] | None = None) -> list[Item]:
    """Every exercise of every file of the bank; an invalid file is an Item with its error, as
    `derive check` would give it, and never stops the others. A file found whole in the cache
    (derive.cli.build_files) is not read: its exercises come with their artefacts."""
    # start-up: loaded only when `derive build` runs this
    from derive.exercises.bank import _toml_entries, duplicate_id, load_file

    entries = _toml_entries([bank])  # a bank that is no folder of exercise files: before SymPy
    # start-up: the mistakes' layer (and SymPy) only once there are files to read
    from derive.exercises.declared import unapplied
    from derive.exercises.notation import bank_settings

    items, seen, declared, applied = [], {}, {}, set()
    root = Path(bank)
    for path, named, top in entries:
        rel = path.relative_to(root) if path.is_relative_to(root) else Path(path.name)
        folder = "/".join(_folder_name(p) for p in rel.with_suffix("").parts)
        key = file_key(cache, path, top, folder, names or []) if cache is not None else None
        entry = read_entry(cache, key) if key is not None else None
        if entry is not None:
            clash = next((e["id"] for e in entry["exercises"] if e["id"] in seen), None)
            if clash is not None:
                items.append(Item(str(path), folder,
                                  error=duplicate_id(str(path), clash, seen[clash]).line()))
                continue
            for e in entry["exercises"]:
                seen[e["id"]] = str(path)
                items.append(Item(str(path), e["folder"], id=e["id"], title=e["title"],
                                  status=e["status"], line=e["line"], cached=True,
                                  addresses=e["texts"]))
            declared.update({(d.path, d.key): d for d in bank_settings(path, top).mistakes})
            applied |= entry["applied"]
            continue
        try:
            exercises = load_file(path, named, top)
            for ex in exercises:
                if ex.id in seen:
                    raise duplicate_id(ex.path, ex.id, seen[ex.id])
        except DeriveError as exc:
            items.append(Item(str(path), folder, error=exc.line()))
            continue
        for ex in exercises:
            seen[ex.id] = ex.path
            declared.update({(d.path, d.key): d for d in getattr(ex.notation, "mistakes", ())})
            applied |= ex.bank_applied
            items.append(Item(str(path), f"{folder}/{_folder_name(ex.id)}", ex, id=ex.id,
                              title=ex.title or "", file_key=key))
    try:
        unapplied(tuple(declared.values()), applied)
    except DeriveError as exc:
        # the derive.toml that declares it, as the user named the bank (bank/derive.toml)
        items.append(Item(str(getattr(exc, "path", settings.SETTINGS_FILE)), "",
                          error=exc.line()))
    return items


def refuse_clashes(items: list[Item], names: list[str]) -> list[Item]:
    """The items, with every file refused (one line) that has an exercise whose site folder
    would also be a file: an artefact of another exercise (`a.toml` id `b` and `a/b.toml` id
    `check.txt`) or the site's own index (`index.zh.html.toml`)."""
    # start-up: loaded only when `derive build` runs this
    from derive.exercises.errors import ExerciseError

    own = {INDEX, MANIFEST, *(f"index.{lang}.html" for lang in settings.LANGS), STUDENTS, LMS}
    taken = {f"{i.folder}/{n}": i for i in items if i.id for n in names}
    refused: dict[str, str] = {}
    for item in items:
        if not item.id or item.file in refused:
            continue
        parts = item.folder.split("/")
        for n in range(1, len(parts) + 1):
            prefix = "/".join(parts[:n])
            other = (f"the site's own {prefix} folder" if prefix in (STUDENTS, LMS) else
                     "the site's own index") if n == 1 and prefix in own else (
                "a file of its lesson's page in the students' site"
                if n == len(parts) > 1 and parts[-1] in LESSON_FILES else
                f"a file of exercise {taken[prefix].id} of {taken[prefix].file}"
                if prefix in taken else "")
            if other:
                refused[item.file] = ExerciseError(
                    item.file, item.id, "id", f"its site folder {prefix} would also be {other}",
                    "rename the file or the exercise").line()
                break
    out, said = [], set()
    for item in items:
        if item.file not in refused:
            out.append(item)
        elif item.file not in said:
            said.add(item.file)
            out.append(Item(item.file, item.folder.rsplit("/", 1)[0] if item.id else item.folder,
                            error=refused[item.file]))
    return out


# ----------------------------------------------------------------------------------- cache

def _key(cache, ex, name: str, opts: settings.Options) -> str | None:
    """An artefact's address. Only decided exercises are stored, and their artefacts do not
    depend on the time bounds, so these are not in it (nor is the language: it is in `name`).
    """
    return cache.exercise_key(ex, "build", name)


def _from_cache(cache, item: Item, names: list[str], opts) -> bool:
    status = cache.get_text(_key(cache, item.ex, "status", opts))
    if status is None:
        return False
    texts = {}
    for name in names:
        text = cache.get_text(_key(cache, item.ex, name, opts))
        if text is None:
            return False
        texts[name] = base64.b64decode(text) if name.endswith(".pdf") else text
    item.status, item.line = json.loads(status)
    item.texts, item.cached = texts, True
    return True


def _to_cache(cache, item: Item, report, opts) -> None:
    # a time bound may decide another way next time, a missing engine be installed
    if item.status not in ("ok", "wrong") or item.failed:
        return
    for name, text in item.texts.items():
        if isinstance(text, bytes):
            text = base64.b64encode(text).decode("ascii")
        cache.put_text(_key(cache, item.ex, name, opts), text)
    cache.put_text(_key(cache, item.ex, "status", opts), json.dumps([item.status, item.line]))
    if report is not None:  # as `derive check`, `key` and `export` store it (and find it)
        cache.put_report(cache.exercise_key(item.ex, "report"), report)


# ----------------------------------------------------------------------------- the site

def _prepare(out: str, bank: str, inputs: list[str] = ()) -> tuple[Path, Path]:
    """(the site's path, the folder to build it in, beside it), after every refusal (a SITE
    that holds one of the `inputs`, which replacing it would delete, among them)."""
    name = quoted_path(out)  # as every message quotes a path: escaped, its middle cut
    if Path(out).is_symlink():
        raise OutputError(f"-o {name}: is a symbolic link; name the site's own folder")
    target = _check_target(out, [], what="a folder")
    resolved, source = target.resolve(), Path(bank).resolve()
    if resolved == source or resolved in source.parents:
        raise OutputError(f"-o {name}: holds the bank {quoted_path(bank)}; name a folder of "
                          f"its own for the site")
    held = next((f for f in inputs if resolved in Path(f).resolve().parents), None)
    if held is not None:
        raise OutputError(f"-o {name}: holds the bank's file {quoted_path(held)}; name a "
                          f"folder of its own for the site")
    if target.exists():
        if not target.is_dir():
            raise OutputError(f"-o {name}: is a file; name a folder")
        if any(target.iterdir()):
            build_site.check_replaceable(target, out)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"-o {name}: its parent folder does not exist; create it first")
    return target, build_site.aside_name(target)


def _make(aside: Path, out: str) -> None:
    """Make the folder the site is built in (its name was chosen first, so that a Ctrl-C at
    any instant of making it leaves a name the cleanup knows)."""
    try:
        build_site.make_working(aside)
    except OSError as exc:
        raise OutputError(f"-o {quoted_path(out)}: cannot be written "
                          f"({exc.strerror or exc})") from None


def _write(folder: Path, name: str, text) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        # a file name that is not UTF-8, in a text, is written as the command prints it
        path.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8",
                        errors="surrogateescape")


def _put_in_place(aside: Path, target: Path, out: str) -> None:
    """Rename the built site into place; an old site is renamed away first (once it is seen
    again to hold only what derive wrote), then removed."""
    (aside / build_site.BUILDING).unlink()
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(aside, 0o777 & ~umask)
    if not target.exists():
        os.rename(aside, target)
        return
    if not any(target.iterdir()):
        target.rmdir()
        os.rename(aside, target)
        return
    build_site.check_replaceable(target, out)
    old = build_site.old_name(target)
    os.rename(target, old / "site")
    try:
        os.rename(aside, target)
    except BaseException:
        os.rename(old / "site", target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)


# ------------------------------------------------------------------------------- command

class CacheLost(Exception):
    """An entry the build counted on left the cache (the cache was deleted while it ran)."""


def run(args) -> int:
    opts = settings.options(args)
    names = [name for _, name in artefact_files(opts.only, opts.langs)]
    cache = _open_cache(opts.cache)
    items = refuse_clashes(load_bank(args.bank, cache, names), names)
    aside = made = None
    target, planned = _prepare(args.out, args.bank, [i.file for i in items if i.folder])
    build_site.sweep_beside(target)  # what a build killed earlier left (its process gone)
    if "pdf" in opts.only:
        build_site.sweep_pdf()
    try:
        aside = planned  # named before it exists: the cleanup below removes it if it does
        _make(aside, args.out)
        made = aside
        for attempt in range(3):
            try:
                computed = _build(items, names, opts, aside, cache)
                break
            except CacheLost:  # read again: what the cache still has, or (twice) nothing
                shutil.rmtree(aside)
                _make(aside, args.out)
                if attempt:
                    cache = _open_cache(False)
                items = refuse_clashes(load_bank(args.bank, cache, names), names)
        _store_files(cache, items, names, opts)
        _finish(items, names, opts, aside, args.bank)
        interrupt.commit()  # a Ctrl-C before this line: no site; after it: ignored
        _put_in_place(aside, target, args.out)
        aside = None
    except OSError as exc:
        raise OutputError(f"-o {args.out}: cannot be written ({exc.strerror or exc}); "
                          f"nothing was written") from None
    except OutputError:
        if made is None:  # the name was another's (16 random hex digits): not ours to remove
            aside = None
        raise
    finally:
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
    exercises = [i for i in items if i.id]
    invalid = len(items) - len(exercises)
    failures = not_written(exercises)
    if not opts.quiet:
        counts = {s: sum(i.status == s for i in exercises) for s in STATUSES}
        said = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
        lost = sum(len(files) for files, _ in failures.values())
        print(safe(f"built {quoted_path(args.out)}: {len(exercises)} exercise(s) "
                   f"({said or 'none'}), {invalid} invalid file(s)"
                   + (f", {lost} artefact(s) not written" if lost else "")
                   + f"; {computed} computed, {len(exercises) - computed} from the cache"))
    for reason, (files, ids) in failures.items():  # errors: said with --quiet too
        print(safe(capped(f"derive build: {len(files)} artefact(s) not written "
                          f"({_listed(sorted(set(n for _, n in files)), 4)} of "
                          f"{len(ids)} exercise(s): {_listed([quoted(i) for i in ids], 2)}): "
                          f"{reason}")), file=sys.stderr)
    return exit_code(exercises, invalid, opts.asked)


def not_written(exercises: list[Item]) -> dict[str, tuple[list[tuple[str, str]], list[str]]]:
    """Each distinct reason an artefact was not written, once, in the order met: the
    (exercise folder, file name) pairs it left out, and the ids of their exercises."""
    out: dict[str, tuple[list, list]] = {}
    for item in exercises:
        for name, (reason, _) in item.failed.items():
            files, ids = out.setdefault(reason, ([], []))
            files.append((item.folder, name))
            if item.id not in ids:
                ids.append(item.id)
    return out


def _listed(names: list[str], most: int) -> str:
    """The first `most` names, and how many more."""
    shown = ", ".join(names[:most])
    return shown if len(names) <= most else f"{shown} and {len(names) - most} more"


def exit_code(exercises: list[Item], invalid: int, asked: tuple[str, ...]) -> int:
    """As `derive check` of the bank: 2 an invalid file or exercise, 1 a claim wrong or
    undecided, 0 every claim holds. An artefact not written makes it 2, as the command that
    writes that artefact alone would exit, unless only its engine is missing and it was not
    asked for by name (`--only`, `only` in [build]): a default artefact of a broken install
    does not hide the verdicts (it is said on stderr and in the index all the same)."""
    kinds = {name: art for art, name in artefact_files(settings.ARTEFACTS, settings.LANGS)}
    if invalid or any(i.status == "invalid" for i in exercises):
        return 2
    if any(not missing or kinds[name] in asked
           for i in exercises for name, (_, missing) in i.failed.items()):
        return 2
    return 0 if all(i.status == "ok" for i in exercises) else 1


def _build(items: list[Item], names: list[str], opts, aside: Path, cache) -> int:
    """Every exercise's artefacts written into `aside`; the number computed (not cached)."""
    # start-up: loaded only when `derive build` runs this
    from derive.cli import pool
    from derive.cli.cache import pack_report, unpack_report

    todo = []
    for item in items:  # what the cache has is written as found, never all held at once
        if item.ex is not None and not _from_cache(cache, item, names, opts):
            todo.append(item)
        elif item.cached:
            _write_texts(aside, item, cache)
    end = time.monotonic() + opts.total_time_limit

    def work(n: int) -> bytes:
        item = todo[n]
        left = end - time.monotonic()
        said = run_passed(opts.total_time_limit)
        try:
            texts, status, line, report, failed = compute(
                item.ex, names, opts.time_limit, "" if left > 0 else said, cache,
                wall=max(left, 1e-6), wall_reason=said)
        except Exception as exc:  # noqa: BLE001 — a bug: this exercise's line, the rest go on
            texts, status, line, report, failed = {}, "invalid", _internal(exc), None, {}
        packed = None
        if report is not None:
            try:
                packed = pack_report(report)
            except Exception:  # noqa: BLE001 — the report is then not cached
                packed = None
        return pickle.dumps((texts, status, line, packed, failed))

    def done(n: int, payload: bytes | None, why: str) -> None:
        item = todo[n]
        if payload is None:
            item.status, item.line = "undecided", why
        else:  # bytes this build's own child wrote into its pipe
            item.texts, item.status, item.line, packed, item.failed = pickle.loads(payload)
            report = unpack_report(packed, item.ex) if packed is not None else None
            _to_cache(cache, item, report, opts)
            _write_texts(aside, item)
        bar.advance(item.id)

    with progress(len(todo), opts.quiet) as bar:
        wall = opts.time_limit * (2 + len(names)) + 30
        try:
            pool.run(len(todo), opts.jobs, work, done, wall=wall)
        finally:  # the temporary folders of workers killed while TeX ran
            if "pdf" in opts.only:
                build_site.sweep_pdf()
    return len(todo)


def _write_texts(aside: Path, item: Item, cache=None) -> None:
    """Write an exercise's files as soon as they are known (those of the cache as they are
    read); only their names are kept. A path too long for the file system refuses the
    exercise (one line), not the build; an entry gone from the cache is CacheLost."""
    try:
        for name, text in item.texts.items():
            _write(aside, f"{item.folder}/{name}", text)
        for name, at in item.addresses.items():
            text = cache.get_text(at)
            if text is None:
                raise CacheLost(f"{item.folder}/{name}")
            _write(aside, f"{item.folder}/{name}",
                   base64.b64decode(text) if name.endswith(".pdf") else text)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
        # start-up: loaded only when `derive build` runs this
        from derive.exercises.errors import ExerciseError

        shutil.rmtree(aside / item.folder, ignore_errors=True)
        item.texts, item.addresses, item.failed, item.status = {}, {}, {}, "invalid"
        item.line = ExerciseError(
            item.file, item.id, "id", f"its site folder ({len(str(item.folder)):,} characters "
            f"under the site; the file names it from its path and id) is too long for this file "
            f"system ({exc.strerror})", "shorten the file's name, its folders' "
            "names or the exercise's id").line()
        return
    item.texts = dict.fromkeys([*item.texts, *item.addresses])
    item.addresses = {}


def _moodle_quiz(items: list[Item], opts, aside: Path, bank: str, course) -> None:
    """SITE/lms/moodle.{lang}.xml: every exercise's questions (read back from its file) under
    the category $course$/<course>/<lesson file>/<exercise id> (the course's [course] title in
    that language, else the bank folder's name), so that a quiz's random question from a
    category draws one of an exercise's variants."""
    # start-up: loaded only when `derive build` writes Moodle questions
    from derive.render.moodle import quiz

    folder = Path(bank).resolve().name or "bank"
    for lang in opts.langs:
        title = (course.title_zh or course.title) if lang == "zh" else course.title
        name = f"moodle.{lang}.xml"
        fragments = []
        for item in items:
            if item.id and name in item.texts:
                text = (aside / item.folder / name).read_text(encoding="utf-8")
                fragments.append(([title or folder, *item.folder.split("/")], text))
        _write(aside, f"lms/{name}", quiz(fragments))


def _finish(items: list[Item], names: list[str], opts, aside: Path, bank: str = "") -> None:
    """The bank-level files, from the exercises' files already written in `aside`: the
    students' site (SITE/students/), then the authors' index, then the manifest."""
    # start-up: loaded only when `derive build` runs this
    from derive import __version__
    from derive.render.site import Row, index_html

    course = settings.course(bank) if bank else settings.Course()
    lessons = _students(items, opts, aside, course)
    rows = []
    for item in items:
        if not item.id:
            rows.append(Row(item.file, line=item.error))
            continue
        written = [name for name in names if name in item.texts]
        rows.append(Row(item.file, item.id, item.title, item.status, item.line,
                        [(n, f"{item.folder}/{n}") for n in written],
                        _first_wrong(aside / item.folder, item),
                        [(name, item.failed[name][0]) for name in names if name in item.failed]))
    if "scorm" in opts.only:  # the LMS files first: the index lists them
        _scorm(items, opts, aside, course)
    if "moodle" in opts.only:
        _moodle_quiz(items, opts, aside, bank, course)
    if "qti" in opts.only:
        _qti_packages(items, opts, aside)
    lms = sorted(p.name for p in (aside / LMS).iterdir()) if (aside / LMS).is_dir() else []
    for n, lang in enumerate(opts.langs):
        name = INDEX if n == 0 else f"index.{lang}.html"  # students/ names its pages alike
        _write(aside, name,
               index_html(rows, lang, students=f"{STUDENTS}/{name}" if lessons else "",
                          lms=[f"{LMS}/{f}" for f in lms],
                          switch=[(x, INDEX if k == 0 else f"index.{x}.html")
                                  for k, x in enumerate(opts.langs)]))
    _write(aside, MANIFEST, build_site.manifest(aside, __version__))


STUDENTS = "students"
"""The students' site's folder in SITE: the folder to publish (no key, check nor source)."""
LESSON_FILES = ("index.html", "index.zh.html", "sheet.html", "sheet.zh.html")
"""The files of a lesson's folder in the students' site (an exercise's folder beside them)."""


def _first_wrong(folder: Path, item: Item) -> tuple[str, str, str, int] | None:
    """The check's first wrong claim, for the authors' index: (its name, the value claimed,
    the value derive finds, how many more are wrong), from check.json, written beside it; None
    when none is wrong or no check was asked."""
    if item.status != "wrong" or "check.json" not in item.texts:
        return None
    try:
        data = json.loads((folder / "check.json").read_text(encoding="utf-8"))
        claims = data["exercises"][0]["claims"]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    wrong = [c for c in claims if c.get("status") == "wrong"]
    if not wrong:
        return None
    c = wrong[0]
    claimed = c.get("claimed")
    claimed = ", ".join(map(str, claimed)) if isinstance(claimed, list) else str(claimed)
    expected = c.get("expected") or c.get("expected_text") or ""  # exact: 6/5, never ≈
    expected = ", ".join(map(str, expected)) if isinstance(expected, list) else str(expected)
    return str(c.get("name")), claimed, expected, len(wrong) - 1


def _students(items: list[Item], opts, aside: Path, course) -> list:
    """SITE/students/: the course's page, a page and a question sheet per lesson (an exercise
    file), and a copy of each self-check page; read from the files written in `aside`. The
    lessons written ([] when neither pages nor sheets were asked)."""
    # start-up: loaded only when `derive build` runs this
    from derive.render import students as site
    from derive.render.questions import WORDS as SHEET_WORDS

    langs = opts.langs
    if not ({"page", "questions"} & set(opts.only)):
        return []
    by_lesson: dict[str, list[Item]] = {}
    for item in items:
        if item.id and item.texts:
            by_lesson.setdefault(item.folder.rsplit("/", 1)[0], []).append(item)
    lessons = []
    for folder, group in by_lesson.items():
        root = f"{STUDENTS}/{folder}"
        first = langs[0]
        exercises, sheets = [], {lang: [] for lang in langs}
        for item in group:
            own = item.folder.rsplit("/", 1)[1]
            title = ""
            for lang in langs:
                sheet = aside / item.folder / f"sheet.{lang}.html"
                if f"sheet.{lang}.html" in item.texts:
                    text = sheet.read_text(encoding="utf-8")
                    sheets[lang] += site.sheet_sections(text)
                    if lang == first:  # the title the sheet shows (none if it states an answer)
                        title = site.shown_title(text).partition(" — ")[2]
                if f"page.{lang}.html" in item.texts:
                    text = (aside / item.folder / f"page.{lang}.html").read_text(
                        encoding="utf-8")
                    _write(aside, f"{root}/{own}/page.{lang}.html", site.with_back_link(
                        text, f"../{site.index_name(lang, langs)}",
                        site.lesson_title(course, folder, lang)))
            page = f"{own}/page.{first}.html" if f"page.{first}.html" in item.texts else ""
            exercises.append((own, item.id, title, page))
        has_sheet = all(sheets.values()) and bool(sheets)
        for lang in langs:
            lesson = site.Lesson(folder, site.lesson_title(course, folder, lang), tuple(
                site.Exercise(id_, title, page.replace(f".{first}.html", f".{lang}.html"))
                for own, id_, title, page in exercises), has_sheet)
            _write(aside, f"{root}/{site.index_name(lang, langs)}",
                   site.lesson_page(course, lesson, lang, langs))
            if has_sheet:
                _write(aside, f"{root}/{site.sheet_name(lang, langs)}",
                       site.sheet_page(course, folder, sheets[lang], lang, langs,
                                       SHEET_WORDS[lang]["note"]))
        lessons.append(lesson)
    order = [name for name, _, _ in course.lessons]  # as [course.lessons] lists them, then
    lessons.sort(key=lambda x: order.index(x.folder) if x.folder in order else len(order))
    for lang in langs:
        _write(aside, f"{STUDENTS}/{site.index_name(lang, langs)}",
               site.students_index(course, lessons, lang, langs))
    return lessons


QUESTIONS = b'id="derive-data"'
"""What a self-check page that asks something holds (derive.render.html: its questions' data)."""


def _scorm(items: list[Item], opts, aside: Path, course) -> None:
    """SITE/lms/<lesson>.scorm12.<lang>.zip and .scorm2004.<lang>.zip of each exercise file
    (a lesson) with a page written in that language that asks a question: one SCO per such
    exercise, its page read back from the site (derive.render.scorm)."""
    # start-up: loaded only when `derive build` makes SCORM packages
    from derive.render.scorm import VERSIONS, Sco, package, package_name
    from derive.render.students import lesson_title

    lessons: dict[str, list[Item]] = {}
    for item in items:
        if item.id:
            lessons.setdefault(item.file, []).append(item)
    for group in lessons.values():
        lesson = group[0].folder.rsplit("/", 1)[0]
        for lang in opts.langs:
            page = f"page.{lang}.html"
            pages = [(i.id, (aside / i.folder / page).read_bytes()) for i in group
                     if page in i.texts]
            # a page that asks nothing has no script: it would never report to the LMS
            scos = [Sco(id_, text) for id_, text in pages if QUESTIONS in text]
            if not scos:
                continue
            for version in VERSIONS:
                _write(aside, f"{LMS}/{package_name(lesson, version, lang)}",
                       package(version, lesson, lesson_title(course, lesson, lang), scos,
                               lang))


def _qti_packages(items: list[Item], opts, aside: Path) -> None:
    """SITE/lms/qti.{lang}.zip: every exercise's item written in `aside`, grouped by lesson
    (its exercise file), in the bank's order."""
    # start-up: loaded only when `derive build` runs this
    from derive.render.qti import package

    for lang in opts.langs:
        name = f"qti.{lang}.xml"
        lessons: dict[str, list[tuple[str, bytes]]] = {}
        for item in items:
            if item.id and name in item.texts:
                lesson = Path(item.file).stem
                lessons.setdefault(lesson, []).append(
                    (item.id, (aside / item.folder / name).read_bytes()))
        _write(aside, f"lms/qti.{lang}.zip", package(list(lessons.items())))


def _store_files(cache, items: list[Item], names: list[str], opts) -> None:
    """Each file whose every exercise was decided and written whole, as one entry."""
    files: dict[str, list[Item]] = {}
    for item in items:
        if item.ex is not None:
            files.setdefault(item.file, []).append(item)
    for group in files.values():
        if any(i.status not in ("ok", "wrong") or set(i.texts) != set(names) for i in group):
            continue
        exercises = [{"id": i.id, "title": i.title, "folder": i.folder, "status": i.status,
                      "line": i.line,
                      "texts": {n: _key(cache, i.ex, n, opts) for n in names}} for i in group]
        applied = set().union(*(i.ex.bank_applied for i in group))
        write_entry(cache, group[0].file_key, exercises, applied)


def _open_cache(enabled: bool):
    # start-up: loaded only when `derive build` runs this
    from derive.cli.cache import Cache

    return Cache.open(enabled)
