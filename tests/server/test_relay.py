"""The relay's fast path: waiting chunks joined into one write, and the reply parsed in bulk.

Both exist for speed (``bench.proxy``); these tests pin that neither changes a
byte of what the client gets nor a word of what is recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from orma_proxy.server.capture import BULK_LINES, MAX_LINE_BYTES, ReplyCapture
from tests.helpers.proxy import Proxy
from webui_passthrough import coalesced


async def produced(chunks: list[bytes], *, delay: float = 0.0) -> AsyncIterator[bytes]:
    for chunk in chunks:
        if delay:
            await asyncio.sleep(delay)
        yield chunk


async def collect(source: AsyncIterator[bytes], **options: int) -> list[bytes]:
    return [piece async for piece in coalesced(source, **options)]


async def test_waiting_chunks_go_out_joined_and_in_order() -> None:
    chunks = [f"data: {i}\n\n".encode() for i in range(1_000)]
    pieces = await collect(produced(chunks))
    assert b"".join(pieces) == b"".join(chunks)
    assert len(pieces) < len(chunks)


async def test_a_slow_stream_goes_out_chunk_by_chunk() -> None:
    chunks = [b"one", b"two", b"three"]
    assert await collect(produced(chunks, delay=0.02)) == chunks


async def test_the_reader_waits_for_a_slow_client() -> None:
    read: list[int] = []

    async def source() -> AsyncIterator[bytes]:
        for index in range(100):
            read.append(index)
            yield b"x" * 100

    pieces = coalesced(source(), ahead_bytes=1_000, yield_every_bytes=100)
    first = await anext(pieces)
    await asyncio.sleep(0.05)  # the client is busy: the reader stops near 1,000 bytes ahead
    assert len(read) < 30
    rest = [piece async for piece in pieces]
    assert len(read) == 100 and len(first) + sum(map(len, rest)) == 100 * 100


async def test_an_error_comes_after_the_bytes_before_it() -> None:
    async def breaks() -> AsyncIterator[bytes]:
        yield b"kept"
        raise httpx.ReadError("gone")

    got: list[bytes] = []
    with pytest.raises(httpx.ReadError):
        async for piece in coalesced(breaks()):
            got.append(piece)
    assert got == [b"kept"]


async def test_closing_stops_the_reader() -> None:
    stopped = asyncio.Event()

    async def endless() -> AsyncIterator[bytes]:
        try:
            while True:
                await asyncio.sleep(0.001)
                yield b"."
        finally:
            stopped.set()

    pieces = coalesced(endless())
    await anext(pieces)
    await pieces.aclose()
    assert stopped.is_set()


def sse(payload: object) -> bytes:
    return b"data: " + json.dumps(payload).encode() + b"\n\n"


def delta(content: str) -> bytes:
    return sse({"choices": [{"index": 0, "delta": {"content": content}}]})


@pytest.mark.parametrize(
    "broken",
    [
        b"data: {not json}\n\n",
        # Lines that only make JSON once joined with their neighbours count for nothing.
        b'data: {"choices":[{"delta":{"content":"x"}}]}, {"a": 1}\n\n',
        b'data: {"a": "}\n\ndata: {", "choices": [{"delta": {"content": "y"}}]}\n\n',
    ],
)
def test_a_broken_line_spoils_none_of_its_neighbours(broken: bytes) -> None:
    capture = ReplyCapture("openai")
    capture.feed(delta("Hello") + broken + delta(" there") + b"data: [DONE]\n\n")
    capture.finish()
    assert capture.reply() == "Hello there"


def test_long_streams_are_parsed_whole_in_bulk() -> None:
    words = [f" w{i}" for i in range(3 * BULK_LINES + 7)]
    stream = b"".join(delta(w) for w in words) + b"data: [DONE]\n\n"
    capture = ReplyCapture("openai")
    for start in range(0, len(stream), 97):  # lines split across reads
        capture.feed(stream[start : start + 97])
    assert capture.reply() == "".join(words).strip()  # a partial reply needs no finish()


def test_a_line_that_never_ends_stops_following_without_rescanning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A newline-free stream is never joined and re-split per chunk (that was quadratic)."""
    capture = ReplyCapture("openai")
    capture.feed(delta("Hello"))
    piece = b"x" * 1024
    for _ in range(MAX_LINE_BYTES // len(piece) + 2):
        capture.feed(piece)
    capture.feed(delta(" there"))
    capture.finish()
    assert capture.reply() == "Hello"  # what came before is kept; following stopped after
    assert "stopped following" in caplog.text and str(MAX_LINE_BYTES) in caplog.text


def test_tool_calls_across_a_bulk_boundary() -> None:
    call = {"index": 0, "function": {"name": "lookup", "arguments": ""}}
    lines = [sse({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})]
    for part in ['{"q": ', '"rent"}']:
        piece = {"index": 0, "function": {"arguments": part}}
        lines += [delta("")] * (BULK_LINES - 1)
        lines.append(sse({"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}))
    capture = ReplyCapture("openai")
    capture.feed(b"".join(lines))
    capture.finish()
    assert capture.reply() == '[tool call] lookup({"q": "rent"})'


def test_a_fast_stream_reaches_the_client_whole(proxy: Proxy) -> None:
    proxy.upstream.script.chunks = [f" token{i}" for i in range(2_000)]
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
    with httpx.stream("POST", f"{proxy.url}/v1/chat/completions", json=body) as response:
        received = b"".join(response.iter_raw())
    events = [e for e in received.split(b"\n\n") if e]
    assert events[-1] == b"data: [DONE]"
    texts = [json.loads(e[len(b"data: ") :])["choices"][0]["delta"]["content"] for e in events[:-1]]
    assert texts == proxy.upstream.script.chunks


def test_odd_tool_call_deltas_never_break_capture() -> None:
    capture = ReplyCapture("openai")
    odd = {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": "x", "function": {}}]}}]}
    capture.feed(b"data: " + json.dumps(odd).encode() + b"\n\n")
    capture.feed(b'data: {"choices": [{"index": 0, "delta": {"content": "ok"}}]}\n\n')
    capture.finish()
    assert "ok" in capture.reply()
