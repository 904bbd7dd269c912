"""`derive`: the entry point shared by the console script and `python -m derive`.

Every error a user can run into is a `derive.errors.DeriveError` carrying its exit code; it is
caught here, once, and printed as one line. Anything else is a bug: it is printed as one line
too (set DERIVE_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading

import derive
from derive import interrupt
from derive.cli import build, exercises, export, ledger, prove, recipes, serve, variants
from derive.cli.terminal import one_line
from derive.errors import DeriveError, quoted

COMMANDS = (prove, exercises, export, variants, recipes, ledger, build, serve)
"""In the contract's order; each module adds its subcommands (exercises: check and key)."""


class _Parser(argparse.ArgumentParser):
    """argparse, whose misuse line shows the user's words escaped and quoted short: it echoes
    an unrecognized argument raw (ESC and all) and an invalid value whole (5,000 digits)."""

    def error(self, message: str):
        words = re.sub(r"'([^']*)'", lambda m: f"'{quoted(m.group(1))}'", message)
        super().error(" ".join(quoted(w) for w in words.split(" ")))


class _Version(argparse.Action):
    """`--version`: `derive X.Y.Z`, the installed package's version (read only when asked)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"derive {derive.__version__}", flush=True)
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="derive",
        description="Prove the identities of one training step and check answer keys exactly.")
    parser.add_argument("--version", action=_Version, help="show program's version number and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def _say(command: str, text: str) -> None:
    try:
        print(f"derive {command}: {one_line(text)}", file=sys.stderr, flush=True)
    except (OSError, ValueError):  # stderr is gone too: nothing more can be said
        pass


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: list[str] | None = None, leaving: bool = False) -> int:
    """Run one command; `leaving` (the `derive` program, which exits next) leaves Ctrl-C
    ignored once the work is done, so that a late one cannot interrupt the exit."""
    previous, command = None, "COMMAND"
    done: list[int] = []
    try:
        try:
            previous = interrupt.install()  # the program's entry installed it already
            command = _named(argv)
            interrupt.check()  # a Ctrl-C swallowed before this point
            args = build_parser().parse_args(argv)
            command = args.command
            interrupt.reached("running")
            code = _run(args, command)
            if code != interrupt.code():
                interrupt.check()  # a Ctrl-C the work swallowed: no output was put in place
            done.append(code)
            return code
        finally:  # after a Ctrl-C, the rest are still ignored until the process has exited
            if threading.current_thread() is threading.main_thread():
                if leaving:
                    interrupt.ignore()
                elif previous is not None:
                    interrupt.restore(previous)
            if not leaving:
                interrupt.reset()
    except KeyboardInterrupt:  # a Ctrl-C after the work: what was done and written stands
        if done:
            return done[0]
        _drop_stdout()
        _say(command, f"interrupted ({interrupt.said()}); no file was written")
        return interrupt.code()


def _named(argv: list[str] | None) -> str:
    """The command named in `argv` before it is parsed (for a Ctrl-C while parsing)."""
    for arg in sys.argv[1:] if argv is None else argv:
        if not arg.startswith("-"):
            return arg if arg.isascii() and arg.isalpha() and len(arg) <= 20 else "COMMAND"
    return "COMMAND"


def _run(args, command: str) -> int:
    try:
        code = args.run(args)
        sys.stdout.flush()
        return code
    except DeriveError as exc:
        _say(command, exc.line())
        return exc.exit_code
    except KeyboardInterrupt:
        _drop_stdout()
        _say(command, f"interrupted ({interrupt.said()}); no file was written")
        return interrupt.code()
    except BrokenPipeError:
        _drop_stdout()
        _say(command, "the output was closed before everything was written")
        return 2
    except OSError as exc:  # reading is checked where files are read: this is the output
        _drop_stdout()
        _say(command, f"cannot write the output: {exc.strerror or exc}")
        return 2
    except MemoryError:
        _say(command, "out of memory: the input is too large for this machine")
        return 2
    except RecursionError:
        _say(command, "the input is nested too deeply")
        return 2
    except ArithmeticError as exc:  # the evaluator's bounds, where no layer named the exercise
        # start-up: the graph evaluator is loaded only on this error path
        from derive.graph.evaluate import TooLarge

        if os.environ.get("DERIVE_DEBUG"):
            raise
        if isinstance(exc, TooLarge):
            _say(command, f"not supported: a computation needs {exc}, past derive's bound on "
                          f"one computation; give fewer steps or smaller givens")
        else:
            _say(command, f"internal error (a bug in derive, please report it with the "
                          f"input): {type(exc).__name__}: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 — a bug; one line all the same
        if os.environ.get("DERIVE_DEBUG"):
            raise
        _say(command, f"internal error (a bug in derive, please report it with the input): "
                      f"{type(exc).__name__}: {exc}")
        return 2


def run() -> None:
    """The `derive` program: `main`, then leave. After Ctrl-C (SIGTERM, SIGHUP) the process
    leaves at once with 130 (143, 129), once everything is cleaned up and said: the
    interpreter's own shutdown would turn a Ctrl-C it saw into death by SIGINT, which a caller
    reads differently from exit 130."""
    code = main(leaving=True)
    if code == interrupt.code():
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":
    run()
