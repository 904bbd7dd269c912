"""Small helpers for messages that read well."""


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`1 claim`, `2 claims` (or the given plural form)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def joined(names, conjunction: str = "and") -> str:
    """`a`, `a and b`, `a, b and c`."""
    names = list(names)
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"
