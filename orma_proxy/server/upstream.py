"""Where requests go: the upstream's URLs, headers, and its context window.

The configured upstream is an OpenAI-style base URL (``http://127.0.0.1:11434/v1``
for Ollama, ``http://127.0.0.1:8080/v1`` or just ``http://127.0.0.1:8080`` for
llama-server). ``/v1/...`` paths go under the base; everything else (web UI,
``/props``, Ollama's ``/api/...``) goes under the server root.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import httpx
from starlette.datastructures import Headers

from orma_proxy.config import OrmaConfig
from orma_proxy.context_window import learn_context_window
from webui_passthrough import request_headers

log = logging.getLogger(__name__)

# Context windows learnt from the upstream are trusted this long.
CONTEXT_CACHE_SECONDS = 600.0


class Upstream:
    """The upstream server as the proxy sees it."""

    def __init__(self, config: OrmaConfig, client: httpx.AsyncClient) -> None:
        base = config.upstream.rstrip("/")
        self.root = base[: -len("/v1")] if base.endswith("/v1") else base
        self.base = f"{self.root}/v1"
        self.client = client
        self._config = config
        self._windows: dict[str, tuple[int | None, float]] = {}

    def url(self, path: str) -> str:
        """The upstream URL for a proxy path (``/v1/models`` or ``/props``)."""
        if path == "/v1" or path.startswith("/v1/"):
            return self.base + path[3:]
        return self.root + path

    def headers(
        self,
        incoming: Headers,
        *,
        replace_auth: bool,
        identity: bool = False,
        upstream_key: bool = True,
    ) -> list[tuple[str, str]]:
        """The client's headers for the upstream.

        Orma's own headers never leave; the client's ``Authorization`` is swapped
        for the configured upstream key, or dropped when it was an Orma key.
        ``upstream_key=False`` (a caller without a valid key) sends no key at all.
        ``identity`` asks for an uncompressed body (the relay must read it).
        """
        drop = {k for k in incoming if k.lower().startswith("x-orma-")}
        if replace_auth or self._config.upstream_api_key:
            drop.add("authorization")
        if identity:
            drop.add("accept-encoding")
        out = request_headers(incoming, drop=drop)
        if self._config.upstream_api_key and upstream_key:
            out.append(("authorization", f"Bearer {self._config.upstream_api_key}"))
        if identity:
            out.append(("accept-encoding", "identity"))
        return out

    def authorization(self, incoming: Headers, *, replace_auth: bool) -> str | None:
        """The ``Authorization`` a request with these headers carries to the upstream."""
        sent = self.headers(incoming, replace_auth=replace_auth)
        return next((value for name, value in sent if name.lower() == "authorization"), None)

    async def context_window(
        self, model: str | None, body: dict[str, Any], authorization: str | None = None
    ) -> int | None:
        """The model's context length in tokens, if the upstream tells it.

        Ollama requests may set ``options.num_ctx``; otherwise llama-server's
        ``/props`` or Ollama's ``/api/show`` answer, asked with the chat request's
        ``authorization`` (a server started with ``--api-key`` answers nothing
        without it). Ollama runs with 4,096 tokens unless told otherwise, whatever
        the model could do.
        """
        options = body.get("options")
        if isinstance(options, dict) and isinstance(options.get("num_ctx"), int):
            return int(options["num_ctx"])
        key = model or ""
        cached = self._windows.get(key)
        if cached is not None and cached[1] > time.monotonic():
            return cached[0]
        window = await self._probe(model, authorization)
        self._windows[key] = (window, time.monotonic() + CONTEXT_CACHE_SECONDS)
        return window

    async def _probe(self, model: str | None, authorization: str | None) -> int | None:
        return await learn_context_window(
            self.client,
            self.root,
            model,
            probe_seconds=self._config.context_probe_timeout,
            ollama_default=self._config.ollama_default_context,
            headers={"authorization": authorization} if authorization else None,
        )
