"""Upkeep: ``sleep`` (consolidate now) and ``config`` (the settings in effect)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.common import (
    AnySpaceOption,
    DbOption,
    JsonOption,
    open_memory,
    print_json,
    say,
    state,
)
from orma_proxy.cli.serve_cmds import ModelOption, UpstreamOption
from orma_proxy.config import OrmaConfig

app = typer.Typer()

PANEL = "Upkeep"
HIDDEN = "(hidden)"


@app.command(rich_help_panel=PANEL)
def sleep(
    ctx: typer.Context,
    model: ModelOption = None,
    redo: Annotated[
        bool,
        typer.Option("--redo", help="Forget the space's states and events, rebuild them."),
    ] = False,
    space: AnySpaceOption = None,
    upstream: UpstreamOption = "http://127.0.0.1:11434/v1",
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Consolidate pending episodes into states and events now.

    Uses the --upstream LLM (--model); when it cannot be reached, a rule-based
    extractor does the work and the report says so. Exits 1 if a batch failed
    (its episodes stay pending).

    Example: orma sleep --model llama3.2:3b
    """
    cli = state(ctx)
    with (
        open_memory(cli, db, must_exist=True, upstream=upstream, model=model) as memory,
        cli.err.status("Sleeping…"),
    ):
        report = memory.sleep(space, model=model, redo=redo)
    if json_out:
        print_json(report.as_dict())
    else:
        say(cli.out, str(report))
    if report.errors:
        raise typer.Exit(1)


def settings(config: OrmaConfig) -> dict[str, Any]:
    """Every field, JSON-ready: ``db_path`` resolved, secrets only saying whether they are set."""
    values = config.model_dump(mode="json")
    for name, field in OrmaConfig.model_fields.items():
        if not field.repr:
            values[name] = HIDDEN if values[name] else None
    values["db_path"] = str(config.resolved_db_path())
    return values


@app.command(rich_help_panel=PANEL)
def config(
    ctx: typer.Context,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show every setting, its value in effect and what it does.

    These are the built-in defaults (with $ORMA_DIR for the data directory);
    commands take their own options on top, e.g. `orma proxy --upstream`.
    """
    cli = state(ctx)
    current = OrmaConfig() if db is None else OrmaConfig(db_path=db)
    values = settings(current)
    if json_out:
        print_json(values)
        return
    table = Table("Setting", "Value", "What it does", box=box.SIMPLE_HEAD)
    for name, field in OrmaConfig.model_fields.items():
        shown = "" if values[name] is None else str(values[name])
        table.add_row(name, Text(shown), Text(field.description or ""))
    cli.out.print(table)
