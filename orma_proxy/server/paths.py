"""One spelling per path, before routing or any key check sees it.

``//v1/models``, ``/v1/./models`` and ``/x/../v1/models`` (percent-encoded or
not: the server has decoded ``%2e`` and ``%2f`` already) all become
``/v1/models``, so a route, a key check and the upstream all read the same
path. A path with control characters (``%00``) is refused here: no upstream
URL can carry it.
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.types import ASGIApp, Receive, Scope, Send

from orma_proxy.server.errors import error_response

__all__ = ["NormalPaths", "normal_path"]


def normal_path(path: str) -> str:
    """``path`` with duplicate slashes and ``.``/``..`` segments resolved (never above ``/``)."""
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    out = "/" + "/".join(parts)
    return out + "/" if parts and path.endswith(("/", "/.", "/..")) else out


class NormalPaths:
    """ASGI middleware: rewrites ``scope["path"]`` to its normal form, 400 for control bytes."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            message = "the request path contains control characters"
            refusal = error_response(400, message, "invalid_request_error", "invalid_request")
            await refusal(scope, receive, send)
            return
        normal = normal_path(path)
        if normal != path:
            scope = {**scope, "path": normal, "raw_path": quote(normal).encode("ascii")}
        await self.app(scope, receive, send)
