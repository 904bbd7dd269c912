"""`python -m derive` is the same program as `derive`."""

from derive.cli.main import run

run()
