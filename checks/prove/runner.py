"""run(): for each lock strategy, a database with the schema, a pool of worker
processes, and the scenarios one after another; the result."""

from __future__ import annotations

import importlib
import pathlib
import tempfile
import time
import traceback

import psycopg

from agentddl.checks.core.progress import Progress, silent
from agentddl.checks.db import database_error, describe_dsn
from agentddl.checks.db.runtime import load_queries
from agentddl.checks.prove.hot import HotCoordinator, default_scenarios, hot_server, hot_setup, validate_hot
from agentddl.checks.prove.hot_setup import HotSetup
from agentddl.checks.prove.observe import Observer
from agentddl.checks.prove.options import ProveOptions, ProveRequest
from agentddl.checks.prove.pool import Pool
from agentddl.checks.prove.result import ProveResult, ScenarioResult
from agentddl.checks.prove.scenarios import HOT_SCENARIOS, SCENARIOS, declared
from agentddl.checks.prove.scenarios.base import CrashableServer, ScenarioContext
from agentddl.checks.prove.soak import validate_soak
from agentddl.checks.prove.target import prove_target
from agentddl.checks.prove.worker import WorkerSetup
from agentddl.generator.errors import AgentDDLError
from agentddl.generator.model import SchemaModel, derive
from agentddl.generator.render.queries import render_queries

TENANTS = 4
SOAK, SOAK_MODULE = "soak", "agentddl.checks.prove.soak"  # run alone, with --soak


def run(request: ProveRequest, *, pool: Pool | None = None, progress: Progress = silent) -> ProveResult:
    """Prove the profile's schema (one variant per strategy; none given: the profile's
    own). pool: worker processes to run on (reused across calls; its size must be the
    number of workers); without one, a pool is started once the first database is ready
    and closed at the end. progress: a line per stage and per scenario."""
    options = request.options
    _validate(request, pool)
    chosen = request.strategies or (request.profile.lock_strategy,)
    started = time.monotonic()
    results: list[ScenarioResult] = []
    workers = _Workers(pool, options.workers, progress)
    try:
        with prove_target(request, progress) as target, hot_server(request, progress) as redis:
            version = target.version
            for strategy in chosen:
                model = derive(request.profile.model_copy(update={"lock_strategy": strategy}))
                hot = hot_setup(redis, model, request)
                with target.database(model) as database:
                    results += prove_model(
                        database,
                        model,
                        options,
                        workers.pool(),
                        request.queries_text,
                        progress,
                        hot,
                        target.crashable,
                    )
    finally:
        workers.close()
    run = {
        "profile": request.profile.name,
        "strategies": [s.value for s in chosen],
        "postgres": [version],
        "workers": options.workers,
        "runs": options.runs,
        "existing": request.dsn is not None,
        **({"soak_minutes": options.soak_minutes} if options.soak_minutes is not None else {}),
    }
    return ProveResult(results, time.monotonic() - started, run)


def _validate(request: ProveRequest, pool: Pool | None) -> None:
    """Every usage error, before any server is reached or process started."""
    options = request.options
    if options.workers < 2:
        raise AgentDDLError(f"--workers {options.workers}: races need at least 2 workers")
    if options.runs < 1 or options.lease_seconds < 1:
        raise AgentDDLError("--runs and --lease-seconds must be at least 1")
    unknown = sorted(set(options.scenarios) - {*SCENARIOS, *HOT_SCENARIOS})
    if unknown:
        known = ", ".join((*SCENARIOS, *HOT_SCENARIOS))
        raise AgentDDLError(f"unknown scenario {unknown[0]!r}; expected one of {known}")
    _validate_server(request)
    validate_hot(request)
    validate_soak(options)
    if request.dsn is not None and (request.server is not None or request.pg_version is not None):
        raise AgentDDLError(
            "--dsn proves the schema already in that database; --server and --pg-version choose "
            "where a fresh install goes: pass one or the other"
        )
    if request.dsn is not None and len(request.strategies) > 1:
        raise AgentDDLError("--dsn proves the one schema in the database: pass one --strategy at most")
    if pool is not None and pool.size != options.workers:
        raise AgentDDLError(f"a pool of {pool.size} workers cannot run --workers {options.workers}")


class _Workers:
    """The given pool, or one started when the first database is ready (a database that
    cannot be proven fails before any process starts) and closed at the end."""

    def __init__(self, given: Pool | None, size: int, progress: Progress) -> None:
        self._given, self._size, self._progress = given, size, progress
        self._own: Pool | None = None

    def pool(self) -> Pool:
        if self._given is not None:
            return self._given
        if self._own is None:
            self._progress(f"starting {self._size} worker processes")
            self._own = Pool(self._size)
        return self._own

    def close(self) -> None:
        if self._own is not None:
            self._own.close()


def _validate_server(request: ProveRequest) -> None:
    """A scenario that injects faults into the server, and server settings, need a server prove starts."""
    given = "--dsn" if request.dsn is not None else "--server" if request.server is not None else None
    if given is None:
        return
    owning = [name for name in request.options.scenarios if name in own_server_scenarios()]
    if owning:
        raise AgentDDLError(
            f"scenario {owning[0]!r} injects faults into the server: it runs only on the embedded "
            f"server prove starts itself, not with {given}"
        )
    if request.server_settings:
        raise AgentDDLError(f"--server-setting configures the embedded server prove starts: not with {given}")


def own_server_scenarios() -> frozenset[str]:
    return frozenset(s.name for s in declared() if s.own_server)


def prove_model(
    dsn: str,
    model: SchemaModel,
    options: ProveOptions,
    pool: Pool,
    queries_text: str | None = None,
    progress: Progress = silent,
    hot: HotSetup | None = None,
    server: CrashableServer | None = None,
) -> list[ScenarioResult]:
    """Every selected scenario against the schema `model` describes, in database `dsn`
    (and, with `hot`, its hot projection in that Redis). `server`: the server, when prove
    started it (the scenarios that crash it run only then). A statement of the
    coordinator's that the server refuses (a schema that is not the profile's) is a
    one-line DatabaseError."""
    text = render_queries(model) if queries_text is None else queries_text
    _parse(model, text)
    try:
        return _scenarios(dsn, model, options, pool, text, progress, hot, server)
    except psycopg.Error as error:
        strategy = model.profile.lock_strategy.value
        raise database_error(error, f"proving {strategy} in {describe_dsn(dsn)}") from error


def _scenarios(
    dsn: str,
    model: SchemaModel,
    options: ProveOptions,
    pool: Pool,
    text: str,
    progress: Progress,
    hot: HotSetup | None,
    server: CrashableServer | None,
) -> list[ScenarioResult]:
    results = []
    strategy = model.profile.lock_strategy.value
    coordinator = HotCoordinator(hot, model) if hot else None
    with tempfile.TemporaryDirectory(prefix="agentddl-prove-") as journal_dir:
        observer = Observer(dsn, model)
        try:
            setup = WorkerSetup(dsn, model, text, journal_dir, options.lease_seconds, options.seed, hot)
            pool.configure(setup)
            # under row-level security each worker serves one tenant: every tenant needs a worker
            tenants = observer.create_tenants(min(TENANTS, options.workers))
            for name in _chosen(options, model, server):
                progress(f"{strategy} {name}: running")
                ctx = ScenarioContext(
                    name, model, pool, observer, options, journal_dir, tenants, coordinator, server
                )
                result = _run_scenario(name, ctx, strategy)
                observer.retire(name)
                results.append(result)
                progress(_said(result))
        finally:
            pool.release()
            observer.cleanup()
            observer.close()
            if coordinator is not None:
                coordinator.close()
    return results


def _chosen(options: ProveOptions, model: SchemaModel, server: CrashableServer | None) -> list[str]:
    """The scenarios asked for, else every one whose tools are installed; those that
    inject faults into the server only on one prove started itself. --soak: the soak alone."""
    if options.soak_minutes is not None:
        return [SOAK]
    if options.scenarios:
        names = list(options.scenarios)
    else:
        installed = {s.name for s in declared() if s.available()}
        names = [n for n in default_scenarios(model) if n in installed]
    left_out = own_server_scenarios() if server is None else frozenset()
    return [n for n in names if n not in left_out]


def _run_scenario(name: str, ctx: ScenarioContext, strategy: str) -> ScenarioResult:
    """One scenario. A server's refusal propagates (prove_model words it); a bug in a
    scenario's own code (an observer's arithmetic, say) is a one-line error that names
    where it happened, never a traceback."""
    try:
        module = SOAK_MODULE if name == SOAK else f"agentddl.checks.prove.scenarios.{name}"
        result: ScenarioResult = importlib.import_module(module).run(ctx)
    except (psycopg.Error, AgentDDLError, KeyboardInterrupt):
        raise
    except Exception as error:
        raise AgentDDLError(f"prove {strategy} {name}: {located(error)}") from error
    return result


def located(error: BaseException) -> str:
    """'file:line in function: Type: message' of the innermost frame an exception came from."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return f"{type(error).__name__}: {error}"
    frame = frames[-1]
    where = f"{pathlib.Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    return f"{where}: {type(error).__name__}: {error}"


def _said(result: ScenarioResult) -> str:
    where = f"{result.strategy} {result.name}"
    if result.held:
        return f"{where} held: {result.seconds:.1f} s"
    broken = ", ".join(f"{k}={v}" for k, v in result.broken_counts.items())
    return f"{where} BROKEN: {broken or '; '.join(result.violations)}"


def _parse(model: SchemaModel, text: str) -> None:
    """A queries.sql that does not load fails here, once, not in every worker."""
    try:
        load_queries(model, text)
    except Exception as error:  # aiosql raises its own SQLParseException and others
        raise AgentDDLError(f"queries.sql does not load: {error}") from error
