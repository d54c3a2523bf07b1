"""Data portability: ``export``, ``import``, ``rebuild`` and ``backup``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich import filesize

from orma_proxy.cli.progress import embed_pending
from orma_proxy.cli.serve_cmds import ModelOption, UpstreamOption
from orma_proxy.cli.shared_options import (
    AnySpaceOption,
    DbOption,
    JsonOption,
    one_of,
    open_memory,
    print_json,
    say,
    state,
)
from orma_proxy.embed.models import KNOWN

app = typer.Typer()

PANEL = "Portability"
STDIO = "-"


@app.command(rich_help_panel=PANEL)
def export(
    ctx: typer.Context,
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="File to write (default: stdout).", metavar="FILE"),
    ] = Path(STDIO),
    space: AnySpaceOption = None,
    db: DbOption = None,
) -> None:
    """Write the memory as orma-export JSON Lines: episodes, states with history, events, audit.

    One consistent snapshot, even while the proxy writes. The same memory
    always exports to the same bytes. The format is described in the README.

    Example: orma export --space work > memory.jsonl
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        target = sys.stdout if output == Path(STDIO) else output
        counts = memory.export_jsonl(target, space)
    shown = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    say(cli.err, f"Exported {sum(counts.values()):,} records ({shown or 'none'}).")


@app.command("import", rich_help_panel=PANEL)
def import_(
    ctx: typer.Context,
    source: Annotated[
        Path,
        typer.Argument(help="An orma export ('-' = stdin).", metavar="FILE", show_default=False),
    ],
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Load an orma export into an empty database, ids kept; vectors are embedded anew.

    Example: orma import memory.jsonl --db ~/new/memory.db
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=False) as memory:
        with cli.err.status("Importing…"):
            count = memory.import_jsonl(sys.stdin if source == Path(STDIO) else source)
        embed_pending(cli.err, memory, "Embedding", None)
    if json_out:
        print_json({"records": count, "db": str(memory.path)})
    else:
        say(cli.out, f"Imported {count:,} records into {memory.path}.")


@app.command(rich_help_panel=PANEL)
def rebuild(
    ctx: typer.Context,
    embed_model: Annotated[
        str,
        typer.Option(
            help=f"auto (the file's model), {', '.join(KNOWN)}.",
            metavar="MODEL",
            callback=one_of(["auto", *KNOWN]),
        ),
    ] = "auto",
    resleep: Annotated[
        bool,
        typer.Option("--resleep", help="Also re-derive states and events (as `sleep --redo`)."),
    ] = False,
    model: ModelOption = None,
    upstream: UpstreamOption = None,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Re-derive the whole index from the episodes: sentences, FTS, vectors, entity graph.

    States and events survive (their citations follow the new sentences);
    with --resleep they are derived again from the episodes instead.

    Example: orma rebuild --embed-model BAAI/bge-small-en-v1.5
    """
    cli = state(ctx)
    with open_memory(
        cli, db, must_exist=True, reindex=True, embed_model=embed_model, upstream=upstream,
        model=model,
    ) as memory:  # fmt: skip
        with cli.err.status("Rebuilding…"):
            report = memory.rebuild()
        embed_pending(cli.err, memory, "Embedding", None)
        slept = memory.sleep(None, model=model, redo=True) if resleep else None
    if json_out:
        print_json(
            {"episodes": report.episodes, "resplit": report.resplit,
             "sentences": report.sentences, "links": report.links,
             "sleep": None if slept is None else slept.as_dict()}
        )  # fmt: skip
        return
    say(
        cli.out,
        f"Rebuilt {report.sentences:,} sentences of {report.episodes:,} episodes "
        f"({report.resplit:,} split anew) and {report.links:,} graph links.",
    )
    if slept is not None:
        say(cli.out, str(slept))


@app.command(rich_help_panel=PANEL)
def backup(
    ctx: typer.Context,
    target: Annotated[
        Path, typer.Argument(help="The new backup file.", metavar="PATH", show_default=False)
    ],
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Copy the database consistently, even while the proxy runs (SQLite's backup API).

    Example: orma backup ~/backups/memory-$(date +%F).db
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        size = memory.backup(target)
    if json_out:
        print_json({"backup": str(target), "bytes": size})
    else:
        say(cli.out, f"Backed up {memory.path} to {target} ({filesize.decimal(size)}).")
