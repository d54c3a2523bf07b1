"""A scripted sleep upstream on a real socket: answers, errors and hangs, in order.

Each chat request takes the next item of ``script`` (the last one repeats):
a string is the answer's content, an int an HTTP status with an error body, a
``Hang`` a wait of that many seconds before an (unused) answer. Every request's
body is kept, so a test counts what a batch cost and reads the prompts.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.helpers.serving import serve


@dataclass(frozen=True)
class Hang:
    seconds: float


Step = str | int | Hang


@dataclass
class BadUpstream:
    """What the upstream answers (``script``) and what it was asked (``requests``)."""

    script: list[Step] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""

    def next_step(self) -> Step:
        if len(self.script) > 1:
            return self.script.pop(0)
        return self.script[0] if self.script else 500

    def prompts(self) -> list[str]:
        """The numbered lines each chat request showed the model."""
        return [str(r["messages"][-1]["content"]) for r in self.requests]

    def lines_asked(self) -> list[int]:
        """How many numbered lines each chat request held."""
        return [p.count("\n[s") for p in self.prompts()]


def _app(upstream: BadUpstream) -> Starlette:
    async def chat(request: Request) -> Response:
        body = json.loads(await request.body())
        upstream.requests.append(body)
        step = upstream.next_step()
        if isinstance(step, Hang):
            await asyncio.sleep(step.seconds)
            step = "too late"
        if isinstance(step, int):
            return JSONResponse({"error": {"message": f"scripted {step}"}}, step)
        message = {"role": "assistant", "content": step}
        return JSONResponse({"choices": [{"index": 0, "message": message}]})

    async def models(request: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "bad-model"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/models", models),
        ]
    )


@contextmanager
def bad_upstream(*script: Step) -> Iterator[BadUpstream]:
    """The upstream served on a free loopback port; its ``url`` ends in ``/v1``."""
    upstream = BadUpstream(list(script))
    with serve(_app(upstream)) as served:
        upstream.url = f"{served.url}/v1"
        yield upstream
