"""The revision chain: each revision records its profile; a changed profile writes the
next revision (never rewriting an applied one); the same profile writes nothing; --check
fails on a stale head; hand-written revisions and existing Alembic projects are respected."""

from __future__ import annotations

from pathlib import Path

import pytest
from profile_changes import DEFAULT, changed
from profiles import ROOT

from agentddl.checks.cli.main import main
from agentddl.generator.profile import Profile
from agentddl.generator.profile.canonical import canonical_text
from agentddl.generator.revision.chain import read_chain
from agentddl.generator.revision.record import read_revision

RLS = changed(DEFAULT, **{"tenancy.row_level_security": True})


def write_profile(path: Path, profile: Profile) -> Path:
    path.write_text(canonical_text(profile) + "\n", encoding="utf-8")  # JSON is YAML
    return path


def generate(tmp_path: Path, profile: Profile, *args: str) -> int:
    return main(
        [
            "generate",
            str(write_profile(tmp_path / "profile.yaml", profile)),
            "--out",
            str(tmp_path / "m"),
            *args,
        ]
    )


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_unchanged_profile_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    before = snapshot(tmp_path / "m")
    assert generate(tmp_path, DEFAULT) == 0
    assert snapshot(tmp_path / "m") == before  # same bytes, not even rewritten
    assert "up to date" in capsys.readouterr().out


def test_a_changed_profile_writes_the_next_revision_and_never_rewrites_0001(tmp_path: Path) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    first = (tmp_path / "m/versions/0001_agentddl_schema.py").read_bytes()
    assert generate(tmp_path, RLS) == 0
    assert (tmp_path / "m/versions/0001_agentddl_schema.py").read_bytes() == first
    chain = read_chain(tmp_path / "m/versions")
    assert [(r.revision, r.down_revision) for r in chain.revisions] == [("0001", ()), ("0002", ("0001",))]
    assert chain.revisions[0].profile() == DEFAULT and chain.revisions[1].profile() == RLS
    text = chain.revisions[1].path.read_text(encoding="utf-8")
    assert "CREATE INDEX CONCURRENTLY run_queue_visible_idx_new" in text
    assert "ENABLE ROW LEVEL SECURITY" in text
    assert "CREATE TABLE" not in text  # exactly the delta
    assert generate(tmp_path, RLS) == 0
    assert len(read_chain(tmp_path / "m/versions").revisions) == 2  # and again: nothing new


def test_check_fails_when_the_head_was_rendered_from_another_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    assert generate(tmp_path, DEFAULT, "--check") == 0
    assert generate(tmp_path, RLS, "--check") == 1
    err = capsys.readouterr().err
    assert "0001_agentddl_schema.py was rendered from another profile" in err
    assert "tenancy.row_level_security: false -> true" in err
    assert generate(tmp_path, RLS) == 0
    assert generate(tmp_path, RLS, "--check") == 0


def test_check_without_any_revision_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert generate(tmp_path, DEFAULT, "--check") == 1
    assert "no agentddl revision" in capsys.readouterr().err


def test_a_hand_edited_record_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    revision = tmp_path / "m/versions/0001_agentddl_schema.py"
    revision.write_text(revision.read_text().replace('"version": 16', '"version": 17'))
    assert generate(tmp_path, RLS) == 2
    assert "edited by hand" in capsys.readouterr().err
    assert len(list((tmp_path / "m/versions").glob("*.py"))) == 1


USER_REVISION = '''"""Add a column of the application's own."""
from alembic import op

revision = {revision!r}
down_revision = {down!r}
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE agent.runs ADD COLUMN note text")


def downgrade() -> None:
    op.execute("ALTER TABLE agent.runs DROP COLUMN note")
'''


def test_hand_written_revisions_in_the_chain_are_respected(tmp_path: Path) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    user = tmp_path / "m/versions/0002_add_note.py"
    user.write_text(USER_REVISION.format(revision="0002", down="0001"))
    assert generate(tmp_path, RLS) == 0
    chain = read_chain(tmp_path / "m/versions")
    assert [r.revision for r in chain.revisions] == ["0001", "0002", "0003"]
    new = chain.revisions[-1]
    assert new.down_revision == ("0002",)  # onto the head, the user's revision
    assert new.path.name == "0003_agentddl_tenancy.py"
    assert "Changes from revision 0001" in new.path.read_text()  # the delta from the last agentddl one


def test_the_first_revision_chains_onto_an_existing_project(tmp_path: Path) -> None:
    versions = tmp_path / "m/versions"
    versions.mkdir(parents=True)
    (versions / "a1b2c3_init.py").write_text(USER_REVISION.format(revision="a1b2c3", down=None))
    (versions / "d4e5f6_more.py").write_text(USER_REVISION.format(revision="d4e5f6", down="a1b2c3"))
    assert generate(tmp_path, DEFAULT, "--revision-only") == 0
    first = read_revision(versions / "0001_agentddl_schema.py")
    assert first is not None and first.down_revision == ("d4e5f6",)  # detected head: one chain
    assert "Revises: d4e5f6" in (versions / "0001_agentddl_schema.py").read_text()


def test_down_revision_must_be_the_head(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    versions = tmp_path / "m/versions"
    versions.mkdir(parents=True)
    (versions / "a1_init.py").write_text(USER_REVISION.format(revision="a1", down=None))
    (versions / "b2_more.py").write_text(USER_REVISION.format(revision="b2", down="a1"))
    assert generate(tmp_path, DEFAULT, "--down-revision", "a1") == 2
    assert "not the head" in capsys.readouterr().err
    assert generate(tmp_path, DEFAULT, "--down-revision", "zz") == 2
    assert "no revision 'zz'" in capsys.readouterr().err
    assert generate(tmp_path, DEFAULT, "--down-revision", "b2") == 0


def test_two_heads_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    versions = tmp_path / "m/versions"
    versions.mkdir(parents=True)
    (versions / "a1_one.py").write_text(USER_REVISION.format(revision="a1", down=None))
    (versions / "b2_two.py").write_text(USER_REVISION.format(revision="b2", down=None))
    assert generate(tmp_path, DEFAULT) == 2
    assert "2 head revisions (a1, b2)" in capsys.readouterr().err
    assert not (tmp_path / "m/schema.sql").exists()


def test_a_refused_change_names_the_key_and_the_plan_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single = changed(DEFAULT, **{"tenancy.column": None})
    assert generate(tmp_path, single) == 0
    before = snapshot(tmp_path / "m")
    profile = tmp_path / "multi.yaml"
    profile.write_text("profile: 1\nname: default\ntenancy:\n  column: tenant_id\n")
    assert main(["generate", str(profile), "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(
        f"agentddl: {profile}:4:3: tenancy.column: null -> tenant_id: cannot be changed online"
    )
    assert [line.split(".")[0].strip() for line in err[1:]] == ["1", "2", "3", "4"]
    assert "1. expand:" in err[1] and "backfill" in err[2] and "switch" in err[3] and "contract" in err[4]
    assert snapshot(tmp_path / "m") == before


def test_alembic_writes_a_working_environment_without_replacing_one(tmp_path: Path) -> None:
    (tmp_path / "m").mkdir()
    (tmp_path / "m/env.py").write_text("# the user's own env.py\n")
    assert generate(tmp_path, DEFAULT, "--alembic") == 0
    assert (tmp_path / "m/env.py").read_text() == "# the user's own env.py\n"
    ini = (tmp_path / "m/alembic.ini").read_text()
    assert "script_location = %(here)s" in ini
    assert (tmp_path / "m/script.py.mako").is_file()


def test_plan_gets_the_changes_section_and_keeps_it(tmp_path: Path) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    assert "Changes from the previous profile" not in (tmp_path / "m/PLAN.md").read_text()
    assert generate(tmp_path, RLS) == 0
    plan = (tmp_path / "m/PLAN.md").read_text()
    section = plan.split("## 6. Changes from the previous profile", 1)[1]
    assert "`tenancy.row_level_security: false -> true`" in section
    assert "| 1 | expand | build index run_queue_visible_idx_new" in section
    assert "SET agentddl.tenant" in section  # what to deploy first
    assert generate(tmp_path, RLS) == 0  # up to date: the same PLAN.md, byte for byte
    assert (tmp_path / "m/PLAN.md").read_text() == plan


def test_a_revision_without_a_record_needs_previous(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(tmp_path, DEFAULT) == 0
    revision = tmp_path / "m/versions/0001_agentddl_schema.py"
    text = revision.read_text()
    revision.write_text(text[: text.index("# The profile this revision was rendered from")])
    assert generate(tmp_path, RLS) == 2
    assert "pass --previous PROFILE" in capsys.readouterr().err
    previous = write_profile(tmp_path / "old.yaml", DEFAULT)
    assert generate(tmp_path, RLS, "--previous", str(previous)) == 0
    assert (tmp_path / "m/versions/0002_agentddl_tenancy.py").is_file()


def test_the_repository_migrations_are_what_the_generator_renders() -> None:
    assert (
        main(
            [
                "generate",
                str(ROOT / "schemas/default.yaml"),
                "--out",
                str(ROOT / "migrations"),
                "--revision-only",
                "--check",
            ]
        )
        == 0
    )


def test_renamed_roles_are_handed_over_in_two_revisions(tmp_path: Path) -> None:
    renamed = changed(RLS, **{"roles.app": "agent_workers"})
    assert generate(tmp_path, RLS) == 0
    assert generate(tmp_path, renamed) == 0
    chain = read_chain(tmp_path / "m/versions")
    assert [(r.path.name, r.down_revision) for r in chain.revisions[1:]] == [
        ("0002_agentddl_roles.py", ("0001",)),
        ("0003_agentddl_roles_contract.py", ("0002",)),
    ]
    expand, contract = (r.path.read_text() for r in chain.revisions[1:])
    assert "step 1 of 2" in expand and "GRANT SELECT, INSERT, UPDATE ON agent.runs TO agent_workers" in expand
    assert "TO agent_app, agent_workers" in expand  # policies name both roles meanwhile
    assert "REVOKE" not in expand.split("def downgrade")[0]
    assert (
        "step 2 of 2" in contract and "REVOKE SELECT, INSERT, UPDATE ON agent.runs FROM agent_app" in contract
    )
    assert chain.revisions[1].profile() == chain.revisions[2].profile() == renamed
    assert generate(tmp_path, renamed, "--check") == 0
