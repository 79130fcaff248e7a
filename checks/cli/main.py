"""Entry point: builds the Typer app from one module per subcommand."""

from __future__ import annotations

import functools
import sys

import typer

from agentddl.generator.errors import AgentDDLError

app = typer.Typer(
    name="agentddl",
    help="Schema, migrations and safety checks for durable agent runtimes on PostgreSQL.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@functools.cache
def _register() -> None:
    # Once per process: main() may run many times (tests call it in-process). Lazy
    # imports keep `import agentddl.checks.cli.main` cheap.
    from agentddl.checks.cli import apply, audit, generate, lint, prove, trace, verify

    for module in (generate, apply, lint, trace, verify, prove, audit):
        module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; user mistakes become one line on stderr and exit code 2."""
    _register()
    try:
        result = app(args=argv, standalone_mode=False)
    except AgentDDLError as error:
        print(f"agentddl: {error}", file=sys.stderr)
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
            error.show(file=sys.stderr)
            return 2
        raise
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
