# `make demo`: set up .venv if needed and run derive on the bundled course material.
# `make test`: set up .venv (and the KaTeX checker) if needed and run the whole test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make demo` installs derive and SymPy only; `make test` adds the test tools, torch (CPU) and
# matplotlib (on an ordinary Linux machine the default torch wheel pulls gigabytes of CUDA).
DEMO_STAMP := $(VENV)/.demo-stamp
STAMP := $(VENV)/.installed-stamp
KATEX := tests/katex/node_modules/katex/package.json
QTI := tests/qti/node_modules/@citolab/qti-components/package.json

.PHONY: demo test renderers bench golden docs regen pages clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,torch,plot]'
	touch $@ $(DEMO_STAMP)

# KaTeX renders the Markdown exports in the tests; it needs node and npm.
$(KATEX): tests/katex/package.json
	@if command -v npm >/dev/null; then npm install --silent --prefix tests/katex; \
	else echo "npm not found: the KaTeX tests will fail (set DERIVE_SKIP_RENDERERS=1 to skip)"; fi

# A QTI 3 player (@citolab/qti-components) renders and scores the QTI items in the tests.
$(QTI): tests/qti/package.json
	@if command -v npm >/dev/null; then npm install --silent --prefix tests/qti; \
	else echo "npm not found: the QTI player tests will fail (set DERIVE_SKIP_RENDERERS=1 to skip)"; fi

demo: $(DEMO_STAMP)
	$(BIN)/derive prove
	$(BIN)/derive check proofs/course

# lint-imports checks the import contracts of pyproject.toml (the layers, docs/index.md); the
# suite runs on every core (pytest-xdist; `make test JOBS=0` runs it in one process).
JOBS ?= auto
test: $(STAMP) renderers $(KATEX) $(QTI)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n $(JOBS)

# TeX Live, node and Chromium for the export tests (Debian packages; needs root, else says
# what to do).
renderers:
	@bash .ci/renderers

bench: $(STAMP)
	$(BIN)/python benchmarks/prove.py
	$(BIN)/python benchmarks/check.py
	$(BIN)/python benchmarks/variants.py
	$(BIN)/python benchmarks/scaling.py --max-n 10000
	$(BIN)/python benchmarks/certified.py
	$(BIN)/python benchmarks/formulas_bank.py
	$(BIN)/python benchmarks/formula_answers.py
	$(BIN)/python benchmarks/page.py
	$(BIN)/python benchmarks/semantics.py
	$(BIN)/python benchmarks/near_misses.py

# The export pictures of docs/export.md (TeX Live and pdftoppm from poppler-utils).
pages: $(STAMP)
	$(BIN)/python tests/make_pages.py
	$(BIN)/python tests/make_screenshots.py

golden: $(STAMP)
	$(BIN)/python tests/golden.py --update

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .import_linter_cache tests/katex/node_modules

# Rewrite the outputs shown in README.md and docs/ from real runs (read the diff after); a
# line that differs only in its timings keeps the documented figures.
docs: $(STAMP)
	$(BIN)/python tests/update_docs.py

# After a deliberate change of output (a symbol, a word): the golden files and every
# documented session, in one run; then read `git diff`.
regen: golden docs
