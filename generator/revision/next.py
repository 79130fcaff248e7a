"""What `agentddl generate` writes into a folder that may already hold revisions.

An empty versions folder gets the whole schema as one revision (chained onto the
project's head, if it has one). A folder whose last agentddl revision was rendered from
another profile gets the next revision: exactly the delta, down_revision = the chain's
head. The same profile writes no revision. Applied revisions are never rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from agentddl.generator.delta import Delta, RefusedChange, compute_delta
from agentddl.generator.errors import AgentDDLError, DriftError
from agentddl.generator.model import derive
from agentddl.generator.model.layout import LAYOUT
from agentddl.generator.profile import Profile
from agentddl.generator.profile.canonical import changed_keys, describe_change, flat
from agentddl.generator.profile.load import locate_key
from agentddl.generator.render.alembic import render_revision
from agentddl.generator.render.citus import render_citus_files
from agentddl.generator.render.ddl import render_schema_sql
from agentddl.generator.render.delta_revision import render_delta_revision
from agentddl.generator.render.hot import render_hot_files
from agentddl.generator.render.plan import render_plan
from agentddl.generator.render.plan.changes import changes_section
from agentddl.generator.render.queries import render_queries
from agentddl.generator.revision.chain import Chain, read_chain
from agentddl.generator.revision.environment import environment_files
from agentddl.generator.revision.record import RevisionFile

HEAD = "HEAD"


@dataclass(frozen=True)
class Request:
    profile: Profile
    out: Path
    revision_only: bool = False
    down_revision: str = HEAD  # where the first agentddl revision chains on: the head, or an id
    previous: Profile | None = None  # the last agentddl revision's profile, when it records none
    alembic: bool = False  # also write a working Alembic environment (missing files only)
    source: tuple[str, str] | None = None  # the profile's (path, text): refusals name its line
    live: Delta | None = None  # the delta from a live database (generate --dsn), not the record


@dataclass(frozen=True)
class Generation:
    files: dict[str, str]  # relative path -> what must be on disk
    revision: str | None = None  # the revision written now (relative path); None: up to date
    delta: Delta | None = None  # the new revision's delta (None: a first revision, or up to date)
    base: RevisionFile | None = None  # the agentddl revision the delta starts from
    environment: tuple[str, ...] = field(default=())  # Alembic environment files to write
    revisions: tuple[str, ...] = field(default=())  # every revision written now, in order


def plan_generation(request: Request) -> Generation:
    chain = read_chain(request.out / "versions")
    model = derive(request.profile)
    files = (
        {}
        if request.revision_only
        else {
            "schema.sql": render_schema_sql(model),
            "queries.sql": render_queries(model),
            **render_hot_files(model),
            **render_citus_files(model),
        }
    )
    if not chain.generated:
        revision_path, text = _first_revision(request, chain)
        files[revision_path] = text
        generation = Generation(files, revision_path, revisions=(revision_path,))
    else:
        generation = _next_revision(request, chain, files)
    if not request.revision_only:
        section = _changes(generation, chain, request)
        files["PLAN.md"] = render_plan(model, section)
    environment = environment_files(request.out) if request.alembic else {}
    files |= environment
    return replace(generation, files=dict(sorted(files.items())), environment=tuple(sorted(environment)))


def check_generation(request: Request) -> Generation:
    """Raise DriftError when the chain's last agentddl revision was rendered from another
    profile, or a generated file differs; return what was compared."""
    chain = read_chain(request.out / "versions")
    if not chain.generated:
        raise DriftError(f"{chain.folder}: no agentddl revision yet (run `agentddl generate`)")
    last = chain.generated[-1]
    recorded = _recorded(last, request)
    if last.layout != LAYOUT:
        raise DriftError(
            f"{last.path} was rendered in schema layout {last.layout} (today's: {LAYOUT}): "
            "run `agentddl generate` to write the revision that moves it on"
        )
    if recorded != request.profile:
        changes = ", ".join(describe_change(k, v) for k, v in changed_keys(recorded, request.profile).items())
        raise DriftError(
            f"{last.path} was rendered from another profile ({changes}): "
            "run `agentddl generate` to write the next revision"
        )
    generation = plan_generation(request)
    files = {p: t for p, t in generation.files.items() if not p.startswith("versions/")}
    return Generation(files)


def _first_revision(request: Request, chain: Chain) -> tuple[str, str]:
    down = _down_revision(request, chain)
    revision = chain.next_id()
    return f"versions/{revision}_agentddl_schema.py", render_revision(derive(request.profile), revision, down)


def _down_revision(request: Request, chain: Chain) -> str | None:
    if request.down_revision == HEAD:
        return chain.head.revision if chain.head else None
    if chain.revisions:
        chain.find(request.down_revision)  # an error naming the revisions there are
        if chain.head and request.down_revision != chain.head.revision:
            raise AgentDDLError(
                f"--down-revision {request.down_revision}: not the head of {chain.folder} "
                f"({chain.head.revision}); Alembic would see two heads"
            )
    return request.down_revision


def _next_revision(request: Request, chain: Chain, files: dict[str, str]) -> Generation:
    last = chain.generated[-1]
    recorded = _recorded(last, request)
    if request.down_revision not in (HEAD, chain.head.revision if chain.head else None):
        raise AgentDDLError(
            f"--down-revision places the first agentddl revision; {chain.folder} has them: "
            f"the next one always follows the head"
        )
    up_to_date = recorded == request.profile and last.layout == LAYOUT
    if up_to_date and (request.live is None or request.live.empty):
        return Generation(files, None, None, last)
    delta = request.live or compute_delta(recorded, request.profile, old_layout=last.layout)
    if delta.refusals:
        raise RefusedChange(delta.refusals[0], _where(request, delta.refusals[0].key))
    undo = None if request.live else compute_delta(request.profile, recorded, new_layout=last.layout)
    assert chain.head is not None
    parts = _parts(delta, undo)
    first = int(chain.next_id())
    slug = _slug(delta, recorded, request)
    written: list[str] = []
    down = chain.head.revision
    for number, (up, back, suffix, stage) in enumerate(parts):
        revision = f"{first + number:04d}"
        path = f"versions/{revision}_agentddl_{slug}{suffix}.py"
        stage_text = stage.format(first=f"{first:04d}", second=f"{first + 1:04d}")
        files[path] = render_delta_revision(
            request.profile, up, back, revision, down, last.revision, stage_text
        )
        written.append(path)
        down = revision
    return Generation(files, written[-1], delta, last, revisions=tuple(written))


_EXPAND = (
    "Role handover, step 1 of 2: this revision gives the new roles what the old ones have. "
    "Move every client to the new roles (log in as, or SET ROLE to, them), then apply revision "
    "{second}, which takes it from the old roles: `alembic upgrade {first}` now, `alembic upgrade "
    "head` once clients moved."
)
_CONTRACT = (
    "Role handover, step 2 of 2: the old roles lose their privileges and policies here. Apply it "
    "only once every client uses the new roles (revision {first} gave them everything)."
)


def _parts(delta: Delta, undo: Delta | None) -> list[tuple[Delta, Delta | None, str, str]]:
    """One revision; two for a role handover (clients move to the new roles in between):
    the first expands (and its downgrade contracts back), the second contracts."""
    if not delta.hands_over_roles:
        return [(delta, undo, "", "")]
    return [
        (delta.without("contract"), undo.without("expand") if undo else None, "", _EXPAND),
        (delta.only("contract"), undo.only("expand") if undo else None, "_contract", _CONTRACT),
    ]


def _recorded(last: RevisionFile, request: Request) -> Profile:
    if last.profile_text is None and request.previous is not None:
        return request.previous
    if last.profile_text is None:
        raise AgentDDLError(
            f"{last.path}: records no profile (written by an older agentddl): "
            "pass --previous PROFILE, the profile it was rendered from"
        )
    return last.profile()


def _changes(generation: Generation, chain: Chain, request: Request) -> str | None:
    """The PLAN.md section when this profile's revisions are a delta: the ones written now,
    or, when the chain is up to date, the ones since the last profile before this one."""
    if generation.delta is not None and generation.base is not None:
        return changes_section(generation.delta, _intro(generation.revisions, generation.base))
    if generation.revisions:
        return None  # the first revision: the whole schema
    generated = list(chain.generated)
    since: list[RevisionFile] = []
    while (
        generated
        and generated[-1].profile_text is not None
        and (not since or generated[-1].profile_text == since[0].profile_text)
    ):
        since.insert(0, generated.pop())
    if not generated or generated[-1].profile_text is None or not since:
        return None
    base = generated[-1]
    delta = compute_delta(base.profile(), request.profile, old_layout=base.layout)
    return changes_section(delta, _intro(tuple(r.path.name for r in since), base))


def _intro(revisions: tuple[str, ...], base: RevisionFile) -> str:
    names = " and ".join(f"`{Path(r).name}`" for r in revisions) or "this revision"
    verb = "take" if len(revisions) > 1 else "takes"
    return f"{names} {verb} the schema of revision {base.revision} (`{base.path.name}`) to this profile:"


def _slug(delta: Delta, recorded: Profile, request: Request) -> str:
    if request.live is not None:
        return "live"
    sections = sorted({key.split(".")[0] for key in changed_keys(recorded, request.profile)})
    if not sections and any(change.startswith("layout:") for change in delta.changes):
        return "live_set"
    return "_".join(sections) if len(sections) <= 2 else "profile"


def _where(request: Request, key: str) -> str:
    if request.source is None:
        return ""
    path, text = request.source
    if key not in flat(request.profile):
        return path
    line, column = locate_key(text, key)
    return f"{path}:{line}:{column}"
