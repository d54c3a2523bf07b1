"""Data portability: ``export``, ``import``, ``migrate``, ``rebuild`` and ``backup``."""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import filesize

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
from orma_proxy.embed.specs import KNOWN
from orma_proxy.errors import InputError

if TYPE_CHECKING:  # loaded by open_memory, once a command opens a memory
    from orma_proxy.memory.sync import Memory

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
    from orma_proxy.cli.progress import embed_pending

    cli = state(ctx)
    with open_memory(cli, db, must_exist=False) as memory:
        with cli.err.status("Importing…"):
            count = memory.import_jsonl(sys.stdin if source == Path(STDIO) else source)
        embed_pending(cli.err, memory, "Embedding", None)
        where = memory.stats().path
    if json_out:
        print_json({"records": count, "db": where})
    else:
        say(cli.out, f"Imported {count:,} records into {where}.")


@app.command(rich_help_panel=PANEL)
def migrate(
    ctx: typer.Context,
    source: Annotated[
        str,
        typer.Argument(help="The memory to copy.", metavar="SRC", show_default=False),
    ],
    target: Annotated[
        str,
        typer.Argument(help="An empty memory to fill.", metavar="DST", show_default=False),
    ],
    json_out: JsonOption = False,
) -> None:
    """Copy a whole memory between SQLite files and PostgreSQL URLs, either way, ids kept.

    The same as `orma export --db SRC | orma import - --db DST`: every space,
    fact, history and audit line; DST must hold no memory yet; vectors are
    embedded anew with SRC's model. SRC's memory is left as it was.

    Example: orma migrate ~/.orma/memory.db postgresql://orma:pw@db:5432/orma
    """
    from orma_proxy.cli.progress import embed_pending

    cli = state(ctx)
    with open_memory(cli, source, must_exist=True, background_index=False) as src:
        given = src.stats()
        with open_memory(
            dataclasses.replace(cli, embedder=src.embedder), target, must_exist=False
        ) as dst:
            held = dst.stats()
            if held.episodes:
                raise InputError(
                    f"{held.path} already holds a memory: migrate fills only an empty one "
                    "(nothing was changed)"
                )
            say(cli.err, f"Copying {given.episodes:,} episodes from {given.path} to {held.path}…")
            with cli.err.status("Copying…"):
                counts = _pipe(src, dst)
            embed_pending(cli.err, dst, "Embedding", None)
    total = sum(counts.values())
    if json_out:
        print_json({"records": total, "counts": counts, "from": given.path, "to": held.path})
        return
    shown = ", ".join(f"{n:,} {kind}" for kind, n in counts.items() if n)
    say(
        cli.out, f"Migrated {total:,} records ({shown or 'none'}) from {given.path} to {held.path}."
    )


def _pipe(src: Memory, dst: Memory) -> dict[str, int]:
    """``src``'s export streamed into ``dst``'s import through a pipe: never on disk whole."""
    read_end, write_end = os.pipe()
    exported: dict[str, int] = {}
    failed: list[BaseException] = []

    def export() -> None:
        try:
            with os.fdopen(write_end, "w", encoding="utf-8", newline="\n") as out:
                exported.update(src.export_jsonl(out))
        except BrokenPipeError:
            pass  # the import stopped reading: its own error says why
        except BaseException as exc:  # handed to the command's thread
            failed.append(exc)

    writer = threading.Thread(target=export, name="orma-migrate-export", daemon=True)
    writer.start()
    try:
        with os.fdopen(read_end, encoding="utf-8", newline="\n") as lines:
            dst.import_jsonl(lines)
    except BaseException:
        writer.join()  # the pipe is closed: the export ends too
        if failed:  # a broken export reads as a truncated file: say what broke it
            raise failed[0] from None
        raise
    writer.join()
    if failed:
        raise failed[0]
    return exported


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
    from orma_proxy.cli.progress import embed_pending

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
