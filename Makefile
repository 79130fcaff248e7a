# agentddl: `make demo` runs the main job, `make test` the tests. Both set up what they
# need (a virtualenv, real PostgreSQL servers) on a fresh Debian machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PG_MAJORS ?= 14 16 17 18
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: demo test postgres generate docs check reinstall squawk bench-lint bench-trace bench-trace-clone bench-delta bench-prove bench-audit bench-audit-reach bench-hot-state bench-hotpath bench-peers bench-evidence bench-retention bench-lease-check bench-soak property-profiles lint-eval clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' --config-settings editable_mode=strict
	touch $@

# A strict editable install (what mypy can see) lists modules at install time: refresh it.
reinstall: $(BIN)/.installed
	$(BIN)/pip install -q --no-deps -e . --config-settings editable_mode=strict

postgres:
	bash tests/setup/install_postgres.sh $(PG_MAJORS)

demo: reinstall postgres
	$(BIN)/agentddl generate --profile schemas/default.yaml --out out/default
	$(BIN)/agentddl apply --profile schemas/default.yaml
	$(BIN)/agentddl verify --profile schemas/default.yaml
	$(BIN)/agentddl lint migrations/versions

# Two test processes (pytest-xdist): each starts its own servers; the suite takes ~8 min
# on 2 cores instead of ~14. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: check postgres
	$(BIN)/pytest -n $(TEST_WORKERS)

# Re-render every checked-in generated file (CI checks them with --check in the tests).
# migrations/ is this repository's own first revision (never applied anywhere it would have to
# stay): it is rendered again from scratch. In a real project `agentddl generate` never
# rewrites a revision: it writes the next one.
generate: reinstall
	rm -f migrations/versions/0001_agentddl_schema.py
	$(BIN)/agentddl generate --profile schemas/default.yaml --revision-only --out migrations
	$(BIN)/python -m agentddl.generator.profile.jsonschema --out schemas/profile.schema.json
	$(BIN)/python -m agentddl.checks.docs

# The docs site (docs/, mkdocs.yml) into build/site; `.venv/bin/mkdocs serve` to browse it while editing.
docs: reinstall
	$(BIN)/python -m agentddl.checks.docs
	$(BIN)/mkdocs build --strict

# mypy reads the strict editable install, named after the version pyproject.toml declares.
VERSION = $(shell $(BIN)/python -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
check: reinstall
	$(BIN)/ruff check generator checks tests
	MYPYPATH=build/__editable__.agentddl-$(VERSION)-py3-none-any $(BIN)/mypy --strict \
	    --namespace-packages --explicit-package-bases -p agentddl.generator -p agentddl.checks

# squawk (PyPI squawk-cli) is the peer measured side by side; benchmarks only, not tests.
squawk: $(BIN)/.installed
	$(BIN)/pip install -q squawk-cli

bench-lint: reinstall squawk
	$(BIN)/python tests/benchmarks/lint_bench.py --files 1000

# `agentddl trace --load` on the default schema seeded with 1,000,000 events: how long the
# runtime waits on a plain CREATE INDEX on events vs the same index built CONCURRENTLY.
bench-trace: reinstall postgres
	$(BIN)/python tests/benchmarks/trace_bench.py --events 1000000

# `agentddl trace --dsn` on a "user" database (the default schema at 1,000,000 events): the
# copy (schema only, --sample 1000, --statistics on 18) and copy + trace, on 16 and 18.
bench-trace-clone: reinstall postgres
	$(BIN)/python tests/benchmarks/trace_clone_bench.py --events 1000000 --pg-version 16
	$(BIN)/python tests/benchmarks/trace_clone_bench.py --events 1000000 --pg-version 18

# `agentddl trace --load` on the delta revision from the default profile to one changing ten
# keys at once (lock strategy, RLS, retention, volume tier, payload limits, lease), at
# 1,000,000 events: per step, the longest workload wait and its lock; fails above 200 ms.
bench-delta: reinstall postgres
	$(BIN)/python tests/benchmarks/delta_trace_bench.py --events 1000000 --pg-version 16

# `agentddl prove` at default scale (8 worker processes, 2,000 runs) for each lock
# strategy: run time, claim-race throughput, totals (a quick look: PROVE_BENCH="--workers 2 --runs 20").
PROVE_BENCH ?= --workers 8 --runs 2000
bench-prove: reinstall postgres
	$(BIN)/python tests/benchmarks/prove_bench.py $(PROVE_BENCH)

# `agentddl audit` figures: seeding rate at 1,000,000 events, audit time, each path's plan
# node and estimated cost, on 16 (the default profile's engine) and 18.
bench-audit: reinstall postgres
	$(BIN)/python tests/benchmarks/audit_bench.py --rows 1000000 --versions 16,18

# `agentddl audit --dsn` on three schemas agentddl did not generate (a job queue, a
# checkpoint store, a workflow store) at 1,000,000 rows each: precision and recall against
# the ground truth of tests/integration/audit/test_reach.py, and the audit time.
bench-audit-reach: reinstall postgres
	$(BIN)/python tests/benchmarks/audit_reach.py --rows 1000000 --versions 15,18

# WAL bytes per heartbeat of a heartbeat-heavy workload (20 runs, a progress report every
# second of a 60 s lease), hot_state.store none vs redis; fails unless redis writes >= 5x less.
bench-hot-state: reinstall postgres
	$(BIN)/python tests/benchmarks/hot_state_wal.py --runs 20 --rounds 120

# `agentddl bench` figures: the default profile's hot paths as ratios to the durable-commit
# floor on a durable embedded PostgreSQL 15 (8 clients, 10 s segments), at 10^4..10^6 rows
# of history, twice (the machine is shared: ranges). Quick look: BENCH_HOTPATH="--duration 2
# --history 10000 --repeat 1". Every run's JSON: build/bench-hotpath.json.
BENCH_HOTPATH ?= --pg-version 15 --clients 8 --duration 10 --history 10000,100000,1000000 --repeat 2
bench-hotpath: reinstall postgres
	$(BIN)/python tests/benchmarks/bench_hotpath.py $(BENCH_HOTPATH)

# `agentddl bench` side by side with its peers on one durable embedded server: claim +
# complete vs procrastinate and pgmq, checkpoint save and latest read vs
# langgraph-checkpoint-postgres (pinned, `pip download`ed into build/peers, never installed),
# each as ops/s ÷ the durable-commit floor, with server CPU and WAL per operation.
# Quick look: BENCH_PEERS="--duration 2". The run's JSON: build/bench-peers.json.
BENCH_PEERS ?= --pg-version 15 --clients 8 --duration 10
bench-peers: reinstall postgres
	$(BIN)/python tests/benchmarks/peer_bench.py $(BENCH_PEERS)

# Partition maintenance under `agentddl trace --load` at 1,000,000 events: how long claims
# and step writes wait on it (quiet, and while a report's transaction stays open), for the
# scheduled procedure and for the psql recipe of partition_steps().
bench-retention: reinstall postgres
	$(BIN)/python tests/benchmarks/retention_bench.py --events 1000000

# A 10-minute soak (`agentddl prove --soak`): the claim race's workload held at 8 workers
# on the default profile, per minute runs/s, p99 claim-to-complete, dead tuples and the
# size of every hot table and index; broken when the last minute is 1.2x worse than the
# second or run_queue ends over 2x its size after minute 1.
bench-soak: reinstall postgres
	$(BIN)/agentddl prove -p schemas/default.yaml --soak 10 --workers 8

# What the lease-token check on the history and operation writes costs: claim + step
# writes + complete throughput with and without it, alternating rounds, the ratio.
bench-lease-check: reinstall postgres
	$(BIN)/python tests/benchmarks/lease_check_bench.py

# Where the hot paths' cost goes (issue 13): per hot path, pg_waldump of its segment by
# relation and pg_stat_statements per statement, then the plans each hot query runs with
# after twelve prepared executions, cold and seeded, on a durable embedded PostgreSQL 15.
# Quick look: BENCH_EVIDENCE="--history 10000 --duration 2".
BENCH_EVIDENCE ?= --pg-version 15 --history 1000000 --clients 8 --duration 10
bench-evidence: reinstall postgres
	$(BIN)/python tests/benchmarks/bench_evidence.py $(BENCH_EVIDENCE)

# The property-based test at length: PROPERTY_EXAMPLES profiles drawn afresh, each through
# generate -> apply -> verify -> audit -> a short prove (the suite runs 2, always the same).
PROPERTY_EXAMPLES ?= 30
property-profiles: reinstall postgres
	AGENTDDL_PROPERTY_EXAMPLES=$(PROPERTY_EXAMPLES) AGENTDDL_PROPERTY_FRESH=1 \
	    $(BIN)/pytest tests/integration/test_profile_properties.py -q -p no:cacheprovider --hypothesis-show-statistics

# Precision/recall of `agentddl lint` (and squawk, when installed) on the labelled corpus.
.PHONY: lint-eval
lint-eval: reinstall squawk
	$(BIN)/python tests/benchmarks/lint_evaluate.py tests/lint_corpus --squawk

clean:
	rm -rf out build $(VENV)
