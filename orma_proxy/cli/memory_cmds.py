"""The episodic-memory commands: ``add``, ``search``, ``stats`` and ``reindex``."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box, filesize
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.shared_options import (
    AnySpaceOption,
    CliState,
    DbOption,
    JsonOption,
    SpaceOption,
    exit_code,
    not_blank,
    one_of,
    open_memory,
    print_json,
    report_error,
    say,
    state,
)
from orma_proxy.embed.models import KNOWN
from orma_proxy.errors import InputError
from orma_proxy.memory.sync import Memory
from orma_proxy.store.episodes import ROLES
from orma_proxy.text.files import TEXT_SUFFIXES

app = typer.Typer()

PANEL = "Memory"


def _looks_like_path(arg: str) -> bool:
    """A single word naming a text file or containing a slash: a mistyped path, not a note."""
    if not arg or any(ch.isspace() for ch in arg):
        return False
    suffix = Path(arg).suffix.lower()
    return "/" in arg or (suffix != "" and suffix in TEXT_SUFFIXES)


def _names_a_file(arg: str) -> bool:
    try:
        return Path(arg).expanduser().exists()
    except OSError:  # e.g. a long note is too long to be a file name
        return False


def _classify(arg: str, as_text: bool) -> str | Path:
    """A note (``str``) or a file (``Path``); empty notes are refused before the model loads."""
    if not arg.strip():
        raise InputError("nothing to add: the note is empty")
    if not as_text and (_names_a_file(arg) or _looks_like_path(arg)):
        return Path(arg).expanduser()
    return arg


def _add_one(memory: Memory, item: str | Path, space: str, role: str) -> dict[str, Any]:
    if isinstance(item, Path):
        episode_id = memory.add_file(item, space=space)
        return {"episode_id": episode_id, "role": "document", "source": str(item)}
    episode_id = memory.add(item, space=space, role=role)
    return {"episode_id": episode_id, "role": role, "source": None}


def _progress(cli: CliState, *, disable: bool = False) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=cli.err,
        disable=disable,
    )


def _store_all(
    cli: CliState, memory: Memory, queue: list[str | Path], space: str, role: str
) -> tuple[list[dict[str, Any]], list[tuple[str | Path, InputError]]]:
    """Store each item on its own, so one unreadable file does not stop the others."""
    added: list[dict[str, Any]] = []
    failed: list[tuple[str | Path, InputError]] = []
    with _progress(cli, disable=len(queue) < 2) as progress:
        for item in progress.track(queue, description="Adding"):
            try:
                added.append(_add_one(memory, item, space, role))
            except InputError as exc:
                report_error(cli.err, exc)
                failed.append((item, exc))
    return added, failed


@app.command(rich_help_panel=PANEL)
def add(
    ctx: typer.Context,
    items: Annotated[
        list[str],
        typer.Argument(
            help="Notes to store, or text/Markdown files.",
            metavar="NOTE|FILE",
            show_default=False,
        ),
    ],
    role: Annotated[
        str,
        typer.Option(
            help=f"Role of the notes: {', '.join(ROLES)}. Files are always 'document'.",
            metavar="ROLE",
            callback=one_of(ROLES),
        ),
    ] = "note",
    as_text: Annotated[
        bool, typer.Option("--text", help="Store every argument as a note, even a file name.")
    ] = False,
    space: SpaceOption = "default",
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Store notes or files as episodes.

    An argument naming an existing file, or looking like a file name (one word
    ending in .md, .txt... or containing a slash), is read as a UTF-8 text or
    Markdown file; anything else is a note. A file that is missing, binary or
    not UTF-8 is reported on its own line; the other arguments are still
    stored, and the exit code is 2.

    Examples:

      orma add "My dentist is Dr. Rao in Kothrud."

      orma add docs/*.md --space work
    """
    cli = state(ctx)
    queue = [_classify(item, as_text) for item in items]
    with open_memory(cli, db, must_exist=False) as memory:
        added, failed = _store_all(cli, memory, queue, space, role)
        if added:
            with cli.err.status("Embedding…"):
                memory.flush()
    if json_out:
        errors = [{"source": str(item), "error": str(exc)} for item, exc in failed]
        print_json({"space": space, "added": added, "failed": errors})
    else:
        for entry in added:
            what = entry["source"] or "note"
            say(cli.out, f"Added {what} as episode #{entry['episode_id']}.")
        if len(queue) > 1:
            say(cli.out, f"{len(added)} of {len(queue)} added to space {space!r}.")
    if failed:
        raise typer.Exit(max(exit_code(exc) for _, exc in failed))


@app.command(rich_help_panel=PANEL)
def search(
    ctx: typer.Context,
    query: Annotated[
        str,
        typer.Argument(
            help="What to look for.",
            metavar="QUERY",
            show_default=False,
            callback=not_blank("query"),
        ),
    ],
    k: Annotated[int, typer.Option("-k", help="How many passages.", metavar="N", min=1)] = 10,
    space: SpaceOption = "default",
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Find remembered passages by words and by meaning (no LLM involved).

    Ranks sentences of one space by BM25 and by vector similarity, fused;
    the score is the fused rank score, higher is better.

    Example:

      orma search "who is my dentist?" -k 5
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        result = memory.search(query, space=space, k=k)
    if json_out:
        print_json(
            {
                "query": result.query,
                "space": result.space,
                "passages": [
                    {
                        "text": p.text,
                        "score": p.score,
                        "said_at": p.said_at.isoformat(),
                        "role": p.role,
                        "episode_id": p.episode_id,
                        "sentence_id": p.sentence_id,
                    }
                    for p in result.passages
                ],
            }
        )
        return
    if not result.passages:
        say(cli.out, f"Nothing in space {space!r} matches {query!r}.")
        return
    table = Table(
        "Score", "Said", "Text", box=box.SIMPLE_HEAD, title=Text(f"{query!r} in {space!r}")
    )
    for p in result.passages:
        said = p.said_at.astimezone().strftime("%Y-%m-%d %H:%M")
        table.add_row(f"{p.score:.4f}", said, Text(p.text))
    cli.out.print(table)


@app.command(rich_help_panel=PANEL)
def stats(
    ctx: typer.Context,
    space: AnySpaceOption = None,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Count episodes, sentences, states, events and pending work; show the file size and model.

    Reports every space together unless --space names one.
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        found = memory.stats(space)
    if json_out:
        print_json(found.as_dict())
        return
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold")
    table.add_column()
    table.add_row("Database", Text(found.path))
    table.add_row("Spaces", f"{found.spaces}" if space is None else Text(space))
    table.add_row("Episodes", f"{found.episodes:,}")
    table.add_row("Sentences", f"{found.sentences:,}")
    table.add_row("States", f"{found.states_active:,} active, {found.states_closed:,} closed")
    table.add_row("Events", f"{found.events:,}")
    table.add_row("Pending vectors", f"{found.pending_vectors:,}")
    table.add_row("Pending sleep", f"{found.pending_sleep:,} episodes")
    table.add_row("Size", filesize.decimal(found.database_bytes))
    table.add_row("Embedder", f"{found.embedder} ({found.dim} dims)")
    cli.out.print(table)


@app.command(rich_help_panel=PANEL)
def reindex(
    ctx: typer.Context,
    embed_model: Annotated[
        str,
        typer.Option(
            help=f"auto (the file's model), {', '.join(KNOWN)}.",
            metavar="MODEL",
            callback=one_of(["auto", *KNOWN]),
        ),
    ] = "auto",
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Re-embed every sentence of every space, e.g. after changing the embedding model.

    Works on the whole file (one file has one model). Safe to interrupt: what
    is left is embedded the next time the memory is opened.

    Example:

      orma reindex --embed-model all-MiniLM-L6-v2-int8
    """
    cli = state(ctx)
    started = time.monotonic()
    with open_memory(cli, db, must_exist=True, reindex=True, embed_model=embed_model) as memory:
        total = memory.stats().sentences
        with _progress(cli) as progress, ThreadPoolExecutor(1) as pool:
            task = progress.add_task("Re-embedding", total=total)
            flushing = pool.submit(memory.flush)
            while not wait([flushing], timeout=0.25).done:
                progress.update(task, completed=total - memory.stats().pending_vectors)
            flushing.result()
            progress.update(task, completed=total)
        found = memory.stats()
    seconds = round(time.monotonic() - started, 2)
    if json_out:
        print_json(
            {
                "sentences": found.sentences,
                "spaces": found.spaces,
                "embedder": found.embedder,
                "dim": found.dim,
                "seconds": seconds,
            }
        )
        return
    say(
        cli.out,
        f"Re-embedded {found.sentences:,} sentences in {found.spaces} space(s) with "
        f"{found.embedder} ({found.dim} dims) in {seconds:.1f} s.",
    )
