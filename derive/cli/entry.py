"""The `derive` program (console script and `python -m derive`): Ctrl-C is made derive's own
before anything heavy is imported, so that it gives one line and exit 130 at any instant,
start-up included. The whole of this module runs under one guard, from its first statement: it
imports the standard library's light modules and derive.interrupt last, and a Ctrl-C at any
instant of that (Python's own handler still in place) gives the same one line, not a
traceback. Before its first statement (Python's own start-up, the console script's import of
derive and derive.cli, whose __init__ modules import nothing) a Ctrl-C is Python's."""

# the first statement: a Ctrl-C from here on is one line and exit 130 (see the docstring)
try:
    import os
    import signal
    import sys

    def _command() -> str:
        """The command named on the command line, for the message of a Ctrl-C at start-up."""
        for arg in sys.argv[1:]:
            if not arg.startswith("-"):
                plain = arg.isascii() and arg.isalpha() and arg.islower() and len(arg) <= 20
                return f"derive {arg}" if plain else "derive"
        return "derive"


    def _leave_interrupted(command: str) -> None:
        """One line, exit 130 at once (the interpreter's own exit would turn the Ctrl-C it saw into
        death by SIGINT, which a caller reads differently from exit 130)."""
        try:  # a second Ctrl-C cannot cut this short
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except (OSError, ValueError):  # not the main thread: nothing to ignore it with
            pass
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        # a Ctrl-C while derive.interrupt itself was imported: only Python's handler saw it
        said, code = ((interrupt.said(), interrupt.code()) if "interrupt" in globals()
                      else ("Ctrl-C", 128 + signal.SIGINT))
        try:
            sys.stderr.write(f"{command}: interrupted ({said}); no file was written\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os._exit(code)

    # the console script imports this module before anything can install derive's handler
    from derive import interrupt
except KeyboardInterrupt:
    if "_leave_interrupted" in globals():
        _leave_interrupted(_command())
    import os  # (loaded by Python's own start-up)

    os.write(2, b"derive: interrupted (Ctrl-C); no file was written\n")
    os._exit(130)


def run() -> None:
    """Install the handler, import the command line, run it, leave."""
    try:
        interrupt.install()  # a Ctrl-C at its very return is caught below
        # start-up: SymPy and every command are loaded only once Ctrl-C is derive's own
        from derive.cli import main as cli
        interrupt.check()  # a Ctrl-C that an import swallowed
    except KeyboardInterrupt:
        _leave_interrupted(_command())
    try:
        cli.run()
    except KeyboardInterrupt:  # between the check above and the handling in main
        _leave_interrupted(_command())
