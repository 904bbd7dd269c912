"""Progress of long work on stderr (rich), shown only on a terminal and never with --quiet."""

from __future__ import annotations

import sys
from contextlib import contextmanager


class _Silent:
    def advance(self, what: str) -> None:
        pass


class _Shown:
    def __init__(self, progress, task) -> None:
        self.progress, self.task = progress, task

    def advance(self, what: str) -> None:
        self.progress.update(self.task, advance=1, what=what)


@contextmanager
def progress(total: int, quiet: bool = False):
    """A bar of `total` steps; `advance(what)` after each (`what`: the step just done)."""
    if quiet or total == 0 or not sys.stderr.isatty():
        yield _Silent()
        return
    # start-up: rich is loaded only when a bar is shown
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    class _Escaped(_Shown):
        def advance(self, what: str) -> None:
            super().advance(escape(what))

    bar = Progress(TextColumn("derive build"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[what]}"), console=Console(stderr=True),
                   transient=True)
    with bar:
        yield _Escaped(bar, bar.add_task("build", total=total, what=""))
