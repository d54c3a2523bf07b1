"""What memory believes and injects: ``facts``, ``recall``, ``forbid`` and ``forget``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from orma_proxy.cli.shared_options import (
    CliState,
    DbOption,
    JsonOption,
    SpaceOption,
    not_blank,
    open_memory,
    print_json,
    say,
    sqlite_id,
    state,
)
from orma_proxy.errors import InputError
from orma_proxy.inputs import DEFAULT_SPACE

if TYPE_CHECKING:  # loaded with the memory, by the commands that open one
    from orma_proxy.facts import State

app = typer.Typer()

PANEL = "Facts and rules"


def rule_line(value: str) -> str:
    """A rule as recall shows it (the Sutra form)."""
    return f"[FORBIDDEN: {value}]"


def fact_json(found: State) -> dict[str, Any]:
    """A state as JSON: every field, times in ISO 8601, and its one-line ``text``."""
    from pydantic import TypeAdapter

    from orma_proxy.facts import State

    fields: dict[str, Any] = TypeAdapter(State).dump_python(found, mode="json")
    return {**fields, "text": found.text}


def _shown(found: State) -> Text:
    from orma_proxy.facts import is_alternative

    if found.prohibited:
        return Text(rule_line(found.value), style="bold red" if found.active else "red")
    if is_alternative(found):  # what a rule says to do instead, as recall shows it
        return Text(f"[PREFER: {found.value}]")
    return Text(found.text)


def _status(found: State) -> str:
    if found.active:
        return "active"
    closed = found.valid_to.astimezone().strftime("%Y-%m-%d") if found.valid_to else "?"
    why = found.end_reason or "closed"
    if found.replaced_by is not None:
        why = f"{why} by {found.replaced_by}"
    return f"{why} ({closed})"


@app.command(rich_help_panel=PANEL)
def facts(
    ctx: typer.Context,
    history: Annotated[
        bool, typer.Option("--history", help="Also closed states, and what replaced them.")
    ] = False,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """List what memory holds as true now: states made by sleep, and forbidden rules.

    The ID is what `orma forget` takes. With --history, closed states are
    listed too (superseded, ended or forgotten), each with what replaced it.

    Example: orma facts --history
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        found = memory.facts(space, include_history=history)
    if json_out:
        print_json({"space": space, "facts": [fact_json(s) for s in found]})
        return
    if not found:
        say(
            cli.out,
            f"No facts in space {space!r} yet: `orma sleep` makes them, `orma forbid` adds rules.",
        )
        return
    table = Table("ID", "Fact", "Since", "Status", box=box.SIMPLE_HEAD)
    for s in sorted(found, key=lambda s: not s.prohibited):  # rules first, as in recall
        since = s.valid_from.astimezone().strftime("%Y-%m-%d")
        table.add_row(str(s.id), _shown(s), since, _status(s), style=None if s.active else "dim")
    cli.out.print(table)


@app.command(rich_help_panel=PANEL)
def recall(
    ctx: typer.Context,
    query: Annotated[
        str,
        typer.Argument(
            help="The user's message.",
            metavar="QUERY",
            show_default=False,
            callback=not_blank("query"),
        ),
    ],
    budget: Annotated[
        int | None,
        typer.Option(help="Token budget (at most the configured one).", metavar="TOKENS", min=64),
    ] = None,
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Print the exact memory block the proxy would inject for QUERY.

    Forbidden rules come first, as [FORBIDDEN: ...]; then remembered lines,
    best first, within the token budget.

    Example: orma recall "Who is my dentist?"
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        block = memory.recall(query, space, budget_tokens=budget)
    if json_out:
        passages = [
            {"sentence_id": p.sentence_id, "episode_id": p.episode_id, "text": p.text}
            for p in block.passages
        ]
        from pydantic import TypeAdapter

        from orma_proxy.facts import Event

        events = [TypeAdapter(Event).dump_python(e, mode="json") | {"text": e.text}
                  for e in block.events]  # fmt: skip
        print_json(
            {"query": query, "space": space, "text": block.text, "tokens": block.tokens,
             "forbidden": block.forbidden, "states": [fact_json(s) for s in block.states],
             "events": events, "passages": passages}
        )  # fmt: skip
        return
    if block.empty:
        say(cli.err, f"Nothing in space {space!r} would be injected for {query!r}.")
        return
    say(cli.out, block.text)


@app.command(rich_help_panel=PANEL)
def forbid(
    ctx: typer.Context,
    rule: Annotated[
        str, typer.Argument(help="What must never be done.", metavar="RULE", show_default=False)
    ],
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Forbid something now: every recall puts the rule first, as [FORBIDDEN: ...].

    The rule is stored as a note and becomes a forbidden_<name> state at once
    (no waiting for sleep). The same rule again keeps its one state.

    Example: orma forbid "Never chain PowerShell commands with semicolons"
    """
    cli = state(ctx)
    if not rule.strip():  # refused before a database is made for it
        raise InputError("nothing to forbid: the rule is empty")
    with open_memory(cli, db, must_exist=False) as memory:
        found = memory.forbid(rule, space)
    _tell(cli, found, json_out, f"State #{found.id}: {rule_line(found.value)}")


@app.command(rich_help_panel=PANEL)
def forget(
    ctx: typer.Context,
    state_id: Annotated[
        int,
        typer.Argument(
            help="As `orma facts` lists it.",
            metavar="STATE_ID",
            show_default=False,
            callback=sqlite_id("state"),
        ),
    ],
    space: SpaceOption = DEFAULT_SPACE,
    db: DbOption = None,
    json_out: JsonOption = False,
) -> None:
    """Close a state that is no longer true. It stays in `orma facts --history`.

    Example: orma forget 12
    """
    cli = state(ctx)
    with open_memory(cli, db, must_exist=True) as memory:
        found = memory.forget(state_id, space)
    _tell(
        cli,
        found,
        json_out,
        f"Forgot state #{found.id} ({found.text}); `orma facts --history` keeps it.",
    )


def _tell(cli: CliState, found: State, json_out: bool, message: str) -> None:
    """The state a command wrote: as JSON, or one line."""
    if json_out:
        print_json(fact_json(found))
    else:
        say(cli.out, message)
