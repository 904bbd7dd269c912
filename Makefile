# `make demo`: set up .venv if needed and run derive's main job on the bundled course: prove
# the statements, check the exercises, build the course's site.
# `make test`: set up .venv (and the KaTeX checker) if needed and run the whole test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# `make demo` installs derive and its dependencies only (SymPy, quickjs for the pages); `make
# test` adds the test tools, torch (CPU) and matplotlib (on an ordinary Linux machine the
# default torch wheel pulls gigabytes of CUDA).
DEMO_STAMP := $(VENV)/.demo-stamp
STAMP := $(VENV)/.installed-stamp
KATEX := tests/katex/node_modules/katex/package.json
SCORM := tests/scorm/node_modules/scorm-again/package.json
# pip says errors only; setuptools' notice that an editable install maps derive.proofs to
# proofs/ ("Editable installation", not a warning about derive) is left out. Whatever else the
# build backend warns of is for pyproject.toml to fix (tests/test_packaging.py).
PIP := PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip --quiet --quiet \
	--disable-pip-version-check
QTI := tests/qti/node_modules/@citolab/qti-components/package.json

.PHONY: demo test renderers bench golden docs regen pages clean

$(BIN)/python:
	@echo "making $(VENV) (a virtual environment) with $(PYTHON)"
	@$(PYTHON) -m venv $(VENV)

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	@echo "installing derive into $(VENV) (pip install -e .)"
	@$(PIP) install --upgrade pip
	@$(PIP) install -e .
	@touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "installing derive and its test tools into $(VENV) (pip install -e '.[test,torch,plot]')"
	@$(PIP) install --upgrade pip
	@$(PIP) install -e '.[test,torch,plot]'
	@touch $@ $(DEMO_STAMP)

# KaTeX renders the Markdown exports in the tests; it needs node and npm.
$(KATEX): tests/katex/package.json
	@if command -v npm >/dev/null; then npm install --silent --prefix tests/katex; \
	else echo "npm not found: the KaTeX tests will fail (set DERIVE_SKIP_RENDERERS=1 to skip)"; fi

# Each command as you would type it, and the last line it prints (its summary); one that does
# not succeed prints all it said and stops the demo with its exit code. The site is the README's
# `derive build proofs/course -o site`.
# A SCORM runtime (scorm-again) and ADL's XSDs for the SCORM package tests (tests/test_scorm.py).
$(SCORM): tests/scorm/package.json
	@if command -v npm >/dev/null; then npm install --silent --prefix tests/scorm; \
	else echo "npm not found: the SCORM tests will fail (set DERIVE_SKIP_RENDERERS=1 to skip)"; fi
# A QTI 3 player (@citolab/qti-components) renders and scores the QTI items in the tests.
$(QTI): tests/qti/package.json
	@if command -v npm >/dev/null; then npm install --silent --prefix tests/qti; \
	else echo "npm not found: the QTI player tests will fail (set DERIVE_SKIP_RENDERERS=1 to skip)"; fi

demo: $(DEMO_STAMP)
	@export PATH="$(abspath $(BIN)):$$PATH"; \
	run() { echo "\$$ $$*"; said=$$("$$@" 2>&1); code=$$?; \
	        if [ $$code = 0 ]; then printf '%s\n' "$$said" | tail -n 1; \
	        else printf '%s\n' "$$said"; exit $$code; fi; }; \
	run derive prove && run derive check proofs/course && \
	run derive build proofs/course -o site && \
	echo "next: open site/index.html (authors: keys, checks; students/: the site to publish; lms/: SCORM, Moodle, QTI);" && \
	echo "      . $(VENV)/bin/activate, then derive serve proofs/course (a preview, rebuilt on each save)" && \
	echo "      or derive check my-exercise.toml (README.md, \"Your first exercise\")"

# lint-imports checks the import contracts of pyproject.toml (the layers, docs/index.md); the
# suite runs on every core (pytest-xdist; `make test JOBS=0` runs it in one process).
JOBS ?= auto
test: $(STAMP) renderers $(KATEX) $(SCORM) $(QTI)
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
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .import_linter_cache tests/katex/node_modules \
	  tests/scorm/node_modules

# Rewrite the outputs shown in README.md and docs/ from real runs (read the diff after); a
# line that differs only in its timings keeps the documented figures.
docs: $(STAMP)
	$(BIN)/python tests/update_docs.py

# After a deliberate change of output (a symbol, a word): the golden files and every
# documented session, in one run; then read `git diff`.
regen: golden docs
