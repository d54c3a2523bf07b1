"""A replaying cache in front of a real upstream, so a slow model's run costs once.

``bench.sleep --upstream URL --cache DIR`` puts this relay between Orma and the
server. A ``POST`` (the sleep extraction call) is keyed by the sha256 of the
exact request body Orma sends; a hit replays the stored status and body, a
miss asks the server and stores its answer as ``DIR/<key>.json``. A ``GET``
(``/v1/models``) is keyed the same way on its method and path. Sleep asks at
temperature 0 (greedy decoding: no seed is drawn) and builds the same body
for the same conversation, so a replay gives exactly the answers of the run
that stored them: a later run on changed verification code takes seconds,
and only the prompts that changed (a batch whose prompt names facts the
space stored differently) go to the server. Two *live* runs can still differ
a little: llama-cpp-python reuses the longest prompt prefix left in its KV
cache by the request before, and a prefix computed in other chunks rounds
differently, which now and then flips a greedy token.

Every answer the server gave is stored, a refusal too (llama-cpp-python
answers a ``json_schema`` response format with a 500: the client steps down on
it, and a replay must too). Not stored: no answer at all (the server is
unreachable or hung up: the relay answers 502) and a 502/503/504 (a gateway
or an overloaded server, not an answer to this body), so the next run asks
again. Two requests with the same key at once share one upstream call (a
client that timed out and retried waits for the answer it already asked for).
Delete a file to ask its request again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench.loopback import serving

# Statuses that say nothing about the request: the server was not there to answer it.
_NOT_ANSWERS = frozenset({502, 503, 504})


@dataclass
class CacheStats:
    """What the cache did in one run: answers replayed and answers asked for."""

    hits: int = 0
    misses: int = 0
    not_stored: int = 0


def cache_key(method: str, path: str, body: bytes) -> str:
    """A POST's key is the sha256 of its body; any other request's, of its method and path."""
    return hashlib.sha256(body if method == "POST" else f"{method} {path}".encode()).hexdigest()


def create_app(upstream: str, directory: Path, stats: CacheStats) -> Starlette:
    """The relay app: ``/v1/...`` answered from ``directory`` or from ``upstream`` (its /v1 URL)."""
    base = upstream.rstrip("/").removesuffix("/v1")
    directory.mkdir(parents=True, exist_ok=True)
    locks: dict[str, asyncio.Lock] = {}

    async def relay(request: Request) -> Response:
        body = await request.body()
        key = cache_key(request.method, request.url.path, body)
        lock = locks.setdefault(key, asyncio.Lock())
        async with lock:
            stored = directory / f"{key}.json"
            if stored.exists():
                stats.hits += 1
                saved = json.loads(stored.read_text(encoding="utf-8"))
                return Response(saved["body"], saved["status"], media_type=saved["type"])
            stats.misses += 1
            headers = {"content-type": request.headers.get("content-type", "application/json")}
            if "authorization" in request.headers:
                headers["authorization"] = request.headers["authorization"]
            try:
                async with httpx.AsyncClient(timeout=None, trust_env=False) as client:
                    reply = await client.request(
                        request.method, base + request.url.path, content=body, headers=headers
                    )
            except httpx.HTTPError as exc:
                stats.not_stored += 1
                message = {"error": {"message": f"answer cache: no answer from {base}: {exc!r}"}}
                return Response(json.dumps(message), 502, media_type="application/json")
            kind = reply.headers.get("content-type", "application/json")
            if reply.status_code not in _NOT_ANSWERS:
                saved = {"status": reply.status_code, "type": kind, "body": reply.text}
                saved["request"] = body.decode("utf-8", "replace")  # to read, never replayed
                partial = stored.with_suffix(".part")
                partial.write_text(json.dumps(saved, ensure_ascii=False), encoding="utf-8")
                partial.replace(stored)
            else:
                stats.not_stored += 1
            return Response(reply.content, reply.status_code, media_type=kind)

    return Starlette(routes=[Route("/v1/{rest:path}", relay, methods=["GET", "POST"])])


@contextmanager
def cached_upstream(upstream: str, directory: Path, stats: CacheStats) -> Iterator[str]:
    """Serve the cache in front of ``upstream`` on a free loopback port; yields its /v1 URL."""
    with serving(create_app(upstream, directory, stats), "answer-cache") as url:
        yield url
