"""PLAN.md section 6 (profiles with `hot_state.store: redis`): what lives in PostgreSQL
and what in Redis, the order of writes, how the durable lease and Redis heartbeats work
together, the read path, and what happens when Redis is lost (seed 004)."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.render import markdown as md
from agentddl.generator.render.hot.layout import key_prefix
from agentddl.generator.render.hot.runtime import renew_interval

TITLE = "Hot state: PostgreSQL and Redis"


def hot_state_section(model: SchemaModel, number: int) -> str | None:
    """The section, numbered `number` (it follows the changes section when there is one)."""
    if not model.hot_state_in_redis:
        return None
    key = f"{key_prefix(model)}{{<run_id>}}"
    return "\n\n".join(
        [
            f"## {number}. {TITLE}",
            "PostgreSQL is the durable record and the only source of truth; Redis holds a "
            "projection of running runs that a UI and operators poll, which anything may "
            "erase at any time (TTL, eviction, a restart, a flush). `redis/` holds its key "
            "layout, Lua scripts and the redis-py module that applies them "
            "(`redis/hot_state.py`; `redis/README.md` for other clients).",
            "### What lives where",
            md.table(["what", "answers", "where", "lost when"], _placement(model, key)),
            "### Order of writes",
            md.numbered(_writes(model)),
            "### Heartbeats, the durable lease and takeover",
            md.bullets(_lease(model)),
            "### Reading a run",
            md.numbered(_reads(model)),
            "### When something fails",
            md.table(["failure", "PostgreSQL", "Redis", "what happens"], _failures(model)),
            "### Operating Redis",
            md.bullets(_operating(model)),
        ]
    )


def _placement(model: SchemaModel, key: str) -> list[list[str]]:
    tenant = f"`{model.tenant}`, " if model.tenant else ""
    return [
        [
            "run record (`runs`, `attempts`)",
            f"whose run ({tenant}status), its result, who holds it and until when",
            "PostgreSQL",
            "never (backups, replicas)",
        ],
        ["checkpoints", "where a new attempt resumes", "PostgreSQL", "never"],
        ["events, operations, outbox", "what happened; effects done once; messages", "PostgreSQL", "never"],
        [
            f"`{key}:state` hash",
            "current step, progress, last heartbeat of the live attempt",
            "Redis",
            "any time: the holder's next heartbeat writes it again",
        ],
        [f"`{key}:lease`", "is the holder alive right now", "Redis", "by its TTL (the holder died)"],
        [f"`{key}:cancel`", "tell the holder to stop, now", "Redis", "by its TTL (PostgreSQL says it too)"],
        ["clients, buffers, the step in flight", "nothing after the process", "worker memory", "with it"],
    ]


def _writes(model: SchemaModel) -> list[str]:
    return [
        "`claim_run` commits in PostgreSQL; then the holder writes its projection "
        "(`fenced_update`, version 1), fenced by the claim's fencing token.",
        "Heartbeats and progress go to Redis only (`renew_lease`, `fenced_update`); "
        "PostgreSQL gets the lease renewal on its own cadence (below).",
        "A step's result is a state change: its checkpoint and event commit together in "
        "PostgreSQL (`save_checkpoint`, `append_event`), never only in Redis.",
        "The run's end commits in PostgreSQL first (`complete_attempt`, `fail_attempt`, "
        "`interrupt_attempt`), then the terminal projection: `HSET` + `EXPIRE` + `DEL` of "
        "the lease in one `MULTI`/`EXEC`. If that Redis write fails, the row is still right "
        "and the projection expires by itself.",
        "A cancellation commits in PostgreSQL (`transition_run`), then `cancel` sets the "
        "flag the holder's next heartbeat sees, with no database round trip.",
    ]


def _lease(model: SchemaModel) -> list[str]:
    lease = model.profile.lease.duration
    renew = md.duration(int(renew_interval(lease)))
    return [
        f"The durable lease stays in PostgreSQL: the holder renews it with `heartbeat` every "
        f"{renew} (a third of the {md.duration(lease)} lease, so two renewals may fail before "
        "it runs out), however often it heartbeats to Redis. That is one UPDATE of the "
        "run's live row (never HOT: `visible_at` is indexed) per renewal instead of per "
        "heartbeat: `make bench-hot-state` measures the WAL this saves.",
        "A crashed worker stops both. Takeover is unchanged: once the durable lease has "
        "run out, the next claim in PostgreSQL takes the run over, by time alone; Redis "
        f"plays no part in it (its `:lease` key lapses after {md.duration(lease)} too, which "
        "only shows readers the same thing sooner).",
        "A worker that cannot reach Redis keeps working and keeps renewing the durable "
        "lease: only the projection is missing meanwhile. A worker that cannot renew the "
        "durable lease stops, whatever Redis says.",
        "Fencing in Redis: `fenced_update` and `renew_lease` compare the caller's fencing "
        "token with the projection's in one server-side step and refuse an older one "
        "(`stale`), a same-token caller without the lease token (`forged`, checked by its "
        "sha1), a write count that is not newer, and any write once the projection is "
        "terminal or cancelled. A taken-over worker learns it from the refusal and stops.",
    ]


def _reads(model: SchemaModel) -> list[str]:
    tenant = "the caller's tenant" if model.tenant else "the run key"
    return [
        f"`get_run` in PostgreSQL with {tenant} first: no row, no answer, and Redis is never "
        "read. That query is the authorization: a Redis key or hash that names a tenant "
        "proves nothing (anyone who can write Redis can write one).",
        "A finished run: the row is the answer (Redis may still say `running`).",
        "A live run: the projection's step, progress and heartbeat are added only if its "
        "tenant and fencing token equal the row's; otherwise (a stale or foreign "
        "projection, or none) the row alone is the answer. A Redis timeout means no "
        "progress in the answer, never an error.",
    ]


def _failures(model: SchemaModel) -> list[list[str]]:
    lease = md.duration(model.profile.lease.duration)
    return [
        [
            "worker crash",
            "run `running` until its lease runs out",
            "`:lease` lapses; `:state` expires",
            f"the next claim takes the run over once its durable lease ran out (at most {lease} "
            "after the last renewal) and resumes from the latest checkpoint",
        ],
        [
            "Redis lost (flush, restart, failover without replication)",
            "unchanged",
            "empty",
            "readers answer from PostgreSQL; each holder's next heartbeat gets `missing` "
            "and writes its projection again; nothing durable is lost",
        ],
        [
            "Redis unreachable",
            "unchanged; leases still renewed",
            "stale or missing",
            "no progress in answers until it is back; runs go on",
        ],
        [
            "a stale worker (paused past its lease)",
            "its writes match no row",
            "its writes are refused (`stale`)",
            "it stops; the newer attempt's projection is untouched",
        ],
        [
            "PostgreSQL unreachable",
            "nothing commits",
            "may still show progress",
            "no run is completed or acknowledged on Redis's word: the worker retries the commit",
        ],
    ]


def _operating(model: SchemaModel) -> list[str]:
    hot = model.profile.hot_state
    return [
        "No persistence needed (`save \"\"`, `appendonly no` are fine): nothing in Redis "
        "must survive a restart.",
        f"Every key has a TTL (running {md.duration(hot.running_ttl)}, finished "
        f"{md.duration(hot.terminal_ttl)}), so `maxmemory-policy volatile-ttl` (or "
        "`volatile-lru`) may evict under memory pressure: an evicted projection comes back "
        "with the next heartbeat.",
        "Memory: one small hash (about 15 short fields) and two short strings per run "
        f"written to in the last {md.duration(hot.running_ttl)}.",
        "Redis Cluster: the `{<run_id>}` hash tag keeps a run's keys in one slot, which the "
        "scripts need; runs spread over slots by id (a tenant's runs are not pinned to one).",
    ]
