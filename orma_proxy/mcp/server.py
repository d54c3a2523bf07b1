"""``orma mcp``: Orma's memory as an MCP server over stdio, for coding agents.

Built on the official SDK's ``MCPServer``. Everything opens in its lifespan
and closes when the client hangs up: ``open_runtime``, the same memory, httpx
client for sleep's upstream and background ``SleepScheduler`` as the proxy's.
stdout carries protocol only: the SDK serves it from a private descriptor and
points fd 1 at stderr, and every log line goes to stderr.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from orma_proxy import __version__
from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.inputs import DEFAULT_SPACE
from orma_proxy.mcp.tools import register_tools
from orma_proxy.memory.runtime import Runtime, open_runtime

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Orma is your long-term memory across sessions. Call orma_recall with the task at the \
start of each task. Record decisions, architecture rules and the user's constraints with \
orma_remember; when the user says something must never be done, call orma_forbid at once. \
Lines marked [FORBIDDEN: ...] in a recall are strict: never suggest, mention or do what \
they forbid. orma_facts lists what is known; orma_forget closes what is no longer true. \
When the user asks to stop remembering a topic, call orma_release (orma_unrelease undoes \
it); when they ask to delete a secret or personal data for good, call orma_purge with \
dry_run first."""


class OrmaMcpServer(MCPServer[Runtime]):
    """The SDK's server, answering arguments that fail their schema in one plain line.

    The SDK sends pydantic's whole report (model name, input type, a documentation
    URL); an agent needs the argument, what was wrong and what it sent.
    """

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Runtime, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(bad_arguments(name, cause)) from cause


def bad_arguments(tool: str, exc: ValidationError) -> str:
    """``orma_forget: state_id: Input should be a valid integer, ... (got 'abc')``."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        got = "" if error["type"] == "missing" else f" (got {error.get('input')!r:.80})"
        parts.append(f"{where}: {error['msg']}{got}")
    return f"{tool}: " + "; ".join(parts)


def build_server(
    config: OrmaConfig, *, space: str = DEFAULT_SPACE, embedder: Embedder | None = None
) -> MCPServer[Runtime]:
    """The MCP server for ``config``'s database; ``space`` is the tools' default space."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[Runtime]) -> AsyncIterator[Runtime]:
        async with open_runtime(config, embedder=embedder) as runtime:
            log.info(
                "orma mcp: database %s, sleep upstream %s", runtime.memory.path, config.upstream
            )
            yield runtime

    server = OrmaMcpServer(
        "orma",
        title="Orma memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",  # the SDK's own chatter; Orma's loggers keep their level
    )
    register_tools(server, space)
    return server


def serve_stdio(
    config: OrmaConfig, *, space: str = DEFAULT_SPACE, embedder: Embedder | None = None
) -> None:
    """Serve over stdin/stdout until the client closes stdin."""
    orma_log = logging.getLogger("orma_proxy")
    # The CLI already gave Orma's logger a stderr handler; the SDK adds one on the root.
    propagate, orma_log.propagate = orma_log.propagate, not orma_log.handlers
    try:
        build_server(config, space=space, embedder=embedder).run("stdio")
    finally:
        orma_log.propagate = propagate
