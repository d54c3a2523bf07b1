"""``POST /_orma/forget``: supersede, release, unrelease and purge on the running proxy.

The body names the operation and its arguments, as the SDK takes them::

    {"operation": "supersede", "old": "Pune", "new": "Bangalore"}
    {"operation": "release", "query": "my old job", "dry_run": true}
    {"operation": "unrelease", "release_id": 3}
    {"operation": "purge", "query": "my bank PIN"}       (or "ids": [12, 13])

The space is the body's ``space``, else ``x-orma-space``, else the key's own;
with API keys configured a key reaches only its spaces (401/403 otherwise).
The answer is the result as JSON; a bad request is a 400 in OpenAI's error shape.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orma_proxy.errors import BadRequestError, InputError
from orma_proxy.forget import ForgetResult
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.server.auth import Guard, asked_space
from orma_proxy.server.chat import read_json_body
from orma_proxy.server.state import proxy_state
from orma_proxy.store import MAX_ROW_ID

# An id SQLite can hold; past it, a 400 rather than an overflow.
RowId = Annotated[int, Field(ge=0, le=MAX_ROW_ID)]


class ForgetRequest(BaseModel):
    """The body of ``/_orma/forget``; unknown keys are refused."""

    model_config = ConfigDict(extra="forbid")

    operation: Literal["supersede", "release", "unrelease", "purge"]
    space: str | None = None
    dry_run: bool = False
    old: RowId | str | None = None
    new: str | None = None
    query: str | None = None
    ids: list[RowId] | None = None
    threshold: float | None = None
    max_items: int | None = Field(None, ge=1, le=MAX_ROW_ID)
    release_id: RowId | None = None


async def forget(request: Request) -> Response:
    """Run one forgetting operation for the caller's space."""
    state = proxy_state(request.app)
    guard: Guard = state.guard
    access = guard.authenticate(request.headers)
    _, body = await read_json_body(request, state.config.max_body_bytes)
    try:
        asked = ForgetRequest.model_validate(body)
    except ValidationError as exc:
        raise BadRequestError(f"bad /_orma/forget request: {exc.errors()[0]['msg']}") from exc
    space = guard.space_for(access, asked_space(asked.space, request.headers))
    result = await _run(state.memory, asked, space)  # InputError: 400; ambiguity: 409
    if result.operation == "purge" and not result.dry_run:
        state.last_blocks.pop(space, None)  # the block shown last may quote what was erased
    return JSONResponse(result.as_dict())


async def _run(memory: AsyncMemory, asked: ForgetRequest, space: str) -> ForgetResult:
    if asked.operation == "supersede":
        if asked.old is None or asked.new is None:
            raise InputError("supersede needs 'old' (a text or a state id) and 'new'")
        return await memory.supersede(asked.old, asked.new, space, dry_run=asked.dry_run)
    if asked.operation == "release":
        if asked.query is None:
            raise InputError("release needs 'query'")
        return await memory.release(
            asked.query,
            space,
            threshold=asked.threshold,
            max_items=asked.max_items,
            dry_run=asked.dry_run,
        )
    if asked.operation == "unrelease":
        if asked.release_id is None:
            raise InputError("unrelease needs 'release_id'")
        return await memory.unrelease(asked.release_id, space)
    if (asked.query is None) == (asked.ids is None):
        raise InputError("purge needs either 'query' or 'ids'")
    target = asked.query if asked.query is not None else asked.ids or []
    return await memory.purge(target, space, dry_run=asked.dry_run)
