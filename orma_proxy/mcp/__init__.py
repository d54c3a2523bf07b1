"""Orma as an MCP server (stdio) for coding agents: ``orma mcp``.

``server.py`` builds the SDK server and its lifespan, ``tools.py`` holds the
tools, ``clients.py`` the snippets ``orma mcp --print-config`` prints. Nothing
is imported here, so ``--print-config`` and the rest of the CLI never load the
MCP SDK.
"""
