"""Orma as an MCP server (stdio) for coding agents: ``orma mcp``.

``server.py`` builds the SDK server and its lifespan, ``tools.py`` holds the
tools, ``clients.py`` the snippets ``orma mcp --print-config`` prints. The MCP
SDK loads only when ``serve_stdio`` runs, so ``--print-config`` and the rest of
the CLI never import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.inputs import DEFAULT_SPACE
from orma_proxy.mcp.clients import CLIENTS, snippet

if TYPE_CHECKING:
    from orma_proxy.config import OrmaConfig
    from orma_proxy.embed import Embedder

__all__ = ["CLIENTS", "serve_stdio", "snippet"]


def serve_stdio(
    config: OrmaConfig, *, space: str = DEFAULT_SPACE, embedder: Embedder | None = None
) -> None:
    """Serve memory over stdin/stdout until the client closes stdin (see ``server.py``)."""
    from orma_proxy.mcp.server import serve_stdio as serve

    serve(config, space=space, embedder=embedder)
