"""The command line: `derive COMMAND …` (see docs/cli.md)."""
