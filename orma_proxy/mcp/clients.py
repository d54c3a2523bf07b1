"""What to paste into each coding agent so it starts ``orma mcp``: ``--print-config CLIENT``."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

CLIENTS = ("claude-code", "cursor", "windsurf", "generic")

_WHERE = {
    "claude-code": "Run it in your project (with `--scope user` after `add`: every project).",
    "cursor": "Put it in .cursor/mcp.json in the project, or ~/.cursor/mcp.json for all projects.",
    "windsurf": "Put it in ~/.codeium/windsurf/mcp_config.json (Settings > MCP > raw config).",
    "generic": "Any MCP client: stdio transport, command `orma`, the arguments shown.",
}


@dataclass(frozen=True)
class Snippet:
    """The exact text for the client (stdout) and where it goes (a hint for stderr)."""

    text: str
    where: str


def snippet(client: str, args: Sequence[str] = ()) -> Snippet:
    """The configuration for ``client`` running ``orma mcp ARGS...``."""
    if client not in CLIENTS:
        raise ValueError(f"unknown MCP client {client!r}: use one of {', '.join(CLIENTS)}")
    command = ["mcp", *args]
    if client == "claude-code":
        text = shlex.join(["claude", "mcp", "add", "orma", "--", "orma", *command])
    else:
        text = json.dumps({"mcpServers": {"orma": {"command": "orma", "args": command}}}, indent=2)
    return Snippet(text, _WHERE[client])
