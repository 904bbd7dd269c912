"""derive: prove the identities of one training step, and check answer keys exactly.

Layers, each depending only on the ones before it:
kernel (exact equality, verdicts, witnesses) <- model (the course's formulas)
<- statements (claims, proofs, course instances) <- cli.

Importing this package imports nothing else (the console script imports it before derive's
Ctrl-C handler is in place): `derive.__version__` is read from the installed package's metadata
(pyproject.toml's version) when it is first asked for.
"""

_version: list[str] = []


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module 'derive' has no attribute {name!r}")
    if not _version:
        # start-up: the metadata is read only when the version is asked for
        from importlib.metadata import PackageNotFoundError, version

        try:
            _version.append(version("derive"))
        except PackageNotFoundError:  # run from a source tree that was never installed
            _version.append("0+unknown")
    return _version[0]
