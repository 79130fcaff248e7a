"""prove(): for each lock strategy, a database with the schema, a pool of worker
processes, and the scenarios one after another; the report."""

from __future__ import annotations

import importlib
import tempfile
import time
from collections.abc import Callable, Sequence

from agentddl.checks.db.runtime import load_queries
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.options import ProveOptions
from agentddl.checks.prove.pool import Pool
from agentddl.checks.prove.result import ProveReport, ScenarioResult
from agentddl.checks.prove.scenarios import SCENARIOS
from agentddl.checks.prove.scenarios.base import ScenarioContext
from agentddl.checks.prove.target import prove_database
from agentddl.checks.prove.worker import WorkerSetup
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.profile import LockStrategy, Profile
from agentddl.generator.render.queries import render_queries

TENANTS = 4
Progress = Callable[[ScenarioResult], None]


def prove(
    profile: Profile,
    *,
    options: ProveOptions | None = None,
    dsn: str | None = None,
    existing: bool = False,
    strategies: Sequence[LockStrategy] = (),
    queries_text: str | None = None,
    on_result: Progress | None = None,
    pool: Pool | None = None,
) -> ProveReport:
    """Prove the profile's schema (one variant per strategy; none given: the profile's
    own). queries_text: a queries.sql to run instead of the rendered one. pool: worker
    processes to run on (reused across calls; its size is the number of workers)."""
    options = options or ProveOptions()
    _validate(options, existing, strategies, pool)
    chosen = tuple(strategies) or (profile.lock_strategy,)
    started = time.monotonic()
    results: list[ScenarioResult] = []
    servers: set[int] = set()
    workers = _Workers(pool, options.workers)
    try:
        for strategy in chosen:
            model = derive(profile.model_copy(update={"lock_strategy": strategy}))
            with prove_database(model, dsn, existing) as (database, major):
                servers.add(major)
                results += prove_model(database, model, options, workers.pool(), queries_text, on_result)
    finally:
        workers.close()
    run = {
        "profile": profile.name,
        "strategies": [s.value for s in chosen],
        "postgres": sorted(servers),
        "workers": options.workers,
        "runs": options.runs,
        "existing": existing,
    }
    return ProveReport(results, time.monotonic() - started, run)


def _validate(
    options: ProveOptions, existing: bool, strategies: Sequence[LockStrategy], pool: Pool | None
) -> None:
    if options.workers < 2:
        raise AgentDDLError(f"--workers {options.workers}: races need at least 2 workers")
    if options.runs < 1 or options.lease_seconds < 1:
        raise AgentDDLError("--runs and --lease-seconds must be at least 1")
    unknown = sorted(set(options.scenarios) - set(SCENARIOS))
    if unknown:
        raise AgentDDLError(f"unknown scenario {unknown[0]!r}; expected one of {', '.join(SCENARIOS)}")
    if existing and len(strategies) > 1:
        raise AgentDDLError("--existing proves the one schema in the database: pass one --strategy at most")
    if pool is not None and pool.size != options.workers:
        raise AgentDDLError(f"a pool of {pool.size} workers cannot run --workers {options.workers}")


class _Workers:
    """The given pool, or one started when the first database is ready (a database that
    cannot be proven fails before any process starts) and closed at the end."""

    def __init__(self, given: Pool | None, size: int) -> None:
        self._given, self._size = given, size
        self._own: Pool | None = None

    def pool(self) -> Pool:
        if self._given is not None:
            return self._given
        if self._own is None:
            self._own = Pool(self._size)
        return self._own

    def close(self) -> None:
        if self._own is not None:
            self._own.close()


def prove_model(
    dsn: str,
    model: SchemaModel,
    options: ProveOptions,
    pool: Pool,
    queries_text: str | None = None,
    on_result: Progress | None = None,
) -> list[ScenarioResult]:
    """Every selected scenario against the schema `model` describes, in database `dsn`."""
    text = render_queries(model) if queries_text is None else queries_text
    _parse(model, text)
    results = []
    with tempfile.TemporaryDirectory(prefix="agentddl-prove-") as journal_dir:
        observer = Observer(dsn, model)
        try:
            pool.configure(WorkerSetup(dsn, model, text, journal_dir, options.lease_seconds, options.seed))
            # under row-level security each worker serves one tenant: every tenant needs a worker
            tenants = observer.create_tenants(min(TENANTS, options.workers))
            for name in options.scenarios or SCENARIOS:
                ctx = ScenarioContext(name, model, pool, observer, options, journal_dir, tenants)
                result = importlib.import_module(f"agentddl.checks.prove.scenarios.{name}").run(ctx)
                observer.retire(name)
                results.append(result)
                if on_result:
                    on_result(result)
        finally:
            pool.release()
            observer.cleanup()
            observer.close()
    return results


def _parse(model: SchemaModel, text: str) -> None:
    """A queries.sql that does not load fails here, once, not in every worker."""
    try:
        load_queries(model, text)
    except Exception as error:  # aiosql raises its own SQLParseException and others
        raise AgentDDLError(f"queries.sql does not load: {error}") from error
