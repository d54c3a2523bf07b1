"""The tools a coding agent gets: recall, remember, forbid, facts, forget, release, unrelease
and purge.

Each is a thin call into ``AsyncMemory`` with typed, described parameters, so
the agent sees a precise JSON schema. An Orma error (a bad state id, an empty
text) becomes a ``ToolError``: the agent reads one clear message in an error
result and the server keeps running. Anything else is a bug, which the SDK
reports as a generic error and logs with its traceback on stderr.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from orma_proxy.errors import OrmaError
from orma_proxy.facts import State
from orma_proxy.forget import ForgetResult
from orma_proxy.memory.runtime import Runtime

Kind = Literal["note", "decision", "rule", "constraint", "anti_pattern"]
Role = Literal["user", "assistant", "note", "document", "tool"]
SpaceArg = Annotated[
    str, Field(description="Memory space; spaces never see each other (one per project or user).")
]
QueryArg = Annotated[
    str, Field(description="What the task is about, in plain words (the user's request).")
]
TextArg = Annotated[
    str, Field(description="The decision, rule or constraint, in one or two sentences.")
]
KindArg = Annotated[
    Kind,
    Field(description="What it is; 'anti_pattern' registers a rule to avoid (as orma_forbid)."),
]
RoleArg = Annotated[Role, Field(description="Who said it.")]
RuleArg = Annotated[
    str,
    Field(description="What must never be done, e.g. 'chain PowerShell commands with semicolons'."),
]
HistoryArg = Annotated[bool, Field(description="Also list closed states and what replaced them.")]
StateIdArg = Annotated[int, Field(description="The id of the state, as orma_facts lists it.")]
TopicArg = Annotated[
    str, Field(description="The topic to stop recalling, in plain words, e.g. 'my old job'.")
]
ReleaseIdArg = Annotated[int, Field(description="The release_id orma_release returned.")]
PurgeArg = Annotated[
    str, Field(description="Text whose episodes are erased for good, e.g. the secret itself.")
]
DryRunArg = Annotated[
    bool, Field(description="Only report exactly what would be affected; change nothing.")
]


OrmaContext = Context[Runtime, Any]


class Fact(BaseModel):
    """One state: a fact about the user or project, or a forbidden rule."""

    model_config = ConfigDict(from_attributes=True)

    id: int = Field(description="State id (orma_forget takes it).")
    text: str = Field(description="'holder · attribute: value', e.g. 'user · editor: Helix'.")
    prohibited: bool = Field(description="A rule to avoid, shown as [FORBIDDEN: ...] in recall.")
    active: bool = Field(description="True while it holds; closed states are history.")
    valid_from: datetime
    valid_to: datetime | None = None
    replaced_by: str | None = Field(None, description="The value that replaced it, if any.")
    end_reason: str | None = Field(None, description="superseded, ended or forgotten.")
    quote: str = Field(description="The remembered line it was drawn from.")


class Facts(BaseModel):
    space: str
    facts: list[Fact]


class Remembered(BaseModel):
    episode_id: int = Field(description="The stored episode.")
    space: str
    kind: Kind
    rule: Fact | None = Field(None, description="The forbidden rule, for an anti_pattern.")


class Forgotten(BaseModel):
    """What orma_release or orma_purge did (with dry_run: would do)."""

    operation: str
    space: str
    dry_run: bool
    count: int = Field(description="How many items were (or would be) affected.")
    affected: dict[str, list[int]] = Field(
        description="Ids by kind: episodes, sentences (passages), states, events."
    )
    preview: list[str] = Field(description="The passages concerned.")
    release_id: int | None = Field(None, description="The release, to undo with orma_unrelease.")
    audit_id: int | None = Field(None, description="The audit row of a real action.")


def _fact(state: State) -> Fact:
    return Fact.model_validate(state, from_attributes=True)


@contextmanager
def _tool_errors() -> Iterator[None]:
    """An Orma error is the agent's to read and fix, not a crash."""
    try:
        yield
    except OrmaError as exc:
        raise ToolError(" ".join(str(exc).split()) or type(exc).__name__) from exc


def register_tools(server: MCPServer[Runtime], default_space: str) -> None:
    """Add the tools to ``server``; ``default_space`` is every tool's default ``space``."""
    read_only = ToolAnnotations(read_only_hint=True, open_world_hint=False)

    @server.tool(annotations=read_only, structured_output=False)
    async def orma_recall(
        query: QueryArg, ctx: OrmaContext, space: SpaceArg = default_space
    ) -> str:
        """Recall what is remembered for this task: a token-budgeted memory block, fast.

        Forbidden rules come first as [FORBIDDEN: ...] lines: never suggest,
        mention or do what they forbid. Then facts and past decisions. Call it
        at the start of a task and whenever earlier context might matter.
        """
        with _tool_errors():
            block = await _runtime(ctx).memory.recall(query, space)
        return block.text or f"Nothing in space {space!r} is remembered about this yet."

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def orma_remember(
        text: TextArg,
        ctx: OrmaContext,
        kind: KindArg = "note",
        role: RoleArg = "user",
        space: SpaceArg = default_space,
    ) -> Remembered:
        """Remember a project decision, architecture rule or user constraint for later sessions.

        kind='anti_pattern' records a rule to avoid and registers it at once, as orma_forbid.
        """
        runtime = _runtime(ctx)
        rule: State | None = None
        with _tool_errors():
            if kind == "anti_pattern":
                rule = await runtime.memory.forbid(text, space)
                episode_id = rule.episode_id
            else:
                metadata = {"kind": kind}
                episode_id = await runtime.memory.add(text, space, role, metadata=metadata)
        runtime.scheduler.notify()
        return Remembered(
            episode_id=episode_id,
            space=space,
            kind=kind,
            rule=None if rule is None else _fact(rule),
        )

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def orma_forbid(rule: RuleArg, ctx: OrmaContext, space: SpaceArg = default_space) -> Fact:
        """Forbid something now: a rule every later recall puts first as [FORBIDDEN: ...].

        Takes effect immediately (no waiting for consolidation). Forbidding the
        same rule again returns the same state.
        """
        runtime = _runtime(ctx)
        with _tool_errors():
            state = await runtime.memory.forbid(rule, space)
        runtime.scheduler.notify()
        return _fact(state)

    @server.tool(annotations=read_only)
    async def orma_facts(
        ctx: OrmaContext, space: SpaceArg = default_space, include_history: HistoryArg = False
    ) -> Facts:
        """List the current facts and rules (states) of a space, without searching.

        With include_history, closed states too, with what replaced them.
        """
        with _tool_errors():
            states = await _runtime(ctx).memory.facts(space, include_history=include_history)
        return Facts(space=space, facts=[_fact(s) for s in states])

    @server.tool(
        annotations=ToolAnnotations(
            destructive_hint=True, idempotent_hint=False, open_world_hint=False
        )
    )
    async def orma_forget(
        state_id: StateIdArg, ctx: OrmaContext, space: SpaceArg = default_space
    ) -> Fact:
        """Close an obsolete or wrong fact or rule. It stays in history, never deleted."""
        with _tool_errors():
            state = await _runtime(ctx).memory.forget(state_id, space)
        return _fact(state)

    @server.tool(
        annotations=ToolAnnotations(
            destructive_hint=False, idempotent_hint=False, open_world_hint=False
        )
    )
    async def orma_release(
        query: TopicArg,
        ctx: OrmaContext,
        space: SpaceArg = default_space,
        dry_run: DryRunArg = False,
    ) -> Forgotten:
        """Stop recalling a topic the user wants left alone: passages about it and their facts.

        Unrelated memories stay. Nothing is deleted: orma_unrelease with the
        returned release_id brings it all back.
        """
        with _tool_errors():
            result = await _runtime(ctx).memory.release(query, space, dry_run=dry_run)
        return _forgotten(result)

    @server.tool(
        annotations=ToolAnnotations(
            destructive_hint=False, idempotent_hint=False, open_world_hint=False
        )
    )
    async def orma_unrelease(
        release_id: ReleaseIdArg, ctx: OrmaContext, space: SpaceArg = default_space
    ) -> Forgotten:
        """Undo an orma_release: what it hid is recalled again, as before."""
        with _tool_errors():
            result = await _runtime(ctx).memory.unrelease(release_id, space)
        return _forgotten(result)

    @server.tool(
        annotations=ToolAnnotations(
            destructive_hint=True, idempotent_hint=True, open_world_hint=False
        )
    )
    async def orma_purge(
        query: PurgeArg,
        ctx: OrmaContext,
        space: SpaceArg = default_space,
        dry_run: DryRunArg = False,
    ) -> Forgotten:
        """Erase for good every remembered episode containing this text, and all drawn from it.

        Only when the user asks to delete a secret or personal data. Call it with
        dry_run=true first and show the user what would go. Cannot be undone.
        """
        with _tool_errors():
            result = await _runtime(ctx).memory.purge(query, space, dry_run=dry_run)
        return _forgotten(result)


def _forgotten(result: ForgetResult) -> Forgotten:
    return Forgotten.model_validate(result.as_dict(), from_attributes=False)


def _runtime(ctx: OrmaContext) -> Runtime:
    return ctx.request_context.lifespan_context
