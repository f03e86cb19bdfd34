# The two commands: `make test` and `make train`. Each builds (or refreshes) a local
# virtualenv in .venv from pyproject.toml pinned by constraints.txt, then runs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
GAME   ?=
# pytest workers: the CI machine has 2 cores.
WORKERS ?= 2

.PHONY: test train bench lint clean venv mutation browser wheel-check docs

venv: $(STAMP)

# `make train` needs only the trainer's extra (orbax, tensorboardX, matplotlib, tqdm); `make test`
# installs every extra (the ecosystem wrappers, sb3 and torch, Jupyter, the browser tests, ...).
TRAIN_STAMP := $(VENV)/.installed-train
$(TRAIN_STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[train]'
	touch $(TRAIN_STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,bench,train,ecosystem,sb3,browser,notebooks,research,docs,serve]'
	touch $(STAMP)

# Headless Chromium for the replay viewer's test (Debian packages; apt-get needs root or sudo).
SUDO := $(shell test "$$(id -u)" = 0 || echo sudo)
browser:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver; }

test: $(STAMP) browser
	$(PY) -m pytest -n $(WORKERS) --dist loadfile --no-loadscope-reorder --max-worker-restart=0 --durations=30 tests

# CONFIG: a config in configs/ppo (e.g. pokemon_mixed); ARGS: key=value overrides.
CONFIG ?=
ARGS   ?=
train: $(TRAIN_STAMP)
	$(PY) -m tcgjax.train $(if $(GAME),--env $(GAME),) $(if $(CONFIG),--config $(CONFIG),) $(ARGS)

# The package as a user gets it: build the sdist and wheel, install the wheel in a fresh venv
# outside the checkout and run the README's examples there (tools/wheel_check.sh; CI runs it).
wheel-check: $(STAMP)
	PYTHON=$(PYTHON) bash tools/wheel_check.sh

# The documentation site (mkdocs.yml, docs/) into site/, warnings as errors.
docs: $(STAMP)
	$(PY) -m mkdocs build --strict

bench: $(STAMP)
	$(PY) benchmarks/throughput.py --env duel --batch 1024 --compare-pgx

# Mutation testing (not CI: hours on 2 cores; resumable). MUTATION_ARGS e.g. "core/zones --jobs 2".
MUTATION_STAMP := $(VENV)/.installed-mutation
$(MUTATION_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev,bench,train,ecosystem,sb3,browser,notebooks,research,docs,serve,mutation]'
	touch $(MUTATION_STAMP)

mutation: $(MUTATION_STAMP)
	$(PY) tools/mutation.py $(MUTATION_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check tcgjax train tests benchmarks examples tools
	$(VENV)/bin/ruff format --check tcgjax train tests benchmarks examples tools

clean:
	rm -rf $(VENV) .jax_cache .pytest_cache .mutation
