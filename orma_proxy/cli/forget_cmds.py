"""Forgetting on request: ``supersede``, ``release``, ``unrelease``, ``purge`` and ``audit``.

Each takes ``--dry-run`` where it changes something: the same answer, nothing
changed. ``purge`` shows what it would erase and asks before erasing unless
``--yes`` is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.shared_options import (
    AnySpaceOption,
    CliState,
    DbOption,
    JsonOption,
    SpaceOption,
    not_blank,
    open_memory,
    print_json,
    say,
    sqlite_count,
    sqlite_id,
    state,
)
from orma_proxy.errors import AmbiguousDescriptionError, InputError, NothingMatchedError
from orma_proxy.inputs import DEFAULT_SPACE

if TYPE_CHECKING:  # loaded with the memory, by the commands that open one
    from orma_proxy.forget import ForgetResult

app = typer.Typer()

PANEL = "Forgetting"
_STATE_ID = re.compile(r"^#?(\d+)$")

DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Show exactly what would change; change nothing.")
]
AllOption = Annotated[
    bool,
    typer.Option("--all", help="When a first name stands for several people, act on each of them."),
]


def _each_person(query: str, every: bool, act: Callable[[str], ForgetResult]) -> list[ForgetResult]:
    """``act(query)``; with ``every``, an ambiguous query is asked again once per person."""
    try:
        return [act(query)]
    except AmbiguousDescriptionError as exc:
        if not every:
            raise
        from orma_proxy.forget import naming

        return [act(naming(query, person)) for person in exc.candidates]


def _what(result: ForgetResult) -> str:
    """'2 passages, 1 state' (the kinds touched, with counts)."""
    parts = []
    for kind, ids in (
        ("episode", result.affected.episodes),
        ("passage", result.affected.sentences),
        ("state", result.affected.states),
        ("event", result.affected.events),
    ):
        if ids:
            parts.append(f"{len(ids)} {kind}{'s' if len(ids) != 1 else ''}")
    return ", ".join(parts) or "nothing"


def _tell(cli: CliState, result: ForgetResult, json_out: bool, message: str) -> None:
    """The result as JSON, or a line and (for a dry run) the passages concerned."""
    if json_out:
        print_json(result.as_dict())
        return
    say(cli.out, message)
    if result.dry_run:
        for text in result.preview:
            say(cli.out, f"  - {text}")
        for fact in result.facts:
            say(cli.out, f"  - fact {fact}")


@app.command(rich_help_panel=PANEL)
def supersede(
    ctx: typer.Context,
    old: Annotated[
        str,
        typer.Argument(
            help="What is wrong: a description, a quote, or a state id (#12).",
            metavar="OLD",
            show_default=False,
            callback=not_blank("old"),
        ),
    ],
    new: Annotated[
        str,
        typer.Argument(
            help="What is true.", metavar="NEW", show_default=False, callback=not_blank("new")
        ),
    ],
    dry_run: DryRunOption = False,
    every: AllOption = False,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Correct a fact: every line and state saying OLD gives way to NEW.

    OLD describes the fact ("Meera's employer", "my previous address", a
    quote such as "Pune") or is a state id as `orma facts` lists it; for a
    state, NEW becomes its value at once. NEW is stored as a note. Recall never
    shows the old lines again; `orma facts --history` keeps the old value. A
    first name two people share is asked about, never guessed (exit 2).

    Example: orma supersede "Meera's employer" "Meera is at Zoho now."
    """
    cli = state(ctx)
    match = _STATE_ID.match(old.strip())
    target: str | int = old if match is None else int(match[1])
    if isinstance(target, int):
        sqlite_id("state")(target)
    with open_memory(cli, db, must_exist=True) as memory:
        if isinstance(target, int):
            results = [memory.supersede(target, new, space, dry_run=dry_run)]
        else:
            results = _each_person(
                target, every, lambda q: memory.supersede(q, new, space, dry_run=dry_run)
            )
    for result in results:
        if dry_run:
            message = f"Would correct {_what(result)} in space {space!r}:"
        else:
            message = (
                f"Corrected {_what(result)} in space {space!r}; the correction is episode "
                f"#{result.episode_id} (audit #{result.audit_id})."
            )
        _tell(cli, result, json_out, message)


@app.command(rich_help_panel=PANEL)
def release(
    ctx: typer.Context,
    query: Annotated[
        str,
        typer.Argument(
            help="What to stop recalling: a description or a topic.",
            metavar="QUERY",
            show_default=False,
            callback=not_blank("query"),
        ),
    ],
    dry_run: DryRunOption = False,
    threshold: Annotated[
        float | None,
        typer.Option(help="Similarity a passage needs (default: config).", min=-1.0, max=1.0),
    ] = None,
    max_items: Annotated[
        int | None,
        typer.Option(
            help="Most passages released (default: config).", min=1, callback=sqlite_count
        ),
    ] = None,
    every: AllOption = False,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Stop recalling what QUERY describes, and the facts drawn from it.

    QUERY is a description ("my diet", "Arjun's address", "everything about
    Rahul") or a topic ("politics"). Nothing is deleted. The release's ID
    brings everything back with `orma unrelease ID`; other memories of the
    space are not touched.

    Example: orma release "my old job" --dry-run
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        results = _each_person(
            query,
            every,
            lambda q: memory.release(
                q, space, threshold=threshold, max_items=max_items, dry_run=dry_run
            ),
        )
    for result in results:
        _told_release(cli, result, query, space, json_out)


def _told_release(
    cli: CliState, result: ForgetResult, query: str, space: str, json_out: bool
) -> None:
    if result.dry_run:
        message = f"Would release {_what(result)} in space {space!r}:"
    else:
        message = (
            f"Release #{result.release_id}: {_what(result)} no longer recalled "
            f"(`orma unrelease {result.release_id}` brings them back)."
        )
    _tell(cli, result, json_out, message)


@app.command(rich_help_panel=PANEL)
def unrelease(
    ctx: typer.Context,
    release_id: Annotated[
        int,
        typer.Argument(
            help="As `orma release` printed it.",
            metavar="ID",
            show_default=False,
            callback=sqlite_id("release"),
        ),
    ],
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Recall again what release ID hid.

    Example: orma unrelease 3
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        result = memory.unrelease(release_id, space)
    _tell(cli, result, json_out, f"Release #{release_id} undone: {_what(result)} recalled again.")


@app.command(rich_help_panel=PANEL)
def purge(
    ctx: typer.Context,
    query: Annotated[
        str | None,
        typer.Argument(
            help="What to erase: a description, an identifier or a quote.",
            metavar="QUERY",
            show_default=False,
            callback=not_blank("query"),
        ),
    ] = None,
    episodes: Annotated[
        list[int] | None,
        typer.Option("--episode", help="Erase this episode (repeatable).", metavar="ID"),
    ] = None,
    dry_run: DryRunOption = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    every: AllOption = False,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Erase for good: episodes holding what QUERY describes, and all drawn from them.

    QUERY is a description ("Arjun's medical record"), an identifier in any
    spelling (an email, a phone number, a key) or a quote.
    For secrets and personal data. Text, index entries, vectors, states and
    events go, and the database file is compacted so the bytes are gone from
    disk. Shows what it would erase and asks first, unless --yes.

    Example: orma purge "my bank PIN" --dry-run
    """
    cli = state(ctx)
    if (query is None) == (not episodes):
        raise InputError("give either QUERY or --episode ID (not both)")
    if query is not None and every:
        with open_memory(cli, db, must_exist=True) as memory:
            try:
                memory.purge(query, space, dry_run=True)
            except AmbiguousDescriptionError as exc:
                people = exc.candidates
            except NothingMatchedError:
                people = []  # said once more, and its tombstone left, by _purge
            else:
                people = []
        from orma_proxy.forget import naming

        for person in people:
            _purge(cli, naming(query, person), space, db, dry_run, yes, json_out)
        if people:
            return
    _purge(cli, query if query is not None else list(episodes or []), space, db, dry_run, yes,
           json_out)  # fmt: skip


def _purge(
    cli: CliState,
    target: str | list[int],
    space: str,
    db: str | None,
    dry_run: bool,
    yes: bool,
    json_out: bool,
) -> None:
    with open_memory(cli, db, must_exist=True) as memory:
        try:
            preview = memory.purge(target, space, dry_run=True)
        except NothingMatchedError:
            if not dry_run:  # a text purge still binds a turn the proxy is streaming
                memory.purge(target, space)
            raise
        if dry_run:
            _tell(cli, preview, json_out, f"Would erase {_what(preview)} from space {space!r}:")
            return
        if not yes:
            _tell(cli, preview, False, f"This erases {_what(preview)} for good:")
            if not typer.confirm("Erase them?", err=True):
                say(cli.err, "Nothing was erased.")
                raise typer.Exit(1)
        result = memory.purge(target, space)
    note = "" if result.compacted else " (another reader held the log: run `orma purge` later)"
    _tell(cli, result, json_out, f"Erased {_what(result)} (audit #{result.audit_id}).{note}")


@app.command(rich_help_panel=PANEL)
def audit(
    ctx: typer.Context,
    limit: Annotated[
        int | None, typer.Option(help="Only the newest N.", min=1, callback=sqlite_count)
    ] = None,
    space: AnySpaceOption = None,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """List every supersede, release, unrelease and purge: when, where, which ids.

    Example: orma audit --space work
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        entries = memory.audit(space, limit)
    if json_out:
        print_json([entry.as_dict() for entry in entries])
        return
    if not entries:
        say(cli.err, "Nothing forgotten on request yet.")
        return
    table = Table("ID", "When", "Space", "Operation", "Count", "Ids", box=box.SIMPLE_HEAD)
    for e in entries:
        ids = "; ".join(f"{kind} {', '.join(map(str, v))}" for kind, v in e.ids.items() if v)
        when = e.at.astimezone().strftime("%Y-%m-%d %H:%M")
        table.add_row(str(e.id), when, Text(e.space), e.operation, str(e.count), Text(ids))
    cli.out.print(table)
