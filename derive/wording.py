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


def short(value: str, limit: int = 40) -> str:
    """An exact value as an explanation shows it: whole up to `limit` characters, else its
    ends and its length (the JSON witness keeps every digit)."""
    if len(value) <= limit:
        return value
    return f"{value[:12]}…{value[-6:]} ({len(value):,} characters)"
