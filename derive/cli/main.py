"""`derive`: the entry point shared by the console script and `python -m derive`."""

from __future__ import annotations

import argparse
import os
import sys

from derive import __version__
from derive.cli import exercises, export, ledger, prove, recipes, variants
from derive.cli.errors import UsageError

COMMANDS = (prove, exercises, export, variants, recipes, ledger)
"""In the contract's order; each module adds its subcommands (exercises: check and key)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="derive",
        description="Prove the identities of one training step and check answer keys exactly.")
    parser.add_argument("--version", action="version", version=f"derive {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except UsageError as exc:
        print(f"derive {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader (`| head`) closed the pipe: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
