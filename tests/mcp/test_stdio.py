"""``orma mcp`` as a coding agent meets it: the SDK's stdio client spawning the real process.

Each test is one session with its own server process and database; the
tests call the tools, then read the database the server wrote.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult, TextContent

from tests.helpers.rawdb import rows
from tests.helpers.serving import free_port

pytestmark = [pytest.mark.slow, pytest.mark.both_backends]

ROOT = Path(__file__).resolve().parents[2]
TOOLS = {
    "orma_recall",
    "orma_remember",
    "orma_forbid",
    "orma_facts",
    "orma_forget",
    "orma_release",
    "orma_unrelease",
    "orma_purge",
}
RULE = "Never chain PowerShell commands with semicolons."
FILLER = [f"Decision {n}: service {n} keeps its own schema migrations." for n in range(19)]


@dataclass
class Agent:
    """A connected client session, and everything that was not protocol on stdout."""

    session: ClientSession
    db: Path | str
    stray: list[Exception] = field(default_factory=list)

    async def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return await self.session.call_tool(tool, arguments, read_timeout_seconds=60)

    async def ok(self, tool: str, **arguments: Any) -> Any:
        """The structured result of a call that must succeed (or its text, for recall)."""
        result = await self.call(tool, **arguments)
        assert not result.is_error, _text(result)
        return result.structured_content or _text(result)


def _text(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


@asynccontextmanager
async def connect(tmp_path: Path, db: Path | str) -> AsyncIterator[Agent]:
    """Spawn ``orma mcp --db DB`` (a file or a PostgreSQL URL) and open a session (a context
    manager, not a fixture: anyio's scopes must close in the task that opened them)."""
    upstream = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens: sleep uses rules
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "orma_proxy.cli", "mcp", "--db", str(db), "--upstream", upstream],
        env={"ORMA_DIR": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1"},
        cwd=ROOT,  # `python -m` imports the package of this checkout
    )
    stray: list[Exception] = []

    async def on_message(message: object) -> None:
        if isinstance(message, Exception):  # a stdout line that was not JSON-RPC
            stray.append(message)

    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            await session.initialize()
            yield Agent(session, db, stray)


async def test_every_tool_over_a_real_stdio_session(tmp_path: Path, db: Path | str) -> None:
    async with connect(tmp_path, db) as agent:
        await _every_tool(agent)


async def _every_tool(agent: Agent) -> None:
    listed = {tool.name: tool for tool in (await agent.session.list_tools()).tools}
    assert set(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and len(tool.description) > 40
    forget_schema = listed["orma_forget"].input_schema
    assert forget_schema["properties"]["state_id"]["type"] == "integer"
    assert forget_schema["required"] == ["state_id"]
    kinds = listed["orma_remember"].input_schema["properties"]["kind"]["enum"]
    assert "anti_pattern" in kinds

    rule = await agent.ok("orma_forbid", rule=RULE)
    assert (rule["prohibited"], rule["active"]) == (True, True)
    assert rule["quote"] == RULE
    again = await agent.ok("orma_forbid", rule=RULE.lower())
    assert again["id"] == rule["id"]

    remembered = await agent.ok("orma_remember", text="I live in Pune.")
    assert (remembered["kind"], remembered["rule"]) == ("note", None)
    anti = await agent.ok("orma_remember", text="Avoid global mutable state.", kind="anti_pattern")
    assert anti["rule"]["prohibited"] and anti["rule"]["id"] != rule["id"]
    for note in FILLER[:17]:  # 20 episodes pending: the scheduler consolidates at once
        await agent.ok("orma_remember", text=note, kind="decision", space="default")

    block = await agent.ok("orma_recall", query="how do I run these PowerShell commands?")
    lines = block.splitlines()
    assert "Never suggest, mention or do anything marked [FORBIDDEN]." in lines[1]
    assert lines[3] == "[FORBIDDEN: chain PowerShell commands with semicolons]"
    assert lines[4] == "[FORBIDDEN: global mutable state]"
    assert all(not line.startswith("[FORBIDDEN") for line in lines[5:])

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        facts = (await agent.ok("orma_facts"))["facts"]
        if any(f["text"] == "user · home city: Pune" for f in facts):
            break
        await asyncio.sleep(0.25)
    texts = sorted(f["text"] for f in facts)
    assert "user · home city: Pune" in texts  # made by the server's own sleep scheduler
    assert sum(f["prohibited"] for f in facts) == 2  # sleep re-read the rules, added none

    home = next(f for f in facts if f["text"] == "user · home city: Pune")
    forgotten = await agent.ok("orma_forget", state_id=home["id"])
    assert (forgotten["active"], forgotten["end_reason"]) == (False, "forgotten")
    active = (await agent.ok("orma_facts"))["facts"]
    assert home["id"] not in [f["id"] for f in active]
    history = (await agent.ok("orma_facts", include_history=True))["facts"]
    assert [f["active"] for f in history if f["id"] == home["id"]] == [False]

    assert agent.stray == []
    assert rows(agent.db, f"SELECT active, end_reason FROM states WHERE id = {home['id']}") == [
        (0, "forgotten")
    ]
    assert rows(agent.db, "SELECT count(*) FROM episodes WHERE space = 'default'") == [(21,)]
    kinds_stored = rows(agent.db, "SELECT json_extract(metadata, '$.kind') FROM episodes")
    assert ("decision",) in kinds_stored


async def test_recall_shows_what_a_note_says_beyond_its_fact(
    tmp_path: Path, db: Path | str
) -> None:
    """Issue 27: the fact drawn from the note adds to its line in the block, never hides it."""
    violin = "My brother Kabir plays the violin in the Pune symphony orchestra."
    async with connect(tmp_path, db) as agent:
        await agent.ok("orma_remember", text=violin)
        facts = (await agent.ok("orma_facts"))["facts"]
        assert [f["text"] for f in facts] == ["user · brother: Kabir"]  # drawn as it was stored
        block = await agent.ok("orma_recall", query="What instrument does my brother play?")
    lines = block.splitlines()
    assert "[user.brother: Kabir]" in lines
    assert any(line.startswith("[LOG: ") and line.endswith(f": {violin}]") for line in lines)


async def test_mistakes_come_back_as_error_results(tmp_path: Path, db: Path | str) -> None:
    async with connect(tmp_path, db) as agent:
        await _mistakes(agent)


async def _mistakes(agent: Agent) -> None:
    missing = await agent.call("orma_forget", state_id=987)
    assert missing.is_error
    assert _text(missing) == "Error executing tool orma_forget: no state #987 in space 'default'"

    other = await agent.ok("orma_forbid", rule="Never deploy on Fridays.", space="ops")
    elsewhere = await agent.call("orma_forget", state_id=other["id"])
    assert elsewhere.is_error and "no state" in _text(elsewhere)
    empty = await agent.call("orma_remember", text="   ")
    assert empty.is_error and "text is empty" in _text(empty)
    wrong_kind = await agent.call("orma_remember", text="x", kind="gossip")
    assert wrong_kind.is_error

    nothing = await agent.ok("orma_recall", query="anything at all", space="empty")
    assert nothing == "Nothing in space 'empty' is remembered about this yet."
    still = await agent.ok("orma_facts", space="ops")  # the server survived every mistake
    assert [f["id"] for f in still["facts"]] == [other["id"]]
    assert agent.stray == []
    assert rows(agent.db, "SELECT space, active FROM states") == [("ops", 1)]
