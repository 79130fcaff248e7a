"""Alembic revisions -> the SQL `alembic upgrade --sql` prints for each one.

We run Alembic's own offline mode with an in-memory Config and a small env.py of our
own (the project's env.py may import the application or need a database). The env
marks every statement with `-- agentddl-source: FILE:LINE`, the line of the `op.*`
call that emitted it, so findings land on the revision file; `# agentddl: ignore[...]`
comments on (or just above) that line are forwarded as SQL ignore comments.
"""

from __future__ import annotations

import ast as pyast
import configparser
import io
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from agentddl.checks.pg import type_hints

ENV_PY = """\
from alembic import context

from agentddl.checks.pg.alembic_offline import run_offline

run_offline(context)
"""
MARKER = "-- agentddl-source: "
_PY_IGNORE = re.compile(r"#\s*(agentddl:\s*ignore(?:-file)?\s*\[.*)$")


@dataclass
class RevisionSQL:
    """One revision's offline SQL, or why it could not be produced."""

    path: Path  # the revision file as the user named it
    sql: str = ""
    error: str | None = None
    markers: dict[int, int] = field(default_factory=dict)  # SQL line -> revision line
    error_line: int = 1  # where in the revision rendering stopped
    broken: bool = False  # the script itself is invalid (not just unrenderable offline)


def run_offline(context: Any) -> None:
    """The body of our env.py: configure offline mode, mark statements, run."""
    config = context.config
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        transaction_per_migration=True,
    )
    _install_markers(context.get_context().impl, config.attributes["agentddl_file"])
    with context.begin_transaction():
        context.run_migrations()


def _install_markers(impl: Any, revision_file: str) -> None:
    original = impl._exec
    source = Path(revision_file).read_text(encoding="utf-8").splitlines()
    pending: list[str] = []  # a comment to put into the statement being written

    def _exec(construct: Any, *args: Any, **kwargs: Any) -> Any:
        line = _calling_line(sys._getframe(1), revision_file)
        if line is not None:
            impl.output_buffer.write(_marker_block(line, source))
        pending[:] = _existing_type_hint(construct, impl.dialect)
        try:
            return original(construct, *args, **kwargs)
        finally:
            pending.clear()

    impl._exec = _exec
    impl.static_output = _with_comment(_terminator_safe(impl.static_output), pending)


def _existing_type_hint(construct: Any, dialect: Any) -> list[str]:
    """For `op.alter_column(..., existing_type=, existing_nullable=,
    existing_server_default=)`: what the column was, which the ALTER COLUMN text does not
    show (see type_hints), as one comment."""
    from alembic.ddl.base import AlterColumn

    if not isinstance(construct, AlterColumn):
        return []
    column, existing_type = str(construct.column_name), construct.existing_type
    comments = []
    if existing_type is not None:
        rendered_type = _rendered(lambda: existing_type.compile(dialect=dialect))
        comments = [type_hints.hint_comment(column, rendered) for rendered in rendered_type]
    if construct.existing_nullable is not None:
        comments.append(type_hints.nullable_comment(column, bool(construct.existing_nullable)))
    if construct.existing_server_default not in (None, False):
        comments.extend(
            type_hints.server_default_comment(column, rendered)
            for rendered in _rendered(lambda: _server_default(construct.existing_server_default, dialect))
        )
    return [" ".join(comments)] if comments else []


def _server_default(default: Any, dialect: Any) -> str:
    from alembic.ddl.base import format_server_default

    return format_server_default(dialect.ddl_compiler(dialect, None), default)


def _rendered(render: Any) -> list[str]:
    """[what render() returns as text], or [] when user code cannot render (no hint:
    the rules then guess, as without one)."""
    try:
        return [str(render())]
    except Exception:
        return []


def _with_comment(static_output: Any, pending: list[str]) -> Any:
    def write(text: str) -> None:
        if pending and text.endswith(";"):
            text = f"{text[:-1]} {pending.pop()};"
        static_output(text)

    return write


def _terminator_safe(static_output: Any) -> Any:
    """Alembic appends `;` to op.execute() text; after a trailing `-- comment` that `;`
    would be commented out, so put it on its own line."""

    def write(text: str) -> None:
        body = text[:-1] if text.endswith(";") else None
        if body is not None and _ends_in_line_comment(body):
            text = body + "\n;"
        static_output(text)

    return write


def _ends_in_line_comment(sql: str) -> bool:
    import pglast

    try:
        tokens = pglast.parser.scan(sql)
    except pglast.parser.ParseError:
        return False
    return bool(tokens) and tokens[-1].name == "SQL_COMMENT"


def _calling_line(frame: FrameType | None, revision_file: str) -> int | None:
    while frame is not None:
        if frame.f_code.co_filename == revision_file:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _marker_block(line: int, source: list[str]) -> str:
    lines = [f"{MARKER}{line}"]
    for number in (line - 1, line):
        match = _PY_IGNORE.search(source[number - 1]) if 0 < number <= len(source) else None
        if match:
            lines.append(f"-- {match.group(1)}")
    return "\n".join(lines) + "\n"


# -- finding revisions ------------------------------------------------------------------


def is_environment(directory: Path) -> bool:
    """A folder holding an Alembic environment (env.py + versions/, or alembic.ini)."""
    return (directory / "alembic.ini").is_file() or (
        (directory / "env.py").is_file() and (directory / "versions").is_dir()
    )


def environment_versions(directory: Path) -> list[Path]:
    """The version folders of an Alembic environment folder."""
    ini = directory / "alembic.ini"
    if ini.is_file():
        parser = configparser.ConfigParser(defaults={"here": str(directory)})
        parser.read(ini, encoding="utf-8")
        section = parser["alembic"] if parser.has_section("alembic") else parser.defaults()
        locations = section.get("version_locations")
        if locations:
            return [directory / p for p in re.split(r"[\s,;:]+", locations.strip()) if p]
        directory = directory / section.get("script_location", ".").split(":")[-1]
    return [directory / "versions"]


def revision_files(versions: list[Path]) -> list[Path]:
    """Every revision script in the version folders, sorted by name."""
    return sorted(p for folder in versions for p in folder.glob("*.py") if p.name != "__init__.py")


def offline_sql(revisions: list[Path]) -> list[RevisionSQL]:
    """The offline SQL of each revision file. Missing parents become empty stubs, so a
    single revision lints on its own; a broken revision yields an error, not a crash.
    Revisions are loaded once for the batch; if any fails to load, each is run alone."""
    with tempfile.TemporaryDirectory(prefix="agentddl-alembic-") as temp:
        try:
            return _render(revisions, Path(temp) / "batch")
        except _LoadError:
            results = []
            for number, path in enumerate(revisions):
                try:
                    results.extend(_render([path], Path(temp) / f"single{number}"))
                except _LoadError as error:
                    results.append(RevisionSQL(path, error=str(error), broken=error.broken))
            return results


class _LoadError(Exception):
    """Alembic could not load the staged revision scripts."""

    def __init__(self, message: str, broken: bool) -> None:
        super().__init__(message)
        self.broken = broken  # a Python syntax error, not a missing import


def _render(revisions: list[Path], root: Path) -> list[RevisionSQL]:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    (root / "versions").mkdir(parents=True)
    (root / "env.py").write_text(ENV_PY, encoding="utf-8")
    staged = _stage(revisions, root / "versions")
    buffer = io.StringIO()
    config = Config(output_buffer=buffer)
    config.set_main_option("script_location", str(root))
    config.set_main_option("sqlalchemy.url", "postgresql://")
    script = ScriptDirectory.from_config(config)
    try:
        script.revision_map.get_revisions("heads")  # imports every revision script
    except Exception as error:  # revision scripts are user code
        broken = isinstance(error, SyntaxError)
        raise _LoadError(f"{type(error).__name__}: {error}", broken) from None
    return [
        _run_one(script, config, buffer, path, *staged[path])
        if path in staged
        else RevisionSQL(path, error="no `revision = '...'` assignment: not an Alembic revision", broken=True)
        for path in revisions
    ]


def _stage(revisions: list[Path], versions: Path) -> dict[Path, tuple[Path, str, str | None]]:
    staged: dict[Path, tuple[Path, str, str | None]] = {}
    known: set[str] = set()
    parents: set[str] = set()
    for number, original in enumerate(revisions):
        identity = revision_identity(original)
        if identity is None:
            continue
        revision, down = identity
        copy = versions / f"r{number:05d}_{original.name}"
        shutil.copyfile(original, copy)
        staged[original] = (copy, revision, down)
        known.add(revision)
        parents.update(_as_list(down))
    for number, missing in enumerate(sorted(parents - known)):
        stub = f"revision = {missing!r}\ndown_revision = None\n\ndef upgrade():\n    pass\n"
        (versions / f"stub_{number:05d}.py").write_text(stub, encoding="utf-8")
    return staged


def revision_identity(path: Path) -> tuple[str, str | None] | None:
    """`revision` and (first) `down_revision` read from the script without importing it."""
    try:
        tree = pyast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return None
    values = dict(_literal_assignments(tree))
    revision = values.get("revision")
    if not isinstance(revision, str):
        return None
    down = _as_list(values.get("down_revision"))
    return revision, down[0] if down else None


def _literal_assignments(tree: pyast.Module) -> Iterator[tuple[str, Any]]:
    """`name = <literal>` and `name: T = <literal>` at module level."""
    for node in tree.body:
        if isinstance(node, pyast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, pyast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, pyast.Name):
            try:
                yield target.id, pyast.literal_eval(value)
            except ValueError:
                continue


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, str)]
    return []


def _run_one(
    script: Any,
    config: Any,
    buffer: io.StringIO,
    original: Path,
    copy: Path,
    revision: str,
    down: str | None,
) -> RevisionSQL:
    """What `alembic upgrade <down>:<revision> --sql` prints, with source markers."""
    from alembic.runtime.environment import EnvironmentContext

    buffer.seek(0)
    buffer.truncate()
    config.attributes["agentddl_file"] = str(copy)

    def upgrade(rev: Any, context: Any) -> Any:
        return script._upgrade_revs(revision, rev)

    environment = EnvironmentContext(
        config, script, fn=upgrade, as_sql=True, starting_rev=down, destination_rev=revision
    )
    try:
        with environment:
            script.run_env()
    except Exception as error:  # user code, e.g. op.get_bind() data migrations, fails offline
        partial = _python_file_ignores(original) + buffer.getvalue()
        return RevisionSQL(
            original,
            sql=partial,
            markers=source_markers(partial),
            error=f"{type(error).__name__}: {error}",
            error_line=_failing_line(error, copy),
        )
    sql = _python_file_ignores(original) + buffer.getvalue()
    return RevisionSQL(original, sql=sql, markers=source_markers(sql))


def _failing_line(error: BaseException, copy: Path) -> int:
    """The revision line the exception passed through last (1 if none)."""
    line, trace = 1, error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == str(copy):
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _python_file_ignores(path: Path) -> str:
    """`# agentddl: ignore-file[...]` comments of the revision, as SQL comments."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"#\s*(agentddl:\s*ignore-file\s*\[.*)$", text, re.MULTILINE)
    return "".join(f"-- {comment}\n" for comment in found)


def source_markers(sql: str) -> dict[int, int]:
    """SQL line -> revision line, for every SQL line after a marker (0 = unknown)."""
    mapping: dict[int, int] = {}
    current = 0
    for number, line in enumerate(sql.splitlines(), start=1):
        if line.startswith(MARKER):
            current = int(line[len(MARKER) :].strip() or 0)
        elif (
            line.startswith("-- Running upgrade")
            or line.startswith("INSERT INTO alembic_version")
            or line.startswith("UPDATE alembic_version")
        ):
            current = 0
        mapping[number] = current
    return mapping
