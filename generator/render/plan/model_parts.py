"""PLAN.md section 1's note on the runtime model's optional parts (profile `model:`):
which are on, what each holds, how its writes are guarded, and what goes with a run."""

from __future__ import annotations

from agentddl.generator.model import SchemaModel
from agentddl.generator.render import markdown as md


def model_parts_note(model: SchemaModel) -> str:
    parts = model.parts
    lines = [
        _switch("nodes", parts.nodes, _NODES),
        _switch("approvals", parts.approvals, _APPROVALS),
        _switch("sessions", parts.sessions, _SESSIONS),
        _switch("notes", parts.notes, _NOTES),
        _switch("details", parts.details, _DETAILS),
    ]
    tail = (
        "A state change and its event are one statement where both matter: "
        "`transition_run_with_event` (the run's status and `run.<status>`) and "
        "`decide_approval` (the decision and `approval.<decision>`) commit both or neither; "
        "their event takes the run's next `seq` in the statement, so a concurrent append of "
        "the same `seq` fails one of the two on `events_pkey` (retry it), never doubling or "
        "losing an event. Lists never return bodies (input, output, result, request). "
        "Every part's rows go with their run (ON DELETE CASCADE), so `purge_finished_runs` "
        "is their retention too. Switching a part on later is the next online revision "
        "(`CREATE TABLE` whole in one short transaction, `ADD COLUMN` nullable); switching "
        "it off drops its tables and columns, data included (contract)."
    )
    return md.bullets(lines) + "\n\n" + tail


def _switch(name: str, on: bool, text: str) -> str:
    return f"`model.{name}`: " + (text if on else "off (no tables or columns for it).")


_NODES = (
    "on. `node_executions`: one row per (run, node, node attempt), the primary key "
    "`(run_id, node_id, attempt)` under the tenant, which also finds a node's latest "
    "execution by `run_id + node_id` (`node_execution`, a backward scan); `start_node` "
    "takes the node's next attempt and `finish_node` ends it, both fenced by the run's "
    "lease (fencing and lease token) and only for the run attempt that started it. "
    "`tool_calls` under a node execution (tenant-scoped FK): recorded before the call "
    "(`record_tool_call`), completed after (`complete_tool_call`), where the run's current "
    "holder may complete a call a crashed attempt left pending; a call with an external "
    "effect names its `operations` key."
)
_APPROVALS = (
    "on. `approvals`: human-in-the-loop waits as records (who asked and when, who decided, "
    "what and when). `request_approval` is fenced by the run's lease; `decide_approval` "
    "decides a pending approval once (`status = 'pending'` in its UPDATE: a concurrent "
    "second decision waits for the first and then finds nothing pending; prove's "
    "`approval_once`). Pending ones by `approvals_pending_idx` "
    "(tenant, `requested_at`) `WHERE status = 'pending'`."
)
_SESSIONS = (
    "on. `runs.user_id` and `runs.session_id` (nullable: a run outside a session has "
    "neither; a session always has its user), set by `start_session_run`; a session's runs "
    "newest first by `runs_session_idx` (tenant, `session_id`, `created_at DESC`) "
    "`WHERE session_id IS NOT NULL` (`session_runs`)."
)
_DETAILS = (
    "on. The seeds' descriptive columns, nullable and never indexed (so the writes that "
    "set them stay HOT-eligible): on `runs` `workflow_version` and `span_id` (set by "
    "`start_session_run`), `started_at` (the first claim, in `claim_run`), `error` (the "
    "last failed attempt's, by `fail_attempt`), `current_step` (`record_step`, fenced, "
    "no version bump); on `operations` `action`, `provider_reference`, `trace_id` and "
    "`span_id` (`describe_operation`, by the attempt holding the reservation)."
)
_NOTES = (
    "on. `attempt_notes` (seed 002): short notes an attempt leaves for whoever runs next "
    "(`progress`, `finding`, `warning`; the restartable summary is a checkpoint), under "
    "the attempt (tenant-scoped FK, cascade), bounded by a check on the body. "
    "`append_attempt_note` is fenced by the run's lease like `append_event`; "
    "`run_attempt_notes` reads a run's notes newest first by the primary key."
)
