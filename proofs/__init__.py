"""The course's statements, one file each, in the order `derive prove` lists them."""

MODULES = (
    "a1",
)
