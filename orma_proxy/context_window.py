"""How much a model can read: the upstream's context window, and what a text takes of it.

The proxy sizes its memory block to the window and sleep sizes each request's
lines to it; both ask the server the same way: llama-server's ``/props``
(``n_ctx``), else Ollama's ``/api/show`` (``num_ctx``, or Ollama's default when
the model sets none). A server that says neither gives None: the caller keeps
its own limits.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # httpx loads with the first request (a tenth of a second of start-up)
    import httpx

__all__ = ["estimate_tokens", "learn_context_window"]

log = logging.getLogger(__name__)


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate that errs high (English averages ~4 characters a token)."""
    return len(text) // 3 + 1


async def learn_context_window(
    client: httpx.AsyncClient,
    root: str,
    model: str | None,
    *,
    probe_seconds: float,
    ollama_default: int,
    headers: dict[str, str] | None = None,
) -> int | None:
    """The context length in tokens the server at ``root`` (no ``/v1``) runs ``model`` with."""
    import httpx

    try:
        props = await client.get(f"{root}/props", timeout=probe_seconds, headers=headers)
        if props.status_code == 200:
            settings = props.json().get("default_generation_settings", {})
            n_ctx = settings.get("n_ctx") or props.json().get("n_ctx")
            if isinstance(n_ctx, int) and n_ctx > 0:
                return n_ctx
        if model:
            show = await client.post(
                f"{root}/api/show", json={"model": model}, timeout=probe_seconds, headers=headers
            )
            if show.status_code == 200:
                return _ollama_num_ctx(show.json()) or ollama_default
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        log.debug("could not learn the context window of %r: %s", model, exc)
    return None


def _ollama_num_ctx(show: dict[str, Any]) -> int | None:
    """``num_ctx`` from an Ollama ``/api/show`` answer's parameters, if set."""
    for line in str(show.get("parameters", "")).splitlines():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return int(value.strip())
    return None
