# agentddl: `make demo` runs the main job, `make test` the tests. Both set up what they
# need (a virtualenv, real PostgreSQL servers) on a fresh Debian machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PG_MAJORS ?= 14 16 17 18
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: demo test postgres generate check lint-self bench-lint docs clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

postgres:
	bash tests/setup/install_postgres.sh $(PG_MAJORS)

demo: $(BIN)/.installed postgres
	$(BIN)/agentddl generate schemas/default.yaml --out build/default
	$(BIN)/agentddl apply schemas/default.yaml
	$(BIN)/agentddl lint migrations/versions

test: $(BIN)/.installed postgres
	$(BIN)/ruff check generator checks tests
	$(BIN)/pytest

# Re-render every checked-in generated file (CI checks them with --check in the tests).
generate: $(BIN)/.installed
	$(BIN)/agentddl generate schemas/default.yaml --revision-only --out migrations
	$(BIN)/python -m agentddl.generator.profile.jsonschema --out schemas/profile.schema.json
	$(BIN)/python -m agentddl.checks.lint.docs

check: $(BIN)/.installed
	$(BIN)/ruff check generator checks tests
	$(BIN)/mypy
	$(BIN)/lint-imports

bench-lint: $(BIN)/.installed
	$(BIN)/python -m agentddl.checks.lint.bench --files 1000

clean:
	rm -rf build $(VENV)
