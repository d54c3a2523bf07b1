"""`orma add`: notes and files into memory, each piece committed as it is read."""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.text import Text

from orma_proxy.cli.shared_options import (
    CliState,
    DbOption,
    JsonOption,
    SpaceOption,
    exit_code,
    one_of,
    open_memory,
    print_json,
    report_error,
    say,
    state,
)
from orma_proxy.errors import InputError, OrmaError, StoreError
from orma_proxy.inputs import DEFAULT_SPACE, ROLES

if TYPE_CHECKING:  # the memory stack loads once a command opens a memory, not for --help
    from orma_proxy.memory.files import StoredPiece
    from orma_proxy.memory.sync import Memory

app = typer.Typer()

PANEL = "Memory"
INTERRUPTED = 130  # the shell's code for a command ended by Ctrl-C


def _looks_like_path(arg: str) -> bool:
    """A single word naming a text file or containing a slash: a mistyped path, not a note."""
    from orma_proxy.text.files import TEXT_SUFFIXES

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


@dataclass
class _Adding:
    """What ``orma add`` stored so far, and how it ended."""

    added: list[dict[str, Any]] = field(default_factory=list)
    failed: list[tuple[str | Path, OrmaError]] = field(default_factory=list)
    interrupted: bool = False
    embedding: str = "deferred"  # done, deferred, behind or interrupted
    pending: int = 0  # sentences of ours still without a vector
    warning: str | None = None


def _add_note(
    memory: Memory, note: str, space: str, role: str, speaker: str | None
) -> dict[str, Any]:
    from orma_proxy.text.segment import split_sentences

    episode_id = memory.add(note, space=space, role=role, speaker=speaker)
    sentences = len(split_sentences(note, memory.config.max_sentence_chars))
    return {
        "episode_id": episode_id,
        "episode_ids": [episode_id],
        "role": role,
        "source": None,
        "sentences": sentences,
    }


def _add_file(cli: CliState, memory: Memory, path: Path, space: str, run: _Adding) -> None:
    """Stream ``path`` in, one committed episode per piece, under a progress bar.

    Ctrl-C stops after the piece being committed; a failure part way says
    what was stored before it.
    """
    from orma_proxy.cli.progress import Meter, run_polled, start

    pieces: list[StoredPiece] = []
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # add_file says why it cannot be read
    meter = Meter(cli.err, f"Storing {path.name}", size or None)
    stop = threading.Event()

    def stored(piece: StoredPiece) -> None:
        pieces.append(piece)
        meter.set(piece.end, sentences=meter.sentences + piece.sentences)

    work = start(lambda: memory.add_file(path, space=space, on_piece=stored, stop=stop.is_set))
    error: OrmaError | None = None
    with meter:
        try:
            run_polled(work, meter)
        except KeyboardInterrupt:
            stop.set()
            run.interrupted = True
            with contextlib.suppress(OrmaError):
                work.result()  # the piece being committed is kept, and reported
        except OrmaError as exc:
            error = exc
    if pieces:
        ids = [p.episode_id for p in pieces]
        complete = error is None and not run.interrupted
        run.added.append(
            {
                "episode_id": ids[0],
                "episode_ids": ids,
                "role": "document",
                "source": str(path),
                "sentences": sum(p.sentences for p in pieces),
                "bytes": pieces[-1].end,
                "complete": complete,
            }
        )
        if not complete:
            what = f"stored bytes 0-{pieces[-1].end} of {size} as {_episodes(ids)}"
            if error is not None:
                error = StoreError(f"{path}: {error}; {what}; the rest was not added")
            else:
                say(cli.err, f"Stopped: {path} {what}; the rest was not added.")
    elif isinstance(error, StoreError):  # unreadable files name themselves
        error = StoreError(f"{path}: {error}")
    if error is not None:
        report_error(cli.err, error)
        run.failed.append((path, error))


def _episodes(ids: list[int]) -> str:
    return f"episode #{ids[0]}" if len(ids) == 1 else f"episodes #{ids[0]}-#{ids[-1]}"


def _store_all(
    cli: CliState,
    memory: Memory,
    queue: list[str | Path],
    space: str,
    role: str,
    announce: bool,
    speaker: str | None = None,
) -> _Adding:
    """Store each item on its own, so one unreadable file does not stop the others.

    Each is acknowledged (``announce``) as soon as it is committed and
    searchable by its words, before any embedding.
    """
    run = _Adding()
    for item in queue:
        done = len(run.added)
        if isinstance(item, Path):
            _add_file(cli, memory, item, space, run)
        else:
            try:
                run.added.append(_add_note(memory, item, space, role, speaker))
            except OrmaError as exc:
                report_error(cli.err, exc)
                run.failed.append((item, exc))
        if announce:
            for entry in run.added[done:]:
                what = entry["source"] or "note"
                extra = ""
                if len(entry["episode_ids"]) > 1:
                    extra = f" ({entry['bytes']:,} bytes, {entry['sentences']:,} sentences)"
                say(cli.out, f"Added {what} as {_episodes(entry['episode_ids'])}{extra}.")
        if run.interrupted:
            break
    return run


def _embed_own(cli: CliState, memory: Memory, run: _Adding) -> None:
    """Embed the sentences just stored, theirs alone, under a progress bar.

    A failure (a full disk) or Ctrl-C leaves them pending for any Orma process:
    what was stored stays stored, so this is a warning, never an error.
    """
    from orma_proxy.cli.progress import Meter, run_polled, start

    ids = [episode_id for entry in run.added for episode_id in entry["episode_ids"]]
    total = sum(int(entry["sentences"]) for entry in run.added)
    memory.warm_up()  # the model loads on first use: not on the bar's clock
    meter = Meter(cli.err, "Embedding", total)
    work = start(
        lambda: memory.embed_episodes(ids, on_embedded=lambda n: meter.advance(n, sentences=n))
    )
    with meter:
        try:
            run_polled(work, meter)
            run.embedding = "done"
            return
        except KeyboardInterrupt:
            run.interrupted = True
            run.embedding = "interrupted"
            reason = "interrupted"
        except OrmaError as exc:
            run.embedding = "behind"
            reason = " ".join(str(exc.__cause__ or exc).split())
    run.pending = max(0, total - meter.sentences)
    run.warning = (
        f"indexing is behind ({reason}): {run.pending:,} of {total:,} sentences wait for their "
        "vectors; what was added is stored and found by its words, and any Orma process (or "
        "`orma reindex --pending`) embeds the rest"
    )


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
    no_wait: Annotated[
        bool,
        typer.Option(
            "--no-wait",
            help="Return once stored and searchable by words; leave the vectors to any Orma "
            "process or `orma reindex --pending`.",
        ),
    ] = False,
    speaker: Annotated[
        str | None,
        typer.Option(
            "--speaker",
            help="Who said the notes (a transcript's 'Name:' is found by itself): kept as "
            "who said it, not searched as words.",
            metavar="NAME",
        ),
    ] = None,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Store notes or files as episodes, then embed their sentences.

    An argument naming an existing file, or looking like a file name (one word
    ending in .md, .txt... or containing a slash), is read as a UTF-8 text or
    Markdown file; anything else is a note. A file that is missing, binary or
    not UTF-8 (anywhere in it) is reported on its own line and nothing of it is
    stored; the other arguments are still stored, and the exit code is 2.

    A large file is streamed in pieces, one episode each, citing its byte
    range. Each item is acknowledged once committed; then its own sentences
    are embedded (never another process's backlog). Ctrl-C keeps what was
    committed (exit 130); a full disk while embedding is a warning (exit 0).

    Examples:

      orma add "My dentist is Dr. Rao in Kothrud."

      orma add docs/*.md --space work

      orma add big-export.txt --no-wait
    """
    cli = state(ctx)
    queue = [_classify(item, as_text) for item in items]
    with open_memory(cli, db, must_exist=False, background_index=not no_wait) as memory:
        run = _store_all(cli, memory, queue, space, role, not json_out, speaker)
        if run.added and not no_wait and not run.interrupted:
            _embed_own(cli, memory, run)
        elif run.added:
            run.pending = sum(int(entry["sentences"]) for entry in run.added)
            run.embedding = "interrupted" if run.interrupted else "deferred"
    if run.warning is not None:
        cli.err.print(Text.assemble(("warning: ", "bold yellow"), run.warning), soft_wrap=True)
    if json_out:
        errors = [{"source": str(item), "error": str(exc)} for item, exc in run.failed]
        print_json(
            {
                "space": space,
                "added": run.added,
                "failed": errors,
                "embedding": run.embedding,
                "pending_sentences": run.pending,
            }
        )
    elif len(queue) > 1:
        say(cli.out, f"{len(run.added)} of {len(queue)} added to space {space!r}.")
    if run.interrupted:
        raise typer.Exit(INTERRUPTED)
    if run.failed:
        raise typer.Exit(max(exit_code(exc) for _, exc in run.failed))
