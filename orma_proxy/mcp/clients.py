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
    "generic": "Any MCP client: stdio transport, the command and arguments shown.",
}


@dataclass(frozen=True)
class Snippet:
    """The exact text for the client (stdout) and where it goes (a hint for stderr)."""

    text: str
    where: str


def snippet(client: str, program: Sequence[str], args: Sequence[str] = ()) -> Snippet:
    """The configuration for ``client`` running ``PROGRAM mcp ARGS...``.

    ``program`` is ``orma`` by its absolute path (or the Python running it with
    ``-m``): a client starts it with its own PATH, which seldom holds the venv's.
    """
    if client not in CLIENTS:
        raise ValueError(f"unknown MCP client {client!r}: use one of {', '.join(CLIENTS)}")
    command = [*program, "mcp", *args]
    if client == "claude-code":
        text = shlex.join(["claude", "mcp", "add", "orma", "--", *command])
    else:
        server = {"command": command[0], "args": command[1:]}
        text = json.dumps({"mcpServers": {"orma": server}}, indent=2)
    return Snippet(text, _WHERE[client])
