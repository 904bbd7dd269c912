"""Hostile inputs for the `derive` command line: the case table and the runner.

Each case builds its input in a fresh folder and says how `derive` must behave on it. The
runner starts `python -m derive …` (or `python -m pytest …` for the plugin) in a child process
under an address-space limit (`RLIMIT_AS`, set in `preexec_fn`) and a wall-clock limit, reads
its peak resident memory (`VmHWM`, every 10 ms while it runs; `ru_maxrss` would count the
pages it shared with the test process before exec), and judges the outcome:

- never a Python traceback (`Traceback (most recent call last)`, `Exception ignored in`);
- never a hang (the child is killed at the wall limit);
- the exit code is one of the allowed ones; exit 2 (invalid input, misuse) and exit 130
  (Ctrl-C) print exactly one line on stderr;
- within the case's seconds and MiB;
- stderr holds no Python repr (`Written(value=`, `BadNumber(`, `datetime.date(`) and no control
  character (ESC, other C0/C1 controls, bidirectional overrides);
- then the case's own checks of the output (files left untouched, nothing half-written, text
  escaped for LaTeX, Markdown and the terminal).

Used by `tests/test_hostile.py` (pytest; slow cases only with DERIVE_SLOW=1) and
`benchmarks/hostile.py` (every case, a table of exit code, seconds and peak MiB).

Which `derive` runs: the interpreter `DERIVE_PYTHON` (default: the repository's
.venv/bin/python, else the current one) with `DERIVE_PYTHONPATH` in front of its path (empty by
default: the installed `derive`). The child's working folder is the case's folder, so a
`derive/` folder elsewhere never shadows the one under test.

Expected behaviour is the issue's: bad input → one line on stderr and exit 2; a time bound
passed → exit 1 for `check` (status `undecided`), exit 2 for `key`/`export`
(/work/shared/CONTRACT.md, "Additions"); Ctrl-C → one line, exit 130; memory under a few
hundred MiB for inputs of kilobytes.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import re
import resource
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
STATIC = HERE / "hostile"
REPO = HERE.parent

MiB = 1 << 20
MAX_MESSAGE = 300
"""Every line derive prints for exit 2 or 130 is shorter (the issue's message rule)."""
AS_LIMIT = 2 << 30
"""The child's address-space limit: 2 GiB."""

DEFAULT_MAX_MIB = 300
"""Peak resident memory allowed for inputs of kilobytes."""

IS_ROOT = os.geteuid() == 0

# --------------------------------------------------------------------------- what runs


def _default_python() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


@dataclass(frozen=True)
class Target:
    """The `derive` under test: an interpreter and what goes in front of its sys.path."""

    python: str = field(default_factory=lambda: os.environ.get("DERIVE_PYTHON")
                        or _default_python())
    pythonpath: str = field(default_factory=lambda: os.environ.get("DERIVE_PYTHONPATH", ""))

    def env(self, extra_path: tuple[str, ...] = ()) -> dict:
        env = dict(os.environ)
        # A user's shell: stdout block-buffered when it is not a terminal (PYTHONUNBUFFERED
        # would hide the broken-pipe error at exit), no pytest settings of the outer run.
        for name in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_CURRENT_TEST", "COLUMNS",
                     "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONDEVMODE", "PYTHONWARNINGS"):
            env.pop(name, None)
        parts = [*extra_path, *filter(None, self.pythonpath.split(os.pathsep))]
        if parts:
            env["PYTHONPATH"] = os.pathsep.join(parts)
        else:
            env.pop("PYTHONPATH", None)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.setdefault("LANG", "C.UTF-8")
        return env

    @functools.cached_property
    def package(self) -> tuple[Path, Path]:
        """The folders of the `derive` package and of its statements (`derive.proofs`)."""
        code = ("import derive, derive.proofs, os; "
                "print(os.path.dirname(derive.__file__)); "
                "print(os.path.dirname(derive.proofs.__file__))")
        out = subprocess.run([self.python, "-c", code], capture_output=True, text=True,
                             env=self.env(), cwd="/", check=True, timeout=120).stdout.split("\n")
        return Path(out[0]), Path(out[1])


# --------------------------------------------------------------------------- cases


class Skip(Exception):
    """The case cannot be built here (a tool or a privilege is missing)."""


@dataclass
class Interrupt:
    """Send SIGINT (Ctrl-C) to the child: once it reports `point` (DERIVE_TEST_PROGRESS,
    derive.interrupt.reached: a point of its own work, whatever the load of the machine); or
    when `when()` first holds, but not before `after` seconds, nor before the child has used
    `cpu` seconds of CPU time, and at the latest at `fallback` seconds."""

    after: float = 0.0
    when: Callable[[], bool] | None = None
    fallback: float | None = None
    cpu: float = 0.0
    point: str | None = None
    progress: Path | None = None
    """The file the child reports its points in (set by `run`)."""

    def due(self, elapsed: float, pid: int | None = None) -> bool:
        if self.point is not None:
            try:
                said = self.progress.read_text(encoding="ascii").splitlines()
            except (OSError, AttributeError):
                return False
            return any(ln.split(" ")[0] == self.point for ln in said)
        if elapsed < self.after:
            return False
        if self.cpu and pid is not None and _cpu_seconds(pid) < self.cpu and \
                (self.fallback is None or elapsed < self.fallback):
            return False
        if self.when is None or (self.fallback is not None and elapsed >= self.fallback):
            return True
        return bool(self.when())


@dataclass
class Result:
    rc: int | None
    """Exit status as subprocess reports it: negative when killed by a signal."""
    seconds: float
    peak_mib: float
    stdout: bytes
    stderr: bytes
    timed_out: bool = False
    interrupted_at: float | None = None
    cpu_seconds: float = 0.0
    """The child's CPU time (user + system): what `max_seconds` bounds, so that a busy
    machine, which stretches wall time, does not fail a case."""

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "replace")

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    @property
    def stderr_lines(self) -> int:
        return len(self.err.splitlines())

    @property
    def traceback(self) -> bool:
        return any(m in self.stderr for m in (b"Traceback (most recent call last)",
                                              b"Exception ignored in", b"INTERNALERROR"))


Check = Callable[[Result], list[str]]


@dataclass
class Run:
    """What a case runs and what it expects."""

    argv: list[str]
    exit_codes: tuple[int, ...]
    max_seconds: float = 5.0
    """Most CPU seconds the child may use (its own bounds count CPU time too)."""
    max_mib: float = DEFAULT_MAX_MIB
    wall: float = 60.0
    """Killed after this many seconds of wall time, a hang (generous: a busy machine
    stretches wall time; the benchmark uses its own, longer limit)."""
    module: str = "derive"
    stdout: str = "file"
    """`file` (captured), `closed` (a pipe whose reader is gone), `head1` (a pipe whose reader
    takes one byte and leaves, as `| head -c1`), `devfull` (/dev/full)."""
    interrupt: Interrupt | None = None
    drop_dac: bool = False
    """Run without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH, so file modes bind root too."""
    extra_path: tuple[str, ...] = ()
    checks: list[Check] = field(default_factory=list)
    one_line: bool = True
    """Exit 2 and exit 130 print exactly one line on stderr."""
    terminal: bool = False
    """stdout is what a terminal shows: no control characters in it either."""
    cleanup: list[Callable[[], None]] = field(default_factory=list)


@dataclass
class Case:
    id: str
    klass: str
    build: Callable[[Path, Target], Run]
    slow: bool = False
    note: str = ""


CASES: list[Case] = []


def case(id: str, klass: str, *, slow: bool = False):
    def deco(fn):
        CASES.append(Case(id, klass, fn, slow, " ".join((fn.__doc__ or "").split())))
        return fn
    return deco


# --------------------------------------------------------------------------- the runner

_libc = ctypes.CDLL(None, use_errno=True)
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def _drop_dac() -> None:
    """Drop the capabilities that let root ignore file modes (the exec that follows loses
    them: for root, the permitted set after exec is the bounding set)."""
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _preexec(as_limit: int, drop_dac: bool):
    def fn():
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = as_limit if hard == resource.RLIM_INFINITY else min(as_limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        if drop_dac and os.geteuid() == 0:
            _drop_dac()
    return fn


@functools.cache
def modes_bind() -> bool:
    """Whether a child run with `drop_dac` is refused by a folder of mode 000."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        locked = Path(d, "locked")
        locked.mkdir()
        locked.chmod(0)
        try:
            p = subprocess.run([sys.executable, "-c", f"import os; os.listdir({str(locked)!r})"],
                               capture_output=True, preexec_fn=_preexec(AS_LIMIT, True),
                               timeout=60, check=False)
            return p.returncode != 0
        except (OSError, subprocess.SubprocessError):
            return False
        finally:
            locked.chmod(0o700)


def run(run: Run, tmp: Path, target: Target, wall: float | None = None,
        as_limit: int = AS_LIMIT) -> Result:
    """Run the child once; never raises for the child's behaviour."""
    # a hang is wall time far past the CPU time allowed: a busy machine stretches wall time
    wall = max(run.wall, 4 * run.max_seconds) if wall is None else wall
    work = tmp / "work"
    cmd = [target.python, "-m", run.module, *run.argv]
    out_path, err_path = tmp / "stdout.bin", tmp / "stderr.bin"
    err_fh = open(err_path, "wb")
    read_end = None
    if run.stdout == "file":
        out_fh = open(out_path, "wb")
    elif run.stdout == "devfull":
        out_fh = open("/dev/full", "wb")
    elif run.stdout in ("closed", "head1"):
        read_end, out_fh = os.pipe()
    else:
        raise ValueError(run.stdout)
    env = target.env(run.extra_path)
    if run.interrupt and run.interrupt.point:
        run.interrupt.progress = tmp / "progress"  # beside the case's folder, not in it
        env["DERIVE_TEST_PROGRESS"] = str(run.interrupt.progress)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=work, stdin=subprocess.DEVNULL, stdout=out_fh,
                            stderr=err_fh, env=env,
                            preexec_fn=_preexec(as_limit, run.drop_dac),
                            start_new_session=True)
    if isinstance(out_fh, int):
        os.close(out_fh)
    else:
        out_fh.close()
    err_fh.close()
    if run.stdout == "closed":
        os.close(read_end)
        read_end = None
    timed_out, interrupted_at, status, usage = False, None, 0, None
    hwm = 0
    try:
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            elapsed = time.monotonic() - start
            if read_end is not None and select.select([read_end], [], [], 0)[0]:
                os.read(read_end, 1)  # `| head -c1`: one byte, then the reader is gone
                os.close(read_end)
                read_end = None
            if run.interrupt and interrupted_at is None and run.interrupt.due(elapsed, proc.pid):
                os.kill(proc.pid, signal.SIGINT)
                interrupted_at = elapsed
            if elapsed > wall:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                _, status, usage = os.wait4(proc.pid, 0)
                break
            hwm = max(hwm, _high_water(proc.pid))
            time.sleep(0.01)
    finally:
        if read_end is not None:
            os.close(read_end)
        if proc.returncode is None and usage is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
    seconds = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = out_path.read_bytes() if run.stdout == "file" else b""
    # the child's own peak: VmHWM of its address space after exec, read while it runs. Its
    # ru_maxrss counts the pages it shared with this (large) test process before exec.
    peak_kib = hwm or usage.ru_maxrss
    return Result(proc.returncode, seconds, peak_kib / 1024, stdout,
                  err_path.read_bytes(), timed_out, interrupted_at,
                  usage.ru_utime + usage.ru_stime)


def _cpu_seconds(pid: int) -> float:
    """The CPU time a running process has used (utime + stime), or 0 if unreadable."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _high_water(pid: int) -> int:
    """The peak resident memory of a running process, in KiB (VmHWM), or 0 if unreadable."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


REPRS = re.compile(r"Written\(|BadNumber\(|datetime\.(date|time|datetime)\(|"
                   r"Rational\(|Integer\(|Fraction\(|<class |object at 0x")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def describe_rc(rc: int | None) -> str:
    if rc is not None and rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def problems(r: Run, res: Result) -> list[tuple[str, str]]:
    """(tag, description) of everything wrong with one outcome; empty when all is as
    expected. Tags: hang, traceback, exit, stderr-lines, long, slow, memory, repr, control, and
    the tags of the case's own checks (output)."""
    out = []
    if res.timed_out:
        out.append(("hang", f"still running after {res.seconds:.0f}s (killed)"))
    if res.traceback:
        last = [ln for ln in res.err.splitlines() if ln.strip()][-1:] or [""]
        out.append(("traceback", f"traceback: {last[0][:160]}"))
    if r.interrupt and res.interrupted_at is None and not res.timed_out:
        out.append(("exit", f"ended ({describe_rc(res.rc)}) before Ctrl-C could be sent: "
                    "the case needs a slower input"))
    elif not res.timed_out and res.rc not in r.exit_codes:
        out.append(("exit", f"{describe_rc(res.rc)}, expected "
                    f"{' or '.join(describe_rc(c) for c in r.exit_codes)}"))
    if (not res.timed_out and r.one_line and res.rc in (2, 130) and res.rc in r.exit_codes
            and res.stderr_lines != 1):
        out.append(("stderr-lines", f"{res.stderr_lines} lines on stderr, expected exactly one"))
    if not res.timed_out and res.rc in (2, 130):
        for ln in res.err.splitlines():
            if len(ln) >= MAX_MESSAGE or " … " in ln:  # " … ": derive.errors.capped cut it
                out.append(("long", f"a line of {len(ln)} characters on stderr (under "
                                    f"{MAX_MESSAGE}, never cut): {ln[:120]}…"))
    if not res.timed_out and res.cpu_seconds > r.max_seconds:
        out.append(("slow", f"took {res.cpu_seconds:.1f}s of CPU time, bound "
                            f"{r.max_seconds:g}s"))
    if res.peak_mib > r.max_mib:
        out.append(("memory", f"peak {res.peak_mib:.0f} MiB, bound {r.max_mib:g} MiB"))
    if m := REPRS.search(res.err):
        near = res.err[max(m.start() - 30, 0):m.end() + 30]
        out.append(("repr", f"Python repr on stderr: …{near!r}…"))
    if m := CONTROL.search(res.err):
        out.append(("control", f"control character {m.group()!r} on stderr"))
    if r.terminal and (m := CONTROL.search(res.out)):
        out.append(("control", f"control character {m.group()!r} on stdout (a terminal)"))
    if not res.timed_out:
        for check in r.checks:
            for p in check(res):
                out.append(("output", p))
    return out


def run_case(c: Case, tmp: Path, target: Target, wall: float | None = None
             ) -> tuple[Run, Result, list[tuple[str, str]]]:
    work = tmp / "work"
    work.mkdir(parents=True, exist_ok=True)
    r = c.build(work, target)
    try:
        res = run(r, tmp, target, wall)
        return r, res, problems(r, res)
    finally:
        for fn in r.cleanup:
            fn()


# --------------------------------------------------------------------------- helpers


def static(work: Path, name: str, as_name: str | None = None) -> str:
    """Copy a file of tests/hostile/ into the case folder; its name relative to it."""
    dest = work / (as_name or name)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(STATIC / name, dest)
    return str(dest.relative_to(work))


def write(work: Path, name: str, text: str) -> str:
    dest = work / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return name


def listing(folder: Path) -> dict[str, tuple]:
    """Every entry under `folder` (links not followed): kind, size, content digest."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root, name)
            st = p.lstat()
            digest = ""
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
            out[str(p.relative_to(folder))] = (stat.S_IFMT(st.st_mode), st.st_size, digest)
    return out


def unchanged(folder: Path, *, ignore: tuple[str, ...] = ()) -> Check:
    """A check: nothing under `folder` was created, removed or changed by the run."""
    before = listing(folder)

    def check(res: Result) -> list[str]:
        after = listing(folder)
        def skip(k: str) -> bool:
            return any(k == i or k.startswith(i + "/") for i in ignore)
        added = sorted(k for k in after if k not in before and not skip(k))
        gone = sorted(k for k in before if k not in after and not skip(k))
        changed = sorted(k for k in after if k in before and after[k] != before[k]
                         and not skip(k))
        msgs = []
        if added:
            msgs.append(f"left {len(added)} new file(s): {', '.join(added[:4])}"
                        + (" …" if len(added) > 4 else ""))
        if gone:
            msgs.append(f"removed {', '.join(gone[:4])}")
        if changed:
            msgs.append(f"changed {', '.join(changed[:4])}")
        return msgs
    return check


def still(path: Path, kind: str) -> Check:
    """A check: `path` is still a FIFO / character device (not replaced by a regular file)."""
    test = {"fifo": stat.S_ISFIFO, "chardev": stat.S_ISCHR}[kind]

    def check(res: Result) -> list[str]:
        try:
            mode = path.lstat().st_mode
        except FileNotFoundError:
            return [f"{path.name} ({kind}) was removed"]
        if not test(mode):
            what = "a regular file" if stat.S_ISREG(mode) else oct(stat.S_IFMT(mode))
            return [f"{path.name} ({kind}) was replaced by {what}"]
        return []
    return check


def no_control_chars(text_of: Callable[[Result], str], what: str) -> Check:
    def check(res: Result) -> list[str]:
        m = CONTROL.search(text_of(res))
        return [f"control character {m.group()!r} in {what}"] if m else []
    return check


def file_text(path: Path) -> Callable[[Result], str]:
    return lambda res: path.read_text("utf-8", "replace") if path.exists() else ""


# LaTeX: the author's text must never run as TeX.
_TEX_ESCAPED = re.compile(r"\\textbackslash(\{\}|\s*)|\\char92\s*|\\symbol\{92\}|"
                          r"\\string\\|\\textbackslash")
_TEX_DANGER = re.compile(r"\\(input|include|def|write|openin|openout|immediate|catcode|"
                         r"csname|read)(?![a-zA-Z])")


def tex_safe(text_of: Callable[[Result], str], what: str) -> Check:
    def check(res: Result) -> list[str]:
        text = text_of(res)
        if not text.strip():
            return [f"{what} is empty"]
        msgs = []
        m = _TEX_DANGER.search(_TEX_ESCAPED.sub("", text))
        if m:
            msgs.append(f"unescaped {m.group()} from the author's text in {what}")
        if "$__$" in text:
            msgs.append(f"the id '__' as math $__$ in {what} (double subscript: does not compile)")
        if m := CONTROL.search(text):
            msgs.append(f"control character {m.group()!r} in {what}")
        return msgs
    return check


_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.DOTALL)


def md_safe(text_of: Callable[[Result], str], what: str) -> Check:
    def check(res: Result) -> list[str]:
        text = text_of(res)
        if not text.strip():
            return [f"{what} is empty"]
        msgs = []
        if m := re.search(r"<\s*(script|img|iframe|b|style)\b", text, re.IGNORECASE):
            msgs.append(f"raw HTML tag {m.group()!r} in {what}")
        if any(re.match(r"\s{0,3}#{1,6}\s*heading", ln) for ln in text.splitlines()):
            msgs.append(f"the title's '# heading' became a heading line in {what}")
        for span in _MATH.findall(text.replace("\\$", "")):
            if m := _TEX_DANGER.search(span):
                msgs.append(f"author text {m.group()} inside math {span[:40]!r} in {what}")
                break
        if "$__$" in text:
            msgs.append(f"the id '__' as math $__$ in {what} (KaTeX: double subscript)")
        if m := CONTROL.search(text):
            msgs.append(f"control character {m.group()!r} in {what}")
        return msgs
    return check


def terminal_safe(res: Result) -> list[str]:
    msgs = []
    if any(ln.strip() == "# heading" for ln in res.out.splitlines()):
        msgs.append("the title's newline starts a line '# heading' on the terminal")
    return msgs


def stdout_has(*needles: str) -> Check:
    def check(res: Result) -> list[str]:
        return [f"stdout lacks {n!r}" for n in needles if n not in res.out]
    return check


def stderr_has(*needles: str) -> Check:
    def check(res: Result) -> list[str]:
        if res.rc not in (2, 130):
            return []
        return [f"stderr lacks {n!r}" for n in needles if n not in res.err]
    return check


def check_not_exit(code: int, why: str) -> Check:
    def check(res: Result) -> list[str]:
        return [why] if res.rc == code else []
    return check


def mkfifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def mknod_null(path: Path) -> Path:
    if not IS_ROOT:
        raise Skip("os.mknod of a character device needs root")
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


def readonly_folder(work: Path, name: str) -> tuple[Path, Callable[[], None]]:
    if IS_ROOT and not modes_bind():
        raise Skip("running as root and cannot drop CAP_DAC_OVERRIDE: modes do not bind")
    folder = work / name
    folder.mkdir()
    folder.chmod(0o555)
    return folder, lambda: folder.chmod(0o755)


def _records(n: int, seed: int) -> str:
    import random
    rng = random.Random(seed)
    return ", ".join(f"[{rng.randint(1, 9)}.{rng.randint(0, 99)}, "
                     f"{rng.randint(-9, 9)}.{rng.randint(1, 9)}]" for _ in range(n))


def sgd_records_file(work: Path, n: int) -> str:
    return write(work, f"sgd-{n}-records.toml",
                 f'[[exercise]]\nid = "big"\nrecipe = "sgd_step"\n[exercise.given]\nw = 0.5\n'
                 f"lr = 0.01\nrecords = [{_records(n, 1)}]\n[exercise.claims]\nloss_new = 1\n")


def clipping_file(work: Path, n: int) -> str:
    import random
    rng = random.Random(2)
    gs = ", ".join("[" + ", ".join(f"{rng.randint(-9, 9)}.{rng.randint(1, 9)}"
                                   for _ in range(3)) + "]" for _ in range(n))
    return write(work, f"clip-{n}.toml",
                 f'[[exercise]]\nid = "clip{n}"\nrecipe = "clipping"\n[exercise.given]\n'
                 f"gradients = [{gs}]\nmax_norm = 1.5\n[exercise.claims]\n"
                 "clip_then_mean = [1, 2, 3]\nmean_then_clip = [0.1, 0.2, 0.3]\n")


def big_bank(work: Path, n: int = 400, claims: str = "") -> str:
    """A bank whose answer key (and check report) is far larger than a pipe's buffer."""
    parts = []
    for k in range(n):
        parts.append(f'[[exercise]]\nid = "m{k}"\ntitle = "ledger {k}"\nrecipe = "memory"\n'
                     f"[exercise.given]\nparams = {k + 1}e6\nstage = {k % 4}\ndp = 4\n"
                     + (f"[exercise.claims]\n{claims}\n" if claims else ""))
    return write(work, "bank.toml", "\n".join(parts))


UNTRUSTED_NAME = "x=\\input{secret}.toml"
UNTRUSTED_TITLE = (r"Evil \\input{secret} \\def\\x{y} $x$ <script>alert(1)</script> "
                   r"<b onmouseover=alert(1)>raw</b> line1\n\n# heading\n"
                   r"\u001b[31mRED\u001b[0m \u202eevil")


def untrusted_file(work: Path) -> str:
    """An exercise file named `x=\\input{secret}.toml` with the id `__` and a title holding
    LaTeX commands, HTML, a blank line, a Markdown heading and ANSI escapes; and a
    `secret.tex` next to it that must never be read by a LaTeX run."""
    write(work, "secret.tex", "\\typeout{SECRET-WAS-READ}\\message{SECRET-WAS-READ}\n")
    return write(work, UNTRUSTED_NAME,
                 f'[[exercise]]\nid = "__"\ntitle = "{UNTRUSTED_TITLE}"\nrecipe = "sgd_step"\n\n'
                 "[exercise.given]\nw = 1\nlr = 0.05\nrecords = [[2, 4]]\n\n"
                 "[exercise.claims]\ngradient = -3\n")


def package_copy(work: Path, target: Target) -> Path:
    """A copy of the package under test, importable from `work/../pkg`, so that a failing
    case overwrites the copy and never the repository."""
    pkg_dir, proofs_dir = target.package
    root = work.parent / "pkg"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(pkg_dir, root / "derive", ignore=ignore, dirs_exist_ok=True)
    if proofs_dir.parent != pkg_dir:
        shutil.copytree(proofs_dir, root / "derive" / "proofs", ignore=ignore,
                        dirs_exist_ok=True)
    return root


# =========================================================================== memory


@case("mem-list-claim-memory", "memory")
def _(work, target):
    """A 134-byte memory exercise claiming card_bytes_per_param = [1, 2] (a list for a number)
    with params = 1e8, then a later claim: carrying the list forward multiplies a Python list
    by 10⁸ (1.6 GB)."""
    return Run(["check", static(work, "memory-list-claim.toml")], (1,))


@case("mem-list-claim-memory-1e15", "memory")
def _(work, target):
    """The same with params = 1e15: the list repetition cannot even be allocated."""
    return Run(["check", static(work, "memory-list-claim-1e15.toml")], (1,))


@case("mem-list-claim-accumulation", "memory")
def _(work, target):
    """An accumulation claim microbatch_sizes = [[1, 2]] carried into
    microbatch_gradient_sums with a mean gradient of 10⁸: a 2·10⁸-item list."""
    return Run(["check", static(work, "accumulation-list-claim.toml")], (1,))


@case("mem-dotted-key-20000", "memory")
def _(work, target):
    """A 40 KB file of one dotted key with 20,000 parts (`a.a.a.… = 1`): the TOML parser
    itself goes quadratic."""
    name = write(work, "dotted.toml", ".".join(["a"] * 20_000) + " = 1\n")
    return Run(["check", name], (2,))


@case("mem-dev-zero-in-folder", "memory")
def _(work, target):
    """A folder holding z.toml, a symlink to /dev/zero: read to the end (never) before the
    size test."""
    static(work, "good.toml", "bank/a.toml")
    (work / "bank" / "z.toml").symlink_to("/dev/zero")
    return Run(["check", "bank"], (2,), checks=[stderr_has("z.toml")])


@case("mem-fifo-in-folder", "memory")
def _(work, target):
    """A folder holding p.toml, a FIFO with no writer: opening it blocks forever."""
    static(work, "good.toml", "bank/a.toml")
    mkfifo(work / "bank" / "p.toml")
    return Run(["check", "bank"], (2,), checks=[stderr_has("p.toml")])


@case("mem-fifo-named", "memory")
def _(work, target):
    """The FIFO named on the command line (guard: refused today)."""
    mkfifo(work / "p.toml")
    return Run(["check", "p.toml"], (2,))


@case("mem-dev-zero-named", "memory")
def _(work, target):
    """A symlink to /dev/zero named on the command line (guard: refused today)."""
    (work / "z.toml").symlink_to("/dev/zero")
    return Run(["check", "z.toml"], (2,))


# =========================================================================== time


@case("time-adam5-amsgrad", "time", slow=True)
def _(work, target):
    """5 Adam steps with amsgrad, a bias, three records and three wrong list claims (≈300
    bytes): nested surds. Must end within the time bound: exit 1 (undecided or wrong)."""
    return Run(["check", static(work, "adam5-amsgrad.toml")], (1,), max_seconds=60, wall=60)


@case("time-adam5-amsgrad-key", "time", slow=True)
def _(work, target):
    """The same exercise's answer key: past the time bound, exit 2 (or 0 if it finishes)."""
    return Run(["key", static(work, "adam5-amsgrad.toml")], (0, 2), max_seconds=60, wall=60)


@case("time-adam4-amsgrad", "time")
def _(work, target):
    """Fast representative: the same exercise with 4 steps (3 s before the fixes; the fifth
    step is what explodes)."""
    name = static(work, "adam5-amsgrad.toml")
    p = work / name
    p.write_text(p.read_text().replace("steps = 5", "steps = 4")
                 .replace("[1, 2, 3, 4, 5]", "[1, 2]"))
    return Run(["check", name], (1,), max_seconds=10)


_ADAM_300 = """[[exercise]]
id = "adam-300-json"
recipe = "optimizer_steps"
[exercise.given]
w = 1
lr = 0.01
records = [[2, 4]]
steps = {steps}
optimizer = {{ name = "adam" }}
[exercise.claims]
gradient_steps = [{{ value = -4, places = 1 }}]
"""


@case("mem-json-adam-300-steps", "memory")
def _(work, target):
    """(found) 300 fresh Adam steps, 250 bytes, `check --format json`: each element's exact
    text repeats every earlier step's named subexpressions, 264 MB of JSON in 25 s and
    1.1 GB (1000 steps: killed past 100 s). A budget of exact text per exercise, counted
    while it is built: one "not supported" line naming the quantity, nothing written."""
    name = write(work, "adam300.toml", _ADAM_300.format(steps=300))
    return Run(["check", name, "--format", "json"], (2,), max_seconds=15, wall=60,
               checks=[stderr_has("not supported", "'adam-300-json'", "--format text")])


@case("mem-key-json-adam-1000-steps", "memory", slow=True)
def _(work, target):
    """(found) The same with 1000 steps, `key --format json`: passed its time bound at 33 s
    with 674 MB. Refused in one line within seconds."""
    name = write(work, "adam1000.toml", _ADAM_300.format(steps=1000))
    return Run(["key", name, "--format", "json"], (2,), max_seconds=20, wall=60,
               checks=[stderr_has("not supported", "'adam-300-json'")])


@case("time-sgd-20000-records", "time", slow=True)
def _(work, target):
    """sgd_step with 20,000 records (268 KB) and one wrong claim."""
    return Run(["check", sgd_records_file(work, 20_000)], (1,), max_seconds=60, wall=60)


@case("time-sgd-500-records", "time")
def _(work, target):
    """Fast representative: 500 records."""
    return Run(["check", sgd_records_file(work, 500)], (1,), max_seconds=10)


@case("time-clip-100-vectors", "time", slow=True)
def _(work, target):
    """Norm clipping of 100 three-dimensional gradients with two wrong claims."""
    return Run(["check", clipping_file(work, 100)], (1,), max_seconds=60, wall=60)


@case("time-clip-10-vectors", "time")
def _(work, target):
    """Fast representative: 10 gradients."""
    return Run(["check", clipping_file(work, 10)], (1,), max_seconds=10)


@case("time-variants-n10000", "time", slow=True)
def _(work, target):
    """`derive variants FILE -n 10000 -o bank` (the largest N allowed)."""
    name = static(work, "vary-10000.toml")

    def complete(res: Result) -> list[str]:
        n = len(list((work / "bank").glob("*.toml")))
        if res.rc == 1:  # fewer (its time bound passed): what was found, said in one line
            return [] if "of 10000 variants" in res.err else ["exit 1 without 'of 10000'"]
        if res.rc != 0:
            return []
        return [] if n == 10_000 else [f"exit 0 but {n} files in the bank, not 10000"]
    return Run(["variants", name, "-n", "10000", "-o", "bank"], (0, 1, 2), max_seconds=60,
               wall=60, checks=[complete])


@case("time-variants-enumerated-50k", "time", slow=True)
def _(work, target):
    """A vary space of 48,200 candidates (enumerated) of which none meets the requirement:
    every candidate is built and solved before the answer 'no variant'."""
    return Run(["variants", static(work, "vary-50k-enumerated.toml"), "-n", "10"], (2,),
               max_seconds=60, wall=60)


@case("time-sgd-1000-steps-60-digits", "time", slow=True)
def _(work, target):
    """(found) 1000 SGD steps (the allowed maximum) on 60-digit inputs, ≈300 bytes: exact
    values of ~180,000 digits."""
    return Run(["check", static(work, "sgd-1000-steps-60-digits.toml")], (1,),
               max_seconds=60, wall=60)


@case("time-bank-of-slow-exercises", "time", slow=True)
def _(work, target):
    """(found) A 3 KB file of ten copies of a slow Adam exercise: a per-exercise time
    bound alone lets a bank of kilobytes run for ten bounds (a 1 MiB file: thousands). The run
    has a bound of its own (--total-time-limit): past it, every exercise not yet done is
    `undecided` at once, and the run ends (here 2 s each, 10 s in all). 1000 steps: since
    certified decimals, 5 take a fraction of a second."""
    text = (STATIC / "adam1000-amsgrad.toml").read_text()
    name = write(work, "bank.toml", "\n".join(text.replace('id = "adam1000"', f'id = "adam-{k}"')
                                               for k in range(10)))
    return Run(["check", name, "--time-limit", "2", "--total-time-limit", "10"], (1,),
               max_seconds=20, wall=60,
               checks=[stdout_has("10 exercises", "undecided (time bound)",
                                  "--total-time-limit")])


@case("time-variants-many-exercises", "time", slow=True)
def _(work, target):
    """(found) A 2.5 KB file of 20 exercises with [exercise.vary], `-n 10000`: 200,000
    variants, all held in memory before the first is written (killed at 120 s with 283 MiB
    and growing). -n bounds one exercise; a run writes at most 20,000 variants, so this is
    refused before any is made, in one line."""
    text = (STATIC / "vary-10000.toml").read_text()
    name = write(work, "many.toml", "\n".join(text.replace('id = "hw1"', f'id = "v{k}"')
                                               for k in range(20)))
    return Run(["variants", name, "-n", "10000", "-o", "bank"], (2,), max_seconds=10,
               wall=60, checks=[stderr_has("20,000")])


# =========================================================================== tracebacks


@case("tb-preset-list", "traceback")
def _(work, target):
    """`preset = [1]` in a memory exercise: `[1] in PRESETS` raises TypeError (unhashable)."""
    return Run(["check", static(work, "preset-list.toml")], (2,),
               checks=[stderr_has("given.preset")])


@case("tb-optimizer-name-list", "traceback")
def _(work, target):
    """`optimizer = { name = [1] }`: unhashable name."""
    return Run(["check", static(work, "optimizer-name-list.toml")], (2,),
               checks=[stderr_has("given.optimizer.name")])


def _require_digits(work: Path, digits: int) -> str:
    return write(work, f"require-{digits}.toml",
                 '[[exercise]]\nid = "hw1"\nrecipe = "sgd_step"\n[exercise.given]\nw = 1\n'
                 'lr = 0.05\nrecords = [[2, 4]]\n[exercise.vary]\n'
                 'lr = { choices = [0.05, 0.1] }\n[exercise.require]\n'
                 f'w_new = "places <= {"9" * digits}"\n')


@case("tb-require-5000-digit-places", "traceback")
def _(work, target):
    """`w_new = "places <= 999…"` with 5,000 digits: int() passes Python's 4,300-digit limit
    (checked by `derive check`, which validates [exercise.require])."""
    return Run(["check", _require_digits(work, 5000)], (2,), checks=[stderr_has("require")])


@case("tb-require-5000-digit-places-variants", "traceback")
def _(work, target):
    """The same through `derive variants`."""
    return Run(["variants", _require_digits(work, 5000), "-n", "1"], (2,))


@case("tb-variants-choices-of-tables", "traceback")
def _(work, target):
    """`records = { choices = [{ x = 1 }, …] }` and `"records[0][0]"` varied too: indexing a
    table by 0 raises KeyError in the generator."""
    return Run(["variants", static(work, "vary-tables-element-path.toml"), "-n", "1"], (2,))


@case("tb-export-tensor-gradients-tex", "traceback")
def _(work, target):
    """`derive export` (LaTeX) of a valid clipping exercise whose gradients are several tensors
    (nested lists): the derivation's decimal of a list of lists."""
    return Run(["export", static(work, "tensor-gradients.toml")], (0,),
               checks=[stdout_has("tensors")])


@case("tb-export-tensor-gradients-md", "traceback")
def _(work, target):
    """The same as Markdown."""
    return Run(["export", static(work, "tensor-gradients.toml"), "--format", "md"], (0,),
               checks=[stdout_has("tensors")])


@case("tb-digits-past-4300-check", "traceback")
def _(work, target):
    """A valid exercise (30 SGD steps on 60-digit inputs, 330 bytes) whose exact values pass
    4,300 digits, Python's int-to-text limit; one wrong claim so the report prints the value."""
    return Run(["check", static(work, "digits-past-4300.toml")], (1,))


@case("tb-digits-past-4300-key-json", "traceback")
def _(work, target):
    """Its answer key as JSON (exact values as text): exit 0, or 2 if refused with a reason."""
    return Run(["key", static(work, "digits-past-4300.toml"), "--format", "json"], (0, 2))


@case("tb-digits-past-4300-key-tex", "traceback")
def _(work, target):
    """Its answer key as LaTeX (\\frac of the digits)."""
    return Run(["key", static(work, "digits-past-4300.toml"), "--format", "tex"], (0, 2))


@case("tb-digits-past-4300-export", "traceback")
def _(work, target):
    """Its derivation (`derive export`)."""
    return Run(["export", static(work, "digits-past-4300.toml")], (0, 2))


@case("tb-accumulation-list-overflow", "traceback")
def _(work, target):
    """An accumulation list claim [[1, 2]] carried forward against a mean gradient of 10³⁰:
    `Integer * list` overflows (OverflowError: cannot fit 'Integer' into an index-sized
    integer)."""
    return Run(["check", static(work, "accumulation-list-overflow.toml")], (1,))


@case("tb-o-readonly-folder-key", "traceback")
def _(work, target):
    """`derive key … -o ro/key.md` into a folder of mode 555 (root runs without
    CAP_DAC_OVERRIDE): PermissionError from mkstemp."""
    name = static(work, "good.toml")
    ro, restore = readonly_folder(work, "ro")
    return Run(["key", name, "-o", "ro/key.md"], (2,), drop_dac=True,
               checks=[unchanged(ro)], cleanup=[restore])


@case("tb-o-readonly-folder-export", "traceback")
def _(work, target):
    """`derive export … -o ro/doc.tex` into a folder of mode 555."""
    name = static(work, "good.toml")
    ro, restore = readonly_folder(work, "ro")
    return Run(["export", name, "-o", "ro/doc.tex"], (2,), drop_dac=True,
               checks=[unchanged(ro)], cleanup=[restore])


@case("tb-o-readonly-folder-variants", "traceback")
def _(work, target):
    """`derive variants … -o ro/bank` (the bank folder cannot be created)."""
    name = static(work, "vary-small.toml")
    ro, restore = readonly_folder(work, "ro")
    return Run(["variants", name, "-n", "2", "-o", "ro/bank"], (2,), drop_dac=True,
               checks=[unchanged(ro)], cleanup=[restore])


@case("tb-stdout-closed-pipe-key", "traceback")
def _(work, target):
    """`derive key FILE` with stdout a pipe whose reader has already gone (a small key, still
    in the buffer at exit): no 'Exception ignored … BrokenPipeError'; exit 0, 2 or the SIGPIPE
    status, not Python's 120."""
    return Run(["key", static(work, "good.toml")], (0, 2, 141, -signal.SIGPIPE),
               stdout="closed")


@case("tb-stdout-head-c1-key", "traceback")
def _(work, target):
    """`derive key BANK | head -c1`: the reader takes one byte of a key larger than the pipe's
    buffer and leaves."""
    return Run(["key", big_bank(work)], (0, 2, 141, -signal.SIGPIPE), stdout="head1")


@case("tb-stdout-dev-full-key", "traceback")
def _(work, target):
    """`derive key FILE > /dev/full`: ENOSPC on stdout must be one line and exit 2."""
    return Run(["key", static(work, "good.toml")], (2,), stdout="devfull")


@case("tb-stdout-dev-full-check", "traceback")
def _(work, target):
    """`derive check FILE > /dev/full`: the report cannot be written: one line, exit 2."""
    return Run(["check", static(work, "good.toml")], (2,), stdout="devfull")


@case("tb-ctrl-c-check", "traceback")
def _(work, target):
    """SIGINT into `derive check` of a slow file (1000 Adam steps; 5 were slow before
    certified decimals), once it reports its work begun (a fixed two seconds could fall in
    Python's own start-up on a busy machine, or after the end): one line on stderr and exit
    130, not a KeyboardInterrupt traceback."""
    return Run(["check", static(work, "adam1000-amsgrad.toml")], (130,),
               interrupt=Interrupt(point="working"), max_seconds=10)


@case("tb-ctrl-c-key-o", "traceback")
def _(work, target):
    """SIGINT into `derive key SLOW -o out.md` once its work has begun: exit 130, one line, no
    out.md and no temporary file left."""
    name = static(work, "adam1000-amsgrad.toml")
    return Run(["key", name, "-o", "out.md"], (130,), interrupt=Interrupt(point="working"),
               max_seconds=10, checks=[unchanged(work)])


# =========================================================================== outputs


@case("out-o-fifo", "output")
def _(work, target):
    """`-o` naming a FIFO: refused and left a FIFO (today it is replaced by a regular file)."""
    name = static(work, "good.toml")
    fifo = mkfifo(work / "out.md")
    return Run(["key", name, "-o", "out.md"], (2,),
               checks=[still(fifo, "fifo"), unchanged(work)])


@case("out-o-device-node", "output")
def _(work, target):
    """`-o` naming a character device (made with os.mknod; root only): refused, left a
    device."""
    name = static(work, "good.toml")
    node = mknod_null(work / "out.md")
    return Run(["key", name, "-o", "out.md"], (2,),
               checks=[still(node, "chardev"), unchanged(work)])


@case("out-o-symlink-to-fifo", "output")
def _(work, target):
    """(found) `-o link.md` where link.md is a symlink to a FIFO: `emit` follows the link and
    replaces what it points to (with a link to /dev/null, as root, that would be the
    system's /dev/null)."""
    name = static(work, "good.toml")
    fifo = mkfifo(work / "fifo")
    (work / "link.md").symlink_to("fifo")
    return Run(["key", name, "-o", "link.md"], (2,),
               checks=[still(fifo, "fifo"), unchanged(work)])


@case("out-o-symlink-to-device", "output")
def _(work, target):
    """(found) `-o link.md`, a symlink to a character device of the case's own (root only)."""
    name = static(work, "good.toml")
    node = mknod_null(work / "node")
    (work / "link.md").symlink_to("node")
    return Run(["key", name, "-o", "link.md"], (2,),
               checks=[still(node, "chardev"), unchanged(work)])


@case("out-ledger-o-fifo", "output")
def _(work, target):
    """(found) `derive ledger … -o FIFO` shares the writer: refused, left a FIFO."""
    fifo = mkfifo(work / "ledger.txt")
    return Run(["ledger", "--params", "1e9", "-o", "ledger.txt"], (2,),
               checks=[still(fifo, "fifo"), unchanged(work)])


@case("out-variants-partial-after-error", "output")
def _(work, target):
    """`derive variants -o bank` where bank/hw2-v002.toml is a folder: exit 2 after writing
    hw2-v001.toml today; all-or-nothing means no file at all."""
    name = static(work, "vary-small.toml")
    (work / "bank" / "hw2-v002.toml").mkdir(parents=True)
    return Run(["variants", name, "-n", "3", "-o", "bank"], (2,), checks=[unchanged(work)])


@case("out-variants-ctrl-c", "output")
def _(work, target):
    """SIGINT as soon as the first file of the bank (or anything new) appears: exit 130 and no
    bank, no temporary files; or exit 0 with the complete bank if it had already finished."""
    name = static(work, "vary-10000.toml")
    before = set(os.listdir(work))
    bank = work / "bank"

    def started() -> bool:
        return (bank.is_dir() and any(bank.iterdir())) or set(os.listdir(work)) != before

    def all_or_nothing(res: Result) -> list[str]:
        files = sorted(bank.rglob("*")) if bank.exists() else []
        stray = sorted(set(os.listdir(work)) - before - {"bank"})
        msgs = [f"stray file(s) left: {', '.join(stray[:4])}"] if stray else []
        if res.rc == 0 and len([f for f in files if f.suffix == ".toml"]) != 3000:
            msgs.append(f"exit 0 with {len(files)} files, not 3000")
        elif res.rc != 0 and files:
            msgs.append(f"partial bank: {len(files)} file(s) left after the interrupt")
        return msgs
    return Run(["variants", name, "-n", "3000", "-o", "bank"], (130, 0), max_seconds=15,
               interrupt=Interrupt(when=started, fallback=8.0), checks=[all_or_nothing])


@case("out-variants-o-empty", "output")
def _(work, target):
    """`derive variants FILE -n 3 -o ''`: refused; today it writes the bank into the current
    folder."""
    name = static(work, "vary-small.toml")
    return Run(["variants", name, "-n", "3", "-o", ""], (2,), checks=[unchanged(work)])


@case("out-key-o-empty", "output")
def _(work, target):
    """`derive key FILE -o ''` (guard: refused today)."""
    name = static(work, "good.toml")
    return Run(["key", name, "-o", ""], (2,), checks=[unchanged(work)])


@case("out-export-overwrites-package", "output")
def _(work, target):
    """`derive export A2 -o <package>/proofs/a2.py` (on a copy of the package under test):
    must not replace the statement's own source."""
    root = package_copy(work, target)
    src = root / "derive" / "proofs" / "a2.py"
    if not src.exists():
        raise Skip("no proofs/a2.py in the package")
    return Run(["export", "A2", "-o", str(src)], (2,), extra_path=(str(root),),
               checks=[unchanged(root / "derive")])


@case("out-key-overwrites-package", "output")
def _(work, target):
    """(found) `derive key FILE -o <package>/cli/main.py`: no input file, but the program's own
    code."""
    name = static(work, "good.toml")
    root = package_copy(work, target)
    return Run(["key", name, "-o", str(root / "derive" / "cli" / "main.py")], (2,),
               extra_path=(str(root),), checks=[unchanged(root / "derive")])


# =========================================================================== untrusted text


@case("ut-key-tex", "untrusted")
def _(work, target):
    """`derive key --format tex` of `x=\\input{secret}.toml` (id `__`, hostile title)."""
    return Run(["key", untrusted_file(work), "--format", "tex"], (0,),
               checks=[tex_safe(lambda r: r.out, "key --format tex")])


@case("ut-key-md", "untrusted")
def _(work, target):
    """`derive key --format md` of the same file: no raw HTML, no injected heading."""
    return Run(["key", untrusted_file(work), "--format", "md"], (0,),
               checks=[md_safe(lambda r: r.out, "key --format md")])


@case("ut-export-tex", "untrusted")
def _(work, target):
    """`derive export PATH --standalone` (LaTeX): the file name and the title are text."""
    return Run(["export", untrusted_file(work), "--standalone"], (0,),
               checks=[tex_safe(lambda r: r.out, "export --format tex")])


@case("ut-export-md", "untrusted")
def _(work, target):
    """`derive export PATH --format md`."""
    return Run(["export", untrusted_file(work), "--format", "md"], (0,),
               checks=[md_safe(lambda r: r.out, "export --format md")])


@case("ut-check-terminal", "untrusted")
def _(work, target):
    """`derive check` on the terminal: no ESC or other control character, no line break from
    the title."""
    return Run(["check", untrusted_file(work)], (1,), terminal=True, checks=[terminal_safe])


@case("ut-export-compiles", "untrusted")
def _(work, target):
    """The standalone LaTeX export of the hostile file compiles with pdflatex
    (-no-shell-escape) and never reads secret.tex."""
    pdflatex = shutil.which("pdflatex")
    if not pdflatex:
        raise Skip("pdflatex not installed")
    name = untrusted_file(work)

    def compiles(res: Result) -> list[str]:
        tex = work / "doc.tex"
        if res.rc != 0 or not tex.exists():
            return []
        try:
            p = subprocess.run([pdflatex, "-no-shell-escape", "-interaction=nonstopmode",
                                "-halt-on-error", "doc.tex"], cwd=work, capture_output=True,
                               timeout=120, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired:
            return ["pdflatex did not finish in 120 s"]
        log = p.stdout.decode("utf-8", "replace")
        logfile = work / "doc.log"
        if logfile.exists():
            log += logfile.read_text("utf-8", "replace")
        msgs = []
        if "SECRET-WAS-READ" in log or "secret.tex" in log:
            msgs.append("pdflatex read secret.tex: the file name or title ran \\input")
        if p.returncode != 0:
            err = next((ln for ln in log.splitlines() if ln.startswith("!")), "no '!' line")
            msgs.append(f"pdflatex failed: {err}")
        return msgs
    return Run(["export", name, "--standalone", "-o", "doc.tex"], (0,), max_seconds=5,
               checks=[compiles])


@case("ut-error-line-filename", "untrusted")
def _(work, target):
    """(found) An invalid file whose name holds ESC and a newline: the error line prints the
    name raw (one line, but with the escape sequence)."""
    name = "\x1b[31mred\nname.toml"
    (work / name).write_text("not toml = = 1\n")
    return Run(["check", name], (2,))


@case("ut-error-line-key", "untrusted")
def _(work, target):
    """(guard) An unknown given key holding ESC and a newline: repr-escaped today."""
    name = write(work, "k.toml", '[[exercise]]\nid = "e"\nrecipe = "sgd_step"\n'
                 '[exercise.given]\nw = 1\nlr = 0.1\nrecords = [[1, 2]]\n'
                 '"\\u001b[2J\\nboom" = 1\n')
    return Run(["check", name], (2,))


# =========================================================================== silent or unclear


@case("silent-unreadable-subfolder", "silent")
def _(work, target):
    """A bank with a subfolder of mode 000 (root runs without CAP_DAC_READ_SEARCH): skipped
    silently today (exit 0 on the one readable exercise); must be an error."""
    if IS_ROOT and not modes_bind():
        raise Skip("running as root and cannot drop CAP_DAC_READ_SEARCH")
    static(work, "good.toml", "bank/a.toml")
    static(work, "wrong.toml", "bank/locked/b.toml")
    locked = work / "bank" / "locked"
    locked.chmod(0)
    return Run(["check", "bank"], (2,), drop_dac=True, cleanup=[lambda: locked.chmod(0o755)],
               checks=[stderr_has("locked")])


@case("silent-dangling-symlink", "silent")
def _(work, target):
    """(guard) A bank holding b.toml, a dangling symlink: an error today."""
    static(work, "good.toml", "bank/a.toml")
    (work / "bank" / "b.toml").symlink_to("/nonexistent/b.toml")
    return Run(["check", "bank"], (2,))


@case("silent-symlink-loop", "silent")
def _(work, target):
    """A bank whose subfolder holds a symlink back to the bank (a directory loop) next to a
    wrong exercise: reported (2), or the bank checked once without walking the loop (1);
    never a hang or a pass."""
    static(work, "good.toml", "bank/a.toml")
    static(work, "wrong.toml", "bank/sub/b.toml")
    (work / "bank" / "sub" / "loop").symlink_to("..")
    return Run(["check", "bank"], (1, 2))


@case("tb-file-symlink-loop", "traceback")
def _(work, target):
    """(found) A bank holding x.toml -> y.toml -> x.toml (unreadable: a symlink loop):
    Path.resolve() raises RuntimeError('Symlink loop') while listing the bank."""
    static(work, "good.toml", "bank/a.toml")
    (work / "bank" / "x.toml").symlink_to("y.toml")
    (work / "bank" / "y.toml").symlink_to("x.toml")
    return Run(["check", "bank"], (2,))


@case("silent-folder-symlink-skipped", "silent")
def _(work, target):
    """(found) bank/shared -> ../shared, a symlinked folder holding a wrong exercise: rglob
    does not descend into it, so its exercises are silently not checked (exit 0). Checked
    (exit 1) or refused (exit 2), never a pass."""
    static(work, "good.toml", "bank/a.toml")
    static(work, "wrong.toml", "shared/b.toml")
    (work / "bank" / "shared").symlink_to("../shared")
    return Run(["check", "bank"], (1, 2))


def _one(work: Path, name: str, recipe: str, given: str, claims: str = "") -> str:
    text = f'[[exercise]]\nid = "e"\nrecipe = "{recipe}"\n[exercise.given]\n{given}\n'
    if claims:
        text += f"[exercise.claims]\n{claims}\n"
    return write(work, name, text)


for _id, _recipe, _given, _claims, _doc in (
    ("silent-repr-preset-decimal", "memory", "params = 1e8\npreset = 1.5", "",
     "`preset = 1.5`: 'is Written(value=3/2, places=1, text='1.5')'."),
    ("silent-repr-preset-nan", "memory", "params = 1e8\npreset = nan", "",
     "`preset = nan`: 'is BadNumber(text='nan', …)'."),
    ("silent-repr-preset-date", "memory", "params = 1e8\npreset = 1979-05-27", "",
     "`preset = 1979-05-27`: 'is datetime.date(1979, 5, 27)'."),
    ("silent-repr-loss-decimal", "sgd_step", "w = 1\nlr = 0.1\nrecords = [[1, 2]]\nloss = 1.5",
     "", "`loss = 1.5`."),
    ("silent-repr-places-decimal", "sgd_step", "w = 1\nlr = 0.1\nrecords = [[1, 2]]",
     "loss = { value = 1, places = 1.5 }", "`places = 1.5` in a claim."),
    ("silent-repr-optimizer-name-inf", "optimizer_steps",
     'w = 1\nlr = 0.1\nrecords = [[1, 2]]\noptimizer = { name = inf }', "",
     "`optimizer = { name = inf }`."),
):
    def _build(work, target, _id=_id, _recipe=_recipe, _given=_given, _claims=_claims):
        return Run(["check", _one(work, f"{_id}.toml", _recipe, _given, _claims)], (2,))
    _build.__doc__ = "Messages must not contain Python reprs: " + _doc
    case(_id, "silent")(_build)


@case("silent-nested-claim-table", "silent")
def _(work, target):
    """`gradient = { value = { value = -100, abs = 0.5 }, rel = 100 }`: the inner test is
    silently dropped (the claim passes as 'within'); must be invalid input."""
    return Run(["check", static(work, "nested-claim-table.toml")], (2,))


@case("silent-vary-choices-not-validated", "silent")
def _(work, target):
    """`lr = { choices = ["abc", -1, true] }`: `derive check` accepts it (exit 0) although it
    validates [exercise.vary]."""
    return Run(["check", static(work, "vary-choices-invalid.toml")], (2,))


@case("silent-vary-choices-of-tables-check", "silent")
def _(work, target):
    """The choices-of-tables file under `derive check`: accepted today."""
    return Run(["check", static(work, "vary-tables-element-path.toml")], (2,))


@case("silent-unicode-digit-path", "silent")
def _(work, target):
    """`"records[٠][0]"` (an Arabic-Indic zero) in [exercise.vary]: accepted as index 0 by
    \\d and int(); numbers in files take ASCII digits only."""
    return Run(["check", static(work, "unicode-digit-path.toml")], (2,))


@case("silent-unicode-digit-condition", "silent")
def _(work, target):
    """`w_new = "places <= ٢"` in [exercise.require]: accepted as 2."""
    return Run(["check", static(work, "unicode-digit-condition.toml")], (2,))


@case("silent-check-closed-pipe-exit-0", "silent")
def _(work, target):
    """(found) `derive check WRONG-BANK | head -c1` (a report larger than the buffer): the
    broken pipe is swallowed with exit 0, so CI with pipefail reads 'every claim holds'."""
    return Run(["check", big_bank(work, claims="state_gb = 1")],
               (1, 2, 141, -signal.SIGPIPE), stdout="head1")


@case("silent-check-closed-pipe-small", "silent")
def _(work, target):
    """(found) `derive check WRONG | head -c0`-like: a small report still buffered at exit
    gives Python's 'Exception ignored' and exit 120."""
    return Run(["check", static(work, "wrong.toml")], (1, 2, 141, -signal.SIGPIPE),
               stdout="closed")


def _plugin_bank(work: Path) -> None:
    static(work, "good.toml", "bank/ok.toml")
    for name in ("dup1", "dup2"):
        write(work, f"bank/{name}.toml", (STATIC / "good.toml").read_text()
              .replace("lesson03-ex1", "dup"))
    write(work, "bank/bad1.toml", "this is not toml = = 1\n")
    write(work, "bank/bad2.toml", '[[exercise]]\nid = "b2"\nrecipe = "sgd"\n')
    write(work, "bank/pyproject.toml", '[project]\nname = "bank"\n')
    write(work, "pyproject.toml", '[project]\nname = "course"\n\n[tool.pytest.ini_options]\n')


def _junit(path: Path) -> list[tuple[str, str, bool, str]]:
    """(classname, name, failed, message) of each test case of a JUnit report."""
    out = []
    for tc in ET.parse(path).iter("testcase"):
        bad = [c for c in tc if c.tag in ("failure", "error")]
        msg = " ".join((c.get("message") or "") + " " + (c.text or "") for c in bad)
        out.append((tc.get("classname") or "", tc.get("name") or "", bool(bad), msg))
    return out


@case("silent-pytest-plugin", "silent")
def _(work, target):
    """`pytest --derive-exercises bank`: one failed item per invalid file, the id used in two
    files reported, pyproject.toml not collected as an exercise file."""
    _plugin_bank(work)
    report = work / "report.xml"

    def judge(res: Result) -> list[str]:
        if not report.exists():
            return ["no JUnit report written"]
        items = _junit(report)
        msgs = []
        for bad in ("bad1", "bad2"):
            failed = [i for i in items if bad in i[0] + i[1] and i[2]]
            if len(failed) != 1:
                msgs.append(f"{bad}.toml: {len(failed)} failed items, expected exactly one")
        if any("pyproject" in i[0] + i[1] for i in items):
            msgs.append("pyproject.toml collected as an exercise file")
        if not any(i[2] and ("dup" in i[0] + i[1] or "dup" in i[3]) for i in items):
            msgs.append("the id 'dup' of dup1.toml and dup2.toml is not reported")
        if any(i[2] for i in items if "ok" in i[0] and i[1] == "lesson03-ex1"):
            msgs.append("ok.toml failed")
        return msgs
    return Run(["--derive-exercises", "bank", "-p", "no:cacheprovider", "-q",
                "-o", "addopts=", f"--junitxml={report}"], (1,), module="pytest",
               max_seconds=30, one_line=False, checks=[judge])


@case("silent-pytest-plugin-fifo", "silent")
def _(work, target):
    """(guard) A FIFO named p.toml in a bank collected by the pytest plugin: pytest does not
    hand non-regular files to the plugin, so no hang (exit 0 or a failing item)."""
    static(work, "good.toml", "bank/ok.toml")
    mkfifo(work / "bank" / "p.toml")
    write(work, "pyproject.toml", '[project]\nname = "course"\n\n[tool.pytest.ini_options]\n')
    return Run(["--derive-exercises", "bank", "-p", "no:cacheprovider", "-q", "-o",
                "addopts="], (0, 1), module="pytest", max_seconds=30, one_line=False)


def by_id() -> dict[str, Case]:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return {c.id: c for c in CASES}


if __name__ == "__main__":
    for c in CASES:
        print(f"{c.id:42} {c.klass:10} {'slow' if c.slow else '':4}  {c.note[:70]}")


# ------------------------------------------------------------------ author formulas (issue 13)

def _formulas(work: Path, define: str, given: str = "w = 3\nrecords = [[1, 2]]") -> str:
    return write(work, "f.toml", '[[exercise]]\nid = "f"\nrecipe = "formulas"\n'
                 f"[exercise.given]\n{given}\n[exercise.define]\n{define}\n")


@case("formula-power-of-power", "memory")
def _(work, target):
    """A 100-byte formulas exercise asking for (w^10000)^10000 at w = 3: 158 million bits if
    computed; refused by its size estimate before any power is taken (not supported)."""
    return Run(["key", _formulas(work, 'loss = "(w^10000)^10000"')], (2,))


@case("formula-squaring-steps", "memory")
def _(work, target):
    """A recurrence that squares w at each of 100 steps: 2^100 bits by the last step; refused
    once a value passes 2,000,000 bits."""
    return Run(["check", _formulas(work, 'w = { formula = "w_{t-1}^2", start = "w0" }',
                                   "w0 = 3\nsteps = 100")], (2,))


@case("formula-nested-derivatives", "time", slow=True)
def _(work, target):
    """Twelve nested derivatives of w^w^w^w: the derivative grows past 20,000 operations (or
    the 10 s bound on reading a derivation); not supported, one line."""
    inner = "w^w^w^w"
    for _ in range(12):
        inner = f"d({inner})/d(w)"
    return Run(["key", _formulas(work, f'loss = "{inner}"', "w = 2\nrecords = [[1, 2]]")], (2,),
               max_seconds=15, wall=30)


@case("formula-python-names", "untrusted")
def _(work, target):
    """Python's builtins and dunders in a formula (__import__, eval, __class__): names the
    language does not have, never run."""
    return Run(["check", _formulas(work, 'loss = "__import__(os).system(1) + eval(w)"')], (2,))


@case("formula-many-steps", "time")
def _(work, target):
    """10,000 steps of a recurrence over 2,000 records (20 million exact terms): bounded by
    --time-limit 3, so `check` reports the exercise undecided (exit 1)."""
    rows = ", ".join(f"[{k % 7}, {k % 5}]" for k in range(2000))
    define = ('loss = "mean_i((w_{t-1}*x_i - y_i)^2/2)"\ng = "grad(loss_t, w_{t-1})"\n'
              'w = { formula = "w_{t-1} - lr*g_t", start = "w0" }')
    return Run(["check", "--time-limit", "3",
                _formulas(work, define, f"w0 = 0\nlr = 0.01\nsteps = 10000\nrecords = [{rows}]")],
               (1,), max_seconds=15, wall=30)
