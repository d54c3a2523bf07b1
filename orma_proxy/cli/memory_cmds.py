"""The episodic-memory commands that read: ``search``, ``stats`` and ``reindex``."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich import box, filesize
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.shared_options import (
    AnySpaceOption,
    DbOption,
    JsonOption,
    SpaceOption,
    not_blank,
    one_of,
    open_memory,
    print_json,
    say,
    state,
)
from orma_proxy.embed.specs import KNOWN
from orma_proxy.errors import InputError
from orma_proxy.inputs import DEFAULT_SPACE

app = typer.Typer()

PANEL = "Memory"


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
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    every: Annotated[
        bool, typer.Option("--all", help="Also show, marked, the passages below the noise floor.")
    ] = False,
    json_out: JsonOption = False,
) -> None:
    """Find remembered passages by words and by meaning (no LLM involved).

    Ranks sentences of one space by BM25 and by vector similarity, fused. The
    score is relative to the best passage (1.00); --json also gives the raw
    fused score. A passage that shares no word with the query and is no closer
    to it than text about nothing (recall's noise floor) is left out, as recall
    would leave it out; --all shows it, marked.

    Example:

      orma search "who is my dentist?" -k 5
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        result = memory.search(query, space=space, k=k)
    best = max((p.score for p in result.passages), default=1.0) or 1.0
    if json_out:
        print_json(
            {
                "query": result.query,
                "space": result.space,
                "passages": [
                    {
                        "text": p.text,
                        "score": p.score,
                        "relative": p.score / best,
                        "below_floor": p.sentence_id in result.below_floor,
                        "said_at": p.said_at.isoformat(),
                        "role": p.role,
                        "speaker": p.speaker,
                        "episode_id": p.episode_id,
                        "sentence_id": p.sentence_id,
                    }
                    for p in result.passages
                ],
            }
        )
        return
    shown = [p for p in result.passages if every or p.sentence_id not in result.below_floor]
    hidden = len(result.passages) - len(shown)
    if not shown:
        more = f" ({hidden} below the noise floor: --all shows them)" if hidden else ""
        say(cli.out, f"Nothing in space {space!r} matches {query!r}.{more}")
        return
    table = Table(
        "Score", "Said", "Text", box=box.SIMPLE_HEAD, title=Text(f"{query!r} in {space!r}")
    )
    for p in shown:
        said = p.said_at.astimezone().strftime("%Y-%m-%d %H:%M")
        text = f"{p.speaker}: {p.text}" if p.speaker else p.text
        low = p.sentence_id in result.below_floor
        table.add_row(f"{p.score / best:.2f}", said, Text(f"(below floor) {text}" if low else text))
    cli.out.print(table)
    if hidden:
        say(cli.out, f"{hidden} more below the noise floor (--all shows them).")


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
    if found.sleep_batches:
        outcomes = ", ".join(
            f"{'failed tries' if name == 'failed' else name} {n:,}"
            for name, n in found.sleep_batches.items()
        )
        table.add_row("Sleep batches", Text(outcomes))
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
    pending: Annotated[
        bool,
        typer.Option(
            "--pending",
            help="Only embed the sentences still waiting for a vector (e.g. after "
            "`orma add --no-wait` or a full disk), with the file's model.",
        ),
    ] = False,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Re-embed every sentence of every space, e.g. after changing the embedding model.

    Works on the whole file (one file has one model). Safe to interrupt: what
    is left is embedded the next time the memory is opened. With --pending,
    embeds only what is still waiting for a vector.

    Example:

      orma reindex --embed-model all-MiniLM-L6-v2-int8
    """
    from orma_proxy.cli.progress import embed_pending

    cli = state(ctx)
    started = time.monotonic()
    if pending and embed_model != "auto":
        raise InputError("--pending embeds with the file's own model: leave out --embed-model")
    with open_memory(
        cli, db, must_exist=True, reindex=not pending, embed_model=embed_model,
        background_index=not pending,  # counted first, then embedded by the flush
    ) as memory:  # fmt: skip
        before = memory.stats()
        total = before.pending_vectors if pending else before.sentences
        embed_pending(cli.err, memory, "Embedding" if pending else "Re-embedding", total)
        found = memory.stats()
    seconds = round(time.monotonic() - started, 2)
    if json_out:
        print_json(
            {
                "sentences": found.sentences,
                "embedded": total,
                "spaces": found.spaces,
                "embedder": found.embedder,
                "dim": found.dim,
                "seconds": seconds,
            }
        )
        return
    what = f"{total:,} pending" if pending else f"{found.sentences:,}"
    say(
        cli.out,
        f"{'Embedded' if pending else 'Re-embedded'} {what} sentences in {found.spaces} "
        f"space(s) with {found.embedder} ({found.dim} dims) in {seconds:.1f} s.",
    )
