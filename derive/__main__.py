"""`python -m derive` is the same program as `derive`."""

from derive.cli.entry import run

run()
