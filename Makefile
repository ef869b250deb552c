# Two commands do all set-up on a fresh machine: `make run` and `make test`.
# Each bootstraps .venv from nothing (python3 -m venv; pip install -e '.[dev]') and is safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint pytest train bench soak clean pi-check wiring

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/companion run --demo

test: lint pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check engine vision device web models tests
	$(VENV)/bin/mypy

pytest: $(STAMP)
	$(PY) -m pytest -q

train: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,train]'
	$(PY) -m vision.lab.train

bench: $(STAMP)
	$(VENV)/bin/companion bench all

# Reliability figures (docs/benchmarks.md): SIGKILLs through every game, an endpoint fuzz, the page under idle
# connections and streams, an RSS soak; about 40 minutes, loopback only.
soak: $(STAMP)
	$(PY) -m device.bench soak

# The Pi install on Raspberry Pi OS's two Debian releases, in debootstrap roots (needs root and debootstrap; slow,
# not part of `make test`; docs/install.md). PI_CHECK_ARGS="--ref HEAD" installs the committed tree.
pi-check:
	tools/pi-check.sh $(PI_CHECK_ARGS)

# The panel's wiring diagram from the default pins (tests/test_wiring.py checks it is up to date).
wiring: $(STAMP)
	$(PY) tools/wiring.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
