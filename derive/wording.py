"""Small helpers for messages that read well."""


def plural(n: int, noun: str, many: str | None = None) -> str:
    """`1 claim`, `2 claims` (or the given plural form)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"
