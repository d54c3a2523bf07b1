"""Upkeep: ``sleep`` (consolidate now) and ``config`` (the settings in effect)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.serve_cmds import ModelOption, UpstreamOption
from orma_proxy.cli.shared_options import (
    AnySpaceOption,
    DbOption,
    JsonOption,
    open_memory,
    print_json,
    say,
    state,
)

if TYPE_CHECKING:  # pydantic loads with the commands that read the settings, not for --help
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
    upstream: UpstreamOption = None,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Consolidate pending episodes into states and events now.

    Uses the --upstream LLM (--model); when it cannot be reached, a rule-based
    extractor does the work and the report says so. Exits 1 if a batch failed
    (its episodes stay pending).

    Example: orma sleep --model llama3.2:3b
    """
    from orma_proxy.cli.progress import counting_down

    cli = state(ctx)
    with open_memory(cli, db, must_exist=True, upstream=upstream, model=model) as memory:
        before = memory.stats(space)
        total = before.episodes if redo else before.pending_sleep

        def pending() -> int:
            return memory.stats(space).pending_sleep

        report = counting_down(
            cli.err,
            lambda: memory.sleep(space, model=model, redo=redo),
            "Sleeping",
            pending,
            total,
            unit="episodes",
        )
    if json_out:
        print_json(report.as_dict())
    else:
        say(cli.out, str(report))
    if report.errors:
        raise typer.Exit(1)


def settings(config: OrmaConfig) -> dict[str, Any]:
    """Every field, JSON-ready: ``db_path`` resolved (None when the memory is in PostgreSQL),
    secrets only saying whether they are set."""
    values = config.model_dump(mode="json")
    for name, field in type(config).model_fields.items():
        if not field.repr:
            values[name] = HIDDEN if values[name] else None
    values["db_path"] = None if config.db_url else str(config.resolved_db_path())
    return values


@app.command(rich_help_panel=PANEL)
def config(
    ctx: typer.Context,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Show every setting, its value in effect, where that value came from and what it does.

    Values come from ORMA_* environment variables (ORMA_BUDGET_TOKENS=2000;
    ORMA_DIR for the data directory, ORMA_DB for the database) over
    <data dir>/config.toml (or the file ORMA_CONFIG names) over the built-in
    defaults. Commands take their own options on top, e.g. `orma proxy --upstream`.
    """
    from orma_proxy.config import OrmaConfig
    from orma_proxy.config_load import load_config

    cli = state(ctx)
    loaded = load_config(OrmaConfig, {} if db is None else {"db_path": db})
    values = settings(loaded.config)
    if json_out:
        print_json({**values, "origins": loaded.origins, "config_file": str(loaded.file)})
        return
    found = "" if loaded.file_found else " (not found: defaults and environment only)"
    say(cli.out, f"Config file: {loaded.file}{found}")
    if not cli.out.is_terminal:  # piped: one setting a line, for grep, not a wrapped table
        for name, field in OrmaConfig.model_fields.items():
            shown = "None" if values[name] is None else " ".join(str(values[name]).split())
            cells = (name, shown, loaded.origins[name], " ".join((field.description or "").split()))
            typer.echo("\t".join(cells))  # rich would turn the tabs into spaces
        return
    table = Table("Setting", "Value", "From", "What it does", box=box.SIMPLE_HEAD)
    for name, field in OrmaConfig.model_fields.items():
        shown = "" if values[name] is None else str(values[name])
        table.add_row(name, Text(shown), Text(loaded.origins[name]), Text(field.description or ""))
    cli.out.print(table)
