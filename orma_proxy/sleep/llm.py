"""The sleep model's client: one JSON answer per call, structured output degraded in order.

Servers disagree on structured output: llama.cpp's ``llama-server`` and vLLM
take ``response_format: {type: json_schema}``, llama-cpp-python rejects that
and takes ``{type: json_object, schema: ...}``, some take only plain JSON
mode, Ollama's native ``/api/chat`` takes ``format: <schema>``. The client
tries the strictest form first, steps down on a refusal, and remembers what
worked. The ``httpx.AsyncClient`` is injected so the proxy can share its pool.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import httpx

from orma_proxy.config import OrmaConfig
from orma_proxy.context_window import learn_context_window
from orma_proxy.errors import ExtractionError, UpstreamUnavailableError
from orma_proxy.sleep.gate import UpstreamGate

log = logging.getLogger(__name__)

OLLAMA_PORT = 11434
MODES = ("json_schema", "json_object_schema", "json_object", "plain")
# Statuses that mean "this request shape is not accepted here": try the next mode.
_REFUSALS = frozenset({400, 404, 415, 422, 500, 501})
_ERROR_BODY_CHARS = 300
# How servers say a prompt did not fit: llama-server "Context size has been exceeded",
# "exceeds the available context size", vLLM "maximum context length", OpenAI-style
# "context_length_exceeded", llama-cpp-python "Requested tokens (…) exceed context window".
_OVERFLOW = re.compile(
    r"context[ _](?:size|length|window)|exceeds? (?:the )?(?:available )?context|n_ctx", re.I
)


@dataclass(frozen=True)
class LLMAnswer:
    text: str
    seconds: float
    mode: str


def _response_format(mode: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "extraction", "strict": False, "schema": schema},
        }
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class LLMClient:
    """Talks to the configured upstream (OpenAI-compatible or Ollama native)."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        config: OrmaConfig,
        *,
        model: str | None = None,
        gate: UpstreamGate | None = None,
    ) -> None:
        self._http = http
        self._config = config
        self._base = config.upstream.rstrip("/")
        self.model = model or config.model
        self._gate = gate
        self._mode = 0
        self.requests = 0  # requests made that got an answer or an error
        api = config.sleep_upstream_api
        if api == "auto":
            api = "ollama" if urlparse(self._base).port == OLLAMA_PORT else "openai"
        self.api = api
        self._window: int | None = config.sleep_context_tokens
        self._window_asked = self._window is not None
        self._timeout = httpx.Timeout(
            config.sleep_llm_timeout_seconds, connect=config.sleep_connect_timeout_seconds
        )

    @property
    def _root(self) -> str:
        """Ollama's native API lives beside its ``/v1``."""
        return self._base.removesuffix("/v1")

    def _headers(self) -> dict[str, str]:
        key = self._config.upstream_api_key
        return {"authorization": f"Bearer {key}"} if key else {}

    async def probe(self) -> None:
        """Fail fast (``UpstreamUnavailableError``) if the upstream is not there.

        Also picks the server's first model when none is configured.
        """
        url = f"{self._root}/api/tags" if self.api == "ollama" else f"{self._base}/models"
        timeout = httpx.Timeout(self._config.sleep_connect_timeout_seconds)
        try:
            response = await self._http.get(url, timeout=timeout, headers=self._headers())
        except httpx.HTTPError as exc:
            raise UpstreamUnavailableError(f"cannot reach {url}: {exc!r}") from exc
        if self.model:
            return
        try:
            body = response.json()
            listed = body["models"] if self.api == "ollama" else body["data"]
            first = listed[0]
            self.model = str(first.get("name") or first.get("model") or first["id"])
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise UpstreamUnavailableError(
                f"no model configured and {url} names none (status {response.status_code})"
            ) from exc

    async def context_window(self) -> int | None:
        """The model's context in tokens: ``sleep_context_tokens``, else what the server says
        (asked once); None if neither tells."""
        if not self._window_asked:
            self._window_asked = True
            self._window = await learn_context_window(
                self._http,
                self._root,
                self.model,
                probe_seconds=self._config.context_probe_timeout,
                ollama_default=self._config.ollama_default_context,
                headers=self._headers(),
            )
        return self._window

    def overflow_hint(self, error: str) -> str | None:
        """What to change when ``error`` says a request did not fit the model's context."""
        if not _OVERFLOW.search(error):
            return None
        window = f"{self._window:,} tokens" if self._window else "not known"
        return (
            f"the upstream's context window ({window}) is too small for sleep's requests: "
            "start the server with a larger one (llama-server -c, Ollama num_ctx), or set "
            "sleep_context_tokens to what it has, or lower sleep_batch_lines"
        )

    async def complete_json(
        self, system: str, user: str, schema: dict[str, Any], *, max_requests: int | None = None
    ) -> LLMAnswer:
        """One answer's text, asking for JSON that fits ``schema``; waits for chat to be idle.

        Stepping down through the response formats makes one request each, at most
        ``max_requests`` of them; ``requests`` counts every request that got an
        answer or an error (a call abandoned for a chat is not counted).
        """
        limit = len(MODES) if max_requests is None else max(1, max_requests)
        if self._gate is not None and self._config.sleep_yield_to_chat:
            return await self._gate.run_when_idle(
                lambda: self._complete(system, user, schema, limit)
            )
        return await self._complete(system, user, schema, limit)

    async def _complete(
        self, system: str, user: str, schema: dict[str, Any], limit: int
    ) -> LLMAnswer:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        started = time.monotonic()
        if self.api == "ollama":
            body = await self._post_ollama(messages, schema)
            text = _ollama_text(body)
            return LLMAnswer(text, time.monotonic() - started, "ollama_format")
        last_error = ""
        end = min(len(MODES), self._mode + limit)
        for index in range(self._mode, end):
            mode = MODES[index]
            payload: dict[str, Any] = {
                "model": self.model or "default",
                "messages": messages,
                "temperature": 0,
                "max_tokens": self._config.sleep_max_tokens,
                "stream": False,
            }
            response_format = _response_format(mode, schema)
            if response_format is not None:
                payload["response_format"] = response_format
            response = await self._post(f"{self._base}/chat/completions", payload)
            if response.status_code in _REFUSALS and index + 1 < end:
                last_error = f"{response.status_code} {response.text[:_ERROR_BODY_CHARS]}"
                log.info("upstream refused %s (%s); stepping down", mode, last_error)
                continue
            if response.status_code >= httpx.codes.BAD_REQUEST:
                raise ExtractionError(
                    f"upstream answered {response.status_code}: "
                    f"{response.text[:_ERROR_BODY_CHARS]} (after: {last_error or 'nothing'})"
                )
            self._mode = index
            return LLMAnswer(_openai_text(response), time.monotonic() - started, mode)
        raise ExtractionError(f"upstream refused every response format: {last_error}")

    async def _post(self, url: str, payload: dict[str, Any]) -> httpx.Response:
        try:
            response = await self._http.post(
                url, json=payload, timeout=self._timeout, headers=self._headers()
            )
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            self.requests += 1
            raise UpstreamUnavailableError(f"cannot reach {url}: {exc!r}") from exc
        except httpx.HTTPError as exc:
            self.requests += 1
            raise ExtractionError(f"upstream call failed: {exc!r}") from exc
        self.requests += 1
        return response

    async def _post_ollama(
        self, messages: list[dict[str, str]], schema: dict[str, Any]
    ) -> dict[str, Any]:
        payload = {
            "model": self.model,
            "messages": messages,
            "stream": False,
            "format": schema,
            "options": {"temperature": 0, "num_predict": self._config.sleep_max_tokens},
        }
        response = await self._post(f"{self._root}/api/chat", payload)
        if response.status_code >= httpx.codes.BAD_REQUEST:
            raise ExtractionError(
                f"Ollama answered {response.status_code}: {response.text[:_ERROR_BODY_CHARS]}"
            )
        return _json_body(response)


def _json_body(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        snippet = response.text[:_ERROR_BODY_CHARS]
        raise ExtractionError(f"upstream sent no JSON: {snippet}") from exc
    if not isinstance(body, dict):
        raise ExtractionError(f"upstream sent {type(body).__name__}, not an object")
    return body


def _openai_text(response: httpx.Response) -> str:
    body = _json_body(response)
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ExtractionError(f"no choices[0].message.content in {str(body)[:200]}") from exc
    if not isinstance(content, str):
        raise ExtractionError("the answer's content is empty")
    return content


def _ollama_text(body: dict[str, Any]) -> str:
    message = body.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ExtractionError(f"no message.content in Ollama's answer {str(body)[:200]}")
    return content
