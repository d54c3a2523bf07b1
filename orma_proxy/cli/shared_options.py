"""What every ``orma`` command shares: options, consoles, opening memory, errors."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.text import Text

from orma_proxy.errors import InputError, NothingMatchedError, StoreError
from orma_proxy.inputs import check_space

if TYPE_CHECKING:  # the memory stack loads in the commands that open a memory, not for --help
    from orma_proxy.config import OrmaConfig
    from orma_proxy.embed.base import Embedder
    from orma_proxy.memory.sync import Memory


@dataclass
class CliState:
    """Per-invocation state, carried on ``ctx.obj``.

    Human output goes to ``out`` (stdout), everything else (progress, logs,
    errors) to ``err``, so ``--json`` output stays pipeable. ``embedder`` lets
    a caller (the tests) hand over an already loaded model.
    """

    out: Console = field(default_factory=Console)
    err: Console = field(default_factory=lambda: Console(stderr=True))
    embedder: Embedder | None = None


def serving_logs() -> None:
    """A server logs what it does (its address, its upstream, sleep's runs) at INFO."""
    logger = logging.getLogger("orma_proxy")
    if logger.level > logging.INFO:
        logger.setLevel(logging.INFO)  # ``_setup_logging`` puts the level back on close


def state(ctx: typer.Context) -> CliState:
    """The invocation's state, created on first use."""
    return ctx.ensure_object(CliState)


def exit_code(exc: BaseException) -> int:
    """2 for bad input (every ``InputError`` and ``ConfigError`` is a ``ValueError``), else 1."""
    return 2 if isinstance(exc, ValueError) else 1


def report_error(console: Console, exc: BaseException) -> None:
    """One red line, never wrapped, never a traceback."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    console.print(Text.assemble(("error: ", "bold red"), (message, "red")), soft_wrap=True)
    if isinstance(exc, NothingMatchedError):
        return  # its one line already names the closest lines
    for candidate in getattr(exc, "candidates", ()):
        console.print(Text(f"  - {candidate}"), soft_wrap=True)


def say(console: Console, message: str) -> None:
    """A plain message line: no markup, no highlighting, not wrapped at 80 columns."""
    console.print(Text(message), soft_wrap=True)


def print_json(payload: Any) -> None:
    """Machine-readable output: the only thing written to stdout under ``--json``."""
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2))


def one_of(choices: Sequence[str]) -> Callable[[str], str]:
    """An option callback refusing values outside ``choices`` before any model loads."""

    def check(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}")
        return value

    return check


def sqlite_id(what: str) -> Callable[[int | None], int | None]:
    """An argument callback refusing an id SQLite cannot hold, in one line, before any model loads.

    Past 64 bits, SQLite's driver raises OverflowError instead of finding nothing.
    """

    def check(value: int | None) -> int | None:
        from orma_proxy.store import MAX_ROW_ID

        if value is not None and not 1 <= value <= MAX_ROW_ID:
            raise InputError(f"no {what} #{value}: ids run from 1 to {MAX_ROW_ID}")
        return value

    return check


def sqlite_count(value: int | None) -> int | None:
    """An option callback capping a count at SQLite's largest integer ("all of them")."""
    from orma_proxy.store import MAX_ROW_ID

    return None if value is None else min(value, MAX_ROW_ID)


def not_blank(what: str) -> Callable[[str | None], str | None]:
    """An argument callback refusing blank text in one line before any model loads."""

    def check(value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise InputError(f"{what} is empty")
        return value

    return check


def _check_space(value: str | None) -> str | None:
    """The same rule as the SDK and the proxy (``orma_proxy.inputs``), before any model loads."""
    if value is None:
        return None
    try:
        return check_space(value)
    except InputError as exc:
        raise typer.BadParameter(str(exc)) from exc


SpaceOption = Annotated[
    str,
    typer.Option(
        "--space",
        "-s",
        help="Memory space; spaces never see each other.",
        metavar="NAME",
        callback=_check_space,
    ),
]
AnySpaceOption = Annotated[
    str | None,
    typer.Option(
        "--space",
        "-s",
        help="Only this space.  \\[default: all spaces]",
        metavar="NAME",
        callback=_check_space,
        show_default=False,
    ),
]
DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        help="SQLite file, or a PostgreSQL URL (postgresql://user:pass@host:5432/orma).  "
        "\\[default: $ORMA_DB, else $ORMA_DIR/memory.db, else ~/.orma/memory.db]",
        metavar="PATH|URL",
        show_default=False,
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print JSON on stdout (and nothing else there).")
]


def configured(db: str | None, **given: object) -> OrmaConfig:
    """The configuration with only the options a user gave (None keeps what the
    environment, ``config.toml`` or the default says) and ``--db`` applied."""
    from orma_proxy.config import OrmaConfig

    config = OrmaConfig.load(**{name: value for name, value in given.items() if value is not None})
    return config if db is None else config.with_db(db)


@contextmanager
def open_memory(
    cli: CliState,
    db: str | None,
    *,
    must_exist: bool,
    reindex: bool = False,
    embed_model: str | None = None,
    upstream: str | None = None,
    model: str | None = None,
    background_index: bool = True,
) -> Iterator[Memory]:
    """Open the memory file, closing it on the way out.

    ``must_exist`` is for commands that only read or rebuild: they should not
    leave an empty database behind because of a typo in ``--db``.
    ``background_index=False`` embeds nothing unless asked (``add --no-wait``).
    """
    from orma_proxy.memory.sync import Memory

    config = configured(db, embed_model=embed_model, upstream=upstream, model=model)
    if not background_index:
        config.index_in_background = False
    path = config.resolved_db_path()
    if must_exist and config.db_url is None and not path.exists():
        raise StoreError(f"no memory at {path} yet: store something first with `orma add`")
    with cli.err.status("Opening memory…"):
        memory = Memory(config=config, embedder=cli.embedder, reindex=reindex)
    with memory:
        yield memory
