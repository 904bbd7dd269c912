"""The pictures of docs/export.md (`make pages`): the first page of the standalone export of
each recipe's example (docs/examples/RECIPE.toml), in English (pdfLaTeX) and Chinese
(XeLaTeX), as PNG files in docs/images/export-RECIPE.LANG.png. Needs TeX Live and pdftoppm
(Debian: poppler-utils). Look at every page at full size before committing it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ("sgd_step", "accumulation", "clipping", "optimizer_steps", "memory")
ENGINES = {"en": "pdflatex", "zh": "xelatex"}


def page(recipe: str, lang: str, folder: Path) -> Path:
    source = ROOT / "docs" / "examples" / f"{recipe}.toml"
    tex = folder / f"{recipe}.{lang}.tex"
    subprocess.run([sys.executable, "-m", "derive", "export", str(source), "--standalone",
                    "--lang", lang, "-o", str(tex)], check=True, cwd=ROOT)
    subprocess.run([ENGINES[lang], "-interaction=nonstopmode", "-halt-on-error", tex.name],
                   check=True, cwd=folder, stdout=subprocess.DEVNULL)
    out = ROOT / "docs" / "images" / f"export-{recipe}.{lang}"
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", "-singlefile",
                    str(tex.with_suffix(".pdf")), str(out)], check=True)
    return Path(f"{out}.png")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for recipe in RECIPES:
            for lang in ENGINES:
                print(page(recipe, lang, Path(tmp)))


if __name__ == "__main__":
    main()
