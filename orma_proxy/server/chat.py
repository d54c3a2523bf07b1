"""``POST /v1/chat/completions`` (and Ollama's ``/api/chat``) with memory.

Recall runs in-process before forwarding, the block goes into the first system
message, the upstream's answer is relayed byte for byte (SSE/NDJSON chunks as
they arrive), and the new turns are recorded after the reply, in the background.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import anyio
import httpx
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import BadRequestError, PayloadTooLargeError
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.memory.messages import (
    Message,
    clean_text,
    inject_block,
    is_webui_task,
    new_turns,
    valid_messages,
)
from orma_proxy.offload import in_thread
from orma_proxy.recall.pack import MemoryBlock
from orma_proxy.server.auth import Guard, header_value, requested_space
from orma_proxy.server.capture import Flavor, Recorder, ReplyCapture
from orma_proxy.server.errors import stream_error_event, upstream_failure
from orma_proxy.server.state import proxy_state
from orma_proxy.server.upstream import Upstream
from orma_proxy.sleep import UpstreamGate
from webui_passthrough import coalesced, relay_response, response_headers, wire_headers

log = logging.getLogger(__name__)

T = TypeVar("T")

# nginx's status for "client closed the request"; nobody reads it, logs do.
CLIENT_CLOSED_REQUEST = 499
# Bodies larger than this are parsed, and written again with the block, in a worker thread.
PARSE_IN_THREAD_BYTES = 1 << 20
# A body over the size limit is read and dropped up to this much more before the 413.
DRAIN_BYTES = 64 << 20


async def chat_completions(request: Request) -> Response:
    return await handle_chat(request, "openai")


async def ollama_chat(request: Request) -> Response:
    return await handle_chat(request, "ollama")


async def read_json_body(request: Request, limit: int) -> tuple[bytes, dict[str, Any]]:
    """The raw body and its JSON object; 413 past ``limit`` bytes, 400 if not a JSON object.

    A body over the limit is still read, and dropped, up to ``DRAIN_BYTES`` more: a
    client still sending when the 413 came would see its connection reset instead.
    A large body is parsed in a worker thread, off the event loop.
    """
    declared = request.headers.get("content-length", "")
    too_large = PayloadTooLargeError(f"request body is over the {limit}-byte limit")
    if declared.isdigit() and int(declared) > limit:
        waiting = request.headers.get("expect", "").lower() == "100-continue"
        if waiting or int(declared) > limit + DRAIN_BYTES:
            raise too_large  # it sends nothing yet, or more than is worth reading
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit + DRAIN_BYTES:
                break
            if size <= limit:
                chunks.append(chunk)
    except ClientDisconnect as exc:
        raise BadRequestError("the client went away while sending the request") from exc
    if size > limit:
        raise too_large
    raw = b"".join(chunks)
    try:
        body = (
            await in_thread(lambda: json.loads(raw))
            if size > PARSE_IN_THREAD_BYTES
            else json.loads(raw)
        )
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequestError(f"the request body is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise BadRequestError("the request body's JSON is nested too deeply") from exc
    if not isinstance(body, dict):
        raise BadRequestError("the request body must be a JSON object")
    return raw, body


async def handle_chat(request: Request, flavor: Flavor) -> Response:
    began = time.time()  # a purge after this, in any process, also binds what this turn records
    state = proxy_state(request.app)
    config: OrmaConfig = state.config
    guard: Guard = state.guard
    upstream: Upstream = state.upstream
    access = guard.authenticate(request.headers)
    raw, body = await read_json_body(request, config.max_body_bytes)
    space = guard.space_for(access, requested_space(request.headers, body))
    messages = valid_messages(body)
    with_memory = messages is not None and not is_webui_task(messages)
    extra = [("x-orma-space", header_value(space))]
    content = raw
    if with_memory and messages is not None:
        started = time.perf_counter()
        try:
            authorization = upstream.authorization(request.headers, replace_auth=guard.enabled)
            block = await _recall(
                state.memory, upstream, config, messages, space, body, authorization
            )
        except Exception as exc:  # memory never breaks chat
            log.warning("recall failed for space %r, forwarding without memory: %s", space, exc)
            extra.append(("x-orma-recall", "error"))
        else:
            _remember_block(state.last_blocks, space, block, config.last_blocks_kept)
            extra.append(("x-orma-memory-tokens", str(block.tokens)))
            if not block.empty:
                amended = inject_block(messages, block.text)
                write = functools.partial(_with_block, raw, body, amended)
                content = await in_thread(write) if len(raw) > PARSE_IN_THREAD_BYTES else write()
        extra.append(("x-orma-recall-ms", f"{(time.perf_counter() - started) * 1000:.1f}"))
    else:
        extra.append(("x-orma-recall", "skipped"))

    path = "/v1/chat/completions" if flavor == "openai" else "/api/chat"
    outgoing = upstream.client.build_request(
        "POST",
        upstream.url(path),
        params=request.url.query or None,
        headers=wire_headers(
            upstream.headers(request.headers, replace_auth=guard.enabled, identity=True)
        ),
        content=content,
    )
    capture = ReplyCapture(flavor)
    turns = new_turns(messages, config.tool_output_max_chars) if with_memory and messages else []
    recorder: Recorder = state.recorder

    gate: UpstreamGate = state.gate
    gate.chat_started()  # sleep leaves the upstream to chat until finish()
    finished = False

    def finish(partial: bool, *, failed: str | None = None) -> None:
        """Once per request, however it ends: free the gate, record what was said.

        ``failed``: the upstream gave no answer (the turns are kept, marked so).
        """
        nonlocal finished
        if finished:
            return
        finished = True
        gate.chat_finished()
        if with_memory:
            said = "" if failed else capture.reply()
            model = body.get("model")
            recorder.record(
                space,
                turns,
                said,
                partial=partial,
                model=clean_text(model) if isinstance(model, str) else None,
                began=began,
                failed=failed,
            )

    try:
        reply = await until_disconnect(request, upstream.client.send(outgoing, stream=True))
    except httpx.HTTPError as exc:  # upstream down or silent: the client sees 502/504
        finish(False, failed=upstream_failure(exc)[2])  # "upstream_unreachable"...
        raise
    except BaseException:
        finish(True)
        raise
    if reply is None:
        finish(True)
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    streaming = body.get("stream", flavor == "ollama") is True
    if reply.status_code >= 400 or not streaming:
        try:
            data = await until_disconnect(request, reply.aread())
        except httpx.HTTPError as exc:  # the answer never came whole: the client sees 502/504
            finish(False, failed=upstream_failure(exc)[2])
            raise
        except BaseException:
            finish(True)
            raise
        finally:
            await reply.aclose()
            if reply.status_code >= 400:  # the upstream refused: nothing was said
                finish(False, failed=f"upstream_status_{reply.status_code}")
        if data is None:
            finish(True)
            return Response(status_code=CLIENT_CLOSED_REQUEST)
        capture.whole(data)
        finish(False)
        headers = [
            (k, v) for k, v in response_headers(reply.headers) if k.lower() != "content-length"
        ]
        response = Response(data, status_code=reply.status_code)
        response.raw_headers = [
            *[(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers + extra],
            (b"content-length", str(len(data)).encode()),
        ]
        return response
    return relay_response(
        reply, relay(reply, capture, flavor, finish), extra, on_close=lambda: finish(True)
    )


async def until_disconnect(request: Request, work: Awaitable[T]) -> T | None:
    """``await work``, unless the client goes away first: then cancel it, return None.

    Before the response starts nothing else watches the client, so a slow upstream
    would otherwise keep working (and holding a connection) for nobody.
    """
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watcher.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    log.info("the client went away before the upstream answered; request cancelled")
    return None


async def _disconnected(request: Request) -> None:
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def relay(
    reply: httpx.Response, capture: ReplyCapture, flavor: Flavor, finish: Callable[[bool], None]
) -> AsyncIterator[bytes]:
    """Yield the upstream's bytes as they arrive; record what was said however it ends.

    A client that disconnects cancels this generator: the upstream request is
    closed at once (shielded from the cancellation) and the partial reply recorded.
    """
    complete = False
    try:
        async with contextlib.aclosing(coalesced(reply.aiter_raw())) as chunks:
            async for chunk in chunks:
                capture.feed(chunk)
                yield chunk
        capture.finish()
        complete = True
    except httpx.HTTPError as exc:
        log.warning("the upstream stream broke off: %r", exc)
        yield stream_error_event(exc, ndjson=flavor == "ollama")
    finally:
        with anyio.CancelScope(shield=True):
            await reply.aclose()
        finish(not complete)


async def _recall(
    memory: AsyncMemory,
    upstream: Upstream,
    config: OrmaConfig,
    messages: list[Message],
    space: str,
    body: dict[str, Any],
    authorization: str | None,
) -> MemoryBlock:
    """The SDK's block for this turn, within the share of the model's window memory may take
    (asked of the upstream with the request's own ``authorization``)."""
    model = body.get("model") if isinstance(body.get("model"), str) else None
    window = await upstream.context_window(model, body, authorization)
    budget = config.budget_tokens
    if window:
        budget = min(budget, int(window * config.max_context_share))
    return await memory.recall_conversation(messages, space, budget_tokens=budget)


def _with_block(raw: bytes, body: dict[str, Any], messages: list[Message]) -> bytes:
    """The body with the amended messages, every other field as the client sent it.

    Text with a lone surrogate escape (``"\\ud800"``) has no UTF-8 form: such a
    body is written with ASCII escapes, which carry it unchanged. A body too deep
    to write again goes as it came, without memory.
    """
    amended = {**body, "messages": messages}
    try:
        return json.dumps(amended, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(amended).encode("ascii")
    except RecursionError:
        log.warning("the request is nested too deeply to add memory to; forwarded as it came")
        return raw


def _remember_block(
    store: OrderedDict[str, str], space: str, block: MemoryBlock, keep: int
) -> None:
    """Keep the last injected block per space for ``GET /_orma/last`` (bounded LRU)."""
    store[space] = block.text
    store.move_to_end(space)
    while len(store) > keep:
        store.popitem(last=False)
