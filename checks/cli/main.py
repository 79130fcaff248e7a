"""Entry point: builds the Typer app from one module per subcommand.

One error path: every user mistake (an AgentDDLError, a usage error, a file that cannot
be read) is one line on stderr and exit code 2; findings are exit code 1.
"""

from __future__ import annotations

import functools
import sys

import typer

COMMANDS = ("generate", "diff", "apply", "lint", "trace", "verify", "audit", "prove", "bench", "check")

app = typer.Typer(
    name="agentddl",
    help="Schema, migrations and safety checks for durable agent runtimes on PostgreSQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: typer's rich help imports rich and markdown-it (~130 ms of a 250 ms --help).
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)


def version() -> str:
    from importlib import metadata  # ~70 ms: only for --version

    try:
        return metadata.version("agentddl")
    except metadata.PackageNotFoundError:  # running from a source tree without an install
        return "unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"agentddl {version()}")
        raise typer.Exit(0)


def _print_help(context: typer.Context, value: bool) -> None:
    if value:
        typer.echo(context.get_help(), color=context.color)
        raise typer.Exit(0)


@app.callback()
def _root(
    show_version: bool = typer.Option(
        False, "--version", "-V", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
    # Declared here, with a bool default, because typer's own help option has none: it
    # coerces that None through pydantic (~100 ms) on every subcommand, --help included.
    show_help: bool = typer.Option(
        False, "--help", "-h", callback=_print_help, is_eager=True, help="Show this message and exit."
    ),
) -> None:
    """Schema, migrations and safety checks for durable agent runtimes on PostgreSQL."""


@functools.cache
def _register() -> None:
    # Once per process: main() may run many times (tests call it in-process). The command
    # modules import only typer and the shared options; their work is imported lazily.
    import importlib

    for name in COMMANDS:
        importlib.import_module(f"agentddl.checks.cli.{name}").register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user mistakes become one line on stderr and exit code 2."""
    from agentddl.generator.errors import AgentDDLError

    _register()
    try:
        result = app(args=argv, prog_name="agentddl", standalone_mode=False)
    except AgentDDLError as error:
        print(f"agentddl: {_one_line(str(error))}", file=sys.stderr)
        for line in error.details:
            print(f"  {_one_line(line)}", file=sys.stderr)
        return error.exit_code
    except typer.Exit as done:
        return done.exit_code
    except (typer.Abort, KeyboardInterrupt):
        print("agentddl: aborted", file=sys.stderr)
        return 130
    except Exception as error:  # click usage errors arrive as ClickException
        import click
        from typer import _click  # typer >= 0.29 vendors its own click

        if isinstance(error, (click.ClickException, _click.exceptions.ClickException)):
            print(f"agentddl: {_usage_line(error)}", file=sys.stderr)
            return 2
        raise
    return result if isinstance(result, int) else 0


def _one_line(message: str) -> str:
    """A message on one line: text quoted from an input (a token, a server's message) may
    hold line breaks, \r, NEL or U+2028 included."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())


def _usage_line(error: Exception) -> str:
    """A usage error in one line: the command it is about, then click's message."""
    message = " ".join(error.format_message().split())  # type: ignore[attr-defined]
    context = getattr(error, "ctx", None)
    command = context.command_path if context is not None else ""
    hint = f" (see {command} --help)" if command else ""
    return f"{message}{hint}"


if __name__ == "__main__":
    sys.exit(main())
