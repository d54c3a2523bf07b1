"""The ``orma`` Typer app: global options, logging, and the one error-to-exit-code mapping.

Command groups live in their own modules, each with an unnamed ``typer.Typer()``
merged in here with ``app.add_typer(...)``.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer
from rich.logging import RichHandler
from typer.core import TyperGroup

from orma_proxy import __version__
from orma_proxy.cli import (
    add_cmds,
    admin_cmds,
    facts_cmds,
    forget_cmds,
    mcp_cmds,
    memory_cmds,
    portable_cmds,
    serve_cmds,
    viz_cmds,
)
from orma_proxy.cli.shared_options import exit_code, report_error, state
from orma_proxy.errors import OrmaError

log = logging.getLogger(__name__)


class OrmaGroup(TyperGroup):
    """Turns every ``OrmaError`` or ``ValueError`` raised by a command into one red line.

    User mistakes (exit 2) and environment problems (exit 1) show their
    traceback only with -v; anything else is a bug and always keeps it.
    """

    # Typer types this with the Context of its private vendored click; ours is its subclass.
    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except (OrmaError, ValueError) as exc:
            log.debug("details of the error below", exc_info=exc)
            report_error(state(ctx).err, exc)
            raise typer.Exit(exit_code(exc)) from None


app = typer.Typer(
    cls=OrmaGroup,
    name="orma",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(add_cmds.app)
app.add_typer(memory_cmds.app)
app.add_typer(facts_cmds.app)
app.add_typer(admin_cmds.app)
app.add_typer(serve_cmds.app)
app.add_typer(mcp_cmds.app)
app.add_typer(forget_cmds.app)
app.add_typer(portable_cmds.app)
app.add_typer(viz_cmds.app)


def _setup_logging(ctx: typer.Context, verbose: bool) -> None:
    """Orma's log lines go to stderr: warnings only (nothing routine: a command's result is on
    stdout), DEBUG with -v; a server logs what it does at INFO (``serving_logs``)."""
    logger = logging.getLogger("orma_proxy")
    handler = RichHandler(console=state(ctx).err, show_time=False, show_path=False)
    logger.addHandler(handler)
    previous = logger.level
    logger.setLevel(logging.DEBUG if verbose else logging.WARNING)

    def restore() -> None:  # in-process callers (tests) run many invocations
        logger.removeHandler(handler)
        logger.setLevel(previous)

    ctx.call_on_close(restore)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"orma {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Debug logging on stderr.")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Long-term memory for local LLMs, on one SQLite file.

    Commands that use memory take --db (the SQLite file), --space (an isolated
    memory space) and --json (machine-readable output on stdout). Logs and
    progress go to stderr.

    Examples:

      orma add "My dentist is Dr. Rao in Kothrud."

      orma add docs/handbook.md notes.txt --space work

      orma search "who is my dentist?" -k 5

      orma stats --json
    """
    state(ctx)
    _setup_logging(ctx, verbose)


def main() -> None:
    """Entry point of the ``orma`` console script."""
    app()


if __name__ == "__main__":
    main()
