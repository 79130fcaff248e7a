"""What `apply` reports for catalog differences: which rule, which object, what wording."""

from __future__ import annotations

from agentddl.checks.db.catalog import Change, Difference
from agentddl.checks.verify.apply_findings import migration_findings, undeclared_findings

INVALID = Change("valid", True, False)
GRANTED = Change("granted", ["USAGE"], ["UPDATE", "USAGE"])


def test_what_the_model_declares_but_schema_sql_lacks_is_a_declared_finding() -> None:
    findings = undeclared_findings(
        "agent",
        [
            Difference("tables", "outbox", "outbox", "missing"),
            Difference("indexes", "runs_claim_idx", "runs", "differs", (Change("keys", ["a DESC"], ["a"]),)),
            Difference("constraints", "runs_status_check", "runs", "validity", (INVALID,)),
        ],
    )
    assert [(f.code, f.object) for f in findings] == [
        ("ADV123", "agent.outbox"),
        ("ADV121", "agent.runs_claim_idx"),
        ("ADV122", "agent.runs_status_check"),
    ]
    assert findings[0].message == "table agent.outbox is missing after schema.sql ran."
    assert findings[1].message == (
        "index agent.runs_claim_idx is not what the profile declares after schema.sql ran: "
        "keys (a) (declared: (a DESC))."
    )
    assert findings[2].message == "constraint agent.runs_status_check is not validated after schema.sql ran."
    assert all(f.is_error and f.fix.startswith("report it with the profile") for f in findings)


def test_what_alembic_builds_otherwise_is_migration_differs_from_schema() -> None:
    findings = migration_findings(
        "agent",
        [
            Difference("indexes", "runs_claim_idx", "runs", "missing"),
            Difference("comments", "runs.kind", "runs", "unexpected"),
            Difference("functions", "FUNCTION f(x integer)", "", "differs", (Change("volatile", "i", "v"),)),
            Difference("privileges", "agent_app on SEQUENCE s", "", "differs", (GRANTED,)),
            Difference("privileges", "agent_app on SCHEMA", "", "missing"),
        ],
    )
    assert {f.code for f in findings} == {"ADV130"}
    assert [f.object for f in findings] == [
        "agent.runs_claim_idx",
        "agent.runs.kind",
        "agent.f(x integer)",
        "agent_app on agent.s",
        "agent_app on agent",
    ]
    assert findings[0].message == (
        "index agent.runs_claim_idx exists after schema.sql but not after alembic upgrade head."
    )
    assert findings[1].message == (
        "comment on agent.runs.kind exists after alembic upgrade head but not after schema.sql."
    )
    assert findings[3].message == (
        "privileges of agent_app on agent.s differs: granted (USAGE) after schema.sql, "
        "(UPDATE, USAGE) after alembic upgrade head."
    )
