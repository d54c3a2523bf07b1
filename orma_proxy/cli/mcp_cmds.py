"""``orma mcp``: serve memory to coding agents over MCP (stdio), or print a client's config."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer

from orma_proxy.cli.serve_cmds import ModelOption, UpstreamOption
from orma_proxy.cli.shared_options import (
    DbOption,
    SpaceOption,
    configured,
    say,
    serving_logs,
    state,
)
from orma_proxy.inputs import DEFAULT_SPACE
from orma_proxy.mcp import CLIENTS, serve_stdio, snippet

app = typer.Typer()


def _check_client(value: str | None) -> str | None:
    if value is not None and value not in CLIENTS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(CLIENTS)}")
    return value


def _server_args(db: str | None, space: str) -> list[str]:
    """The options the client must pass for the same database and space as this command."""
    from orma_proxy.config import is_db_url

    if db is not None and not is_db_url(db):
        db = str(Path(db).expanduser().resolve())
    args = [] if db is None else ["--db", db]
    return [*args, "--space", space] if space != DEFAULT_SPACE else args


def orma_program(argv0: str) -> list[str]:
    """How a client starts this ``orma``: its absolute path (the script run, else the one on
    PATH), or this Python with ``-m orma_proxy.cli`` when there is no ``orma`` script."""
    run = Path(argv0)
    if run.stem == "orma" and run.is_file():
        return [str(run.resolve())]
    found = shutil.which("orma")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "orma_proxy.cli"]


@app.command(rich_help_panel="Serve")
def mcp(
    ctx: typer.Context,
    db: DbOption = None,
    space: SpaceOption = DEFAULT_SPACE,
    upstream: UpstreamOption = None,
    model: ModelOption = None,
    print_config: Annotated[
        str | None,
        typer.Option(
            "--print-config",
            metavar="CLIENT",
            help=f"Print the setup for {', '.join(CLIENTS)} and exit.",
            callback=_check_client,
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve memory to coding agents over MCP on stdin/stdout (Claude Code, Cursor, Windsurf).

    Tools: orma_recall, orma_remember, orma_forbid, orma_facts, orma_forget,
    orma_release, orma_unrelease, orma_purge.
    --space is the tools' default space. Sleep consolidates in the background
    with the --upstream LLM, or with rules when it cannot be reached. Logs go
    to stderr; stdout carries the protocol only.

    Example: orma mcp --print-config claude-code
    """
    cli = state(ctx)
    if print_config is not None:
        found = snippet(print_config, orma_program(sys.argv[0]), _server_args(db, space))
        typer.echo(found.text)
        say(cli.err, found.where)
        return
    config = configured(db, upstream=upstream, model=model)
    serving_logs()
    serve_stdio(config, space=space, embedder=cli.embedder)
