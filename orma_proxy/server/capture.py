"""Assemble the assistant's reply from what the upstream sends, and record the turn.

The relay hands every raw chunk to a ``ReplyCapture`` (SSE for the OpenAI API,
NDJSON for Ollama's native one); once the reply ends, the ``Recorder`` stores
the new user/tool turns and the reply as episodes in a background task, so
recording never delays the response and never breaks it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any, Literal

from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.memory.messages import Turn, clean_text, text_of
from orma_proxy.offload import in_thread
from orma_proxy.server.unwritten import Exchange, Unwritten
from orma_proxy.store import unavailable

log = logging.getLogger(__name__)

Flavor = Literal["openai", "ollama"]

# Streamed JSON lines parsed together, as one array.
BULK_LINES = 256
# A streamed line longer than this is not a token event: following the reply stops.
MAX_LINE_BYTES = 1 << 20
# At shutdown, recordings still running get this long to finish.
RECORD_DRAIN_SECONDS = 10.0
# Turns longer than this (in all) are cleaned for recording in a worker thread.
CLEAN_IN_THREAD_CHARS = 64_000


class ReplyCapture:
    """Collects content and tool calls from streamed or whole responses."""

    def __init__(self, flavor: Flavor) -> None:
        self.flavor = flavor
        self._partial: list[bytes] = []  # the current line's chunks so far (no newline yet)
        self._partial_bytes = 0
        self._payloads: list[bytes] = []  # JSON lines not parsed yet
        self._content: list[str] = []
        self._tools: dict[int, dict[str, str]] = {}
        self._broken = False

    def feed(self, chunk: bytes) -> None:
        """Take raw bytes of the stream; complete lines are kept to parse, the rest buffered.

        Lines are parsed ``BULK_LINES`` at a time (and at the end): one JSON array
        parse costs a fraction of one ``json.loads`` per token.
        """
        if self._broken:
            return
        try:
            if b"\n" not in chunk:  # only the new bytes are scanned: never quadratic
                self._partial.append(chunk)
                self._partial_bytes += len(chunk)
                if self._partial_bytes > MAX_LINE_BYTES:
                    raise ValueError(f"a streamed line passed {MAX_LINE_BYTES} bytes")
                return
            first, *lines = chunk.split(b"\n")
            last = lines.pop()
            self._take(b"".join([*self._partial, first]).strip())
            for line in lines:
                self._take(line.strip())
            self._partial, self._partial_bytes = [last], len(last)
            if len(self._payloads) >= BULK_LINES:
                self._parse()
        except (ValueError, TypeError, AttributeError, KeyError) as exc:
            # Following the reply is for recording only: it must never break the relay.
            self._broken = True
            log.warning("stopped following an odd reply for recording: %r", exc)

    def finish(self) -> None:
        """Parse what is left, with a last line that had no newline."""
        if not self._broken:
            rest = b"".join(self._partial).strip()
            if rest:
                self._take(rest)
        self._partial, self._partial_bytes = [], 0
        self._parse()

    def whole(self, body: bytes) -> None:
        """Take a non-streamed JSON response."""
        payload = _json(body)
        if payload is None:
            return
        if self.flavor == "ollama":
            self._message(payload.get("message"))
            return
        for choice in payload.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._message(choice.get("message"))

    def reply(self) -> str:
        """The reply as recorded: its text, then one line per tool call."""
        self._parse()
        calls = [
            f"[tool call] {c.get('name', '?')}({c.get('arguments', '')})"
            for _, c in sorted(self._tools.items())
        ]
        return "\n".join(p for p in ["".join(self._content).strip(), *calls] if p)

    def _take(self, line: bytes) -> None:
        """Keep a line's JSON (SSE: what follows ``data:``, ``[DONE]`` aside)."""
        if self.flavor == "openai":
            if not line.startswith(b"data:"):
                return
            line = line[5:].strip()
            if line == b"[DONE]":
                return
        if line:
            self._payloads.append(line)

    def _parse(self) -> None:
        payloads, self._payloads = self._payloads, []
        for payload in _json_objects(payloads):
            if payload is not None:
                self._payload(payload)

    def _payload(self, payload: dict[str, Any]) -> None:
        if self.flavor == "ollama":
            self._message(payload.get("message"))
            return
        for choice in payload.get("choices") or []:
            if isinstance(choice, dict) and choice.get("index", 0) == 0:
                self._delta(choice.get("delta"))

    def _delta(self, delta: Any) -> None:
        if not isinstance(delta, dict):
            return
        if isinstance(delta.get("content"), str):
            self._content.append(delta["content"])
        for call in delta.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            index = call.get("index")
            slot = self._tools.setdefault(index if isinstance(index, int) else len(self._tools), {})
            function = call.get("function") or {}
            if function.get("name"):
                slot["name"] = function["name"]
            if isinstance(function.get("arguments"), str):
                slot["arguments"] = slot.get("arguments", "") + function["arguments"]

    def _message(self, message: Any) -> None:
        if not isinstance(message, dict):
            return
        self._content.append(text_of(message.get("content")))
        for call in message.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            function = call.get("function") or {}
            arguments = function.get("arguments", "")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            self._tools[len(self._tools)] = {
                "name": str(function.get("name", "?")),
                "arguments": arguments,
            }


def _json_objects(lines: list[bytes]) -> list[dict[str, Any] | None]:
    """Each line's JSON object, or None where a line is not one.

    Lines that all look like objects are parsed as one array; should that fail
    or count otherwise (broken lines that only pair up into JSON when joined),
    each line is parsed on its own, so a broken line never spoils its neighbours.
    """
    if lines and all(line[:1] == b"{" and line[-1:] == b"}" for line in lines):
        try:
            values = json.loads(b"[" + b",".join(lines) + b"]")
        except (ValueError, UnicodeDecodeError):
            values = None
        if isinstance(values, list) and len(values) == len(lines):
            return [v if isinstance(v, dict) else None for v in values]
    return [_json(line) for line in lines]


def _with_speaker(meta: dict[str, Any], speaker: str | None) -> dict[str, Any]:
    """The turn's metadata: who said it, in a group chat (read as ``speaker`` everywhere)."""
    return {**meta, "speaker": speaker} if speaker else meta


def _json(raw: bytes) -> dict[str, Any] | None:
    try:
        payload = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return payload if isinstance(payload, dict) else None


class Recorder:
    """Records turns in background tasks; ``close()`` lets the last ones finish.

    An exchange the database refuses (down, full) is kept in ``unwritten`` and
    recorded once it is back, and so is every exchange after it until then.
    """

    def __init__(self, memory: AsyncMemory, on_recorded: Callable[[], None] | None = None) -> None:
        self._memory = memory
        self._on_recorded = on_recorded
        self._tasks: set[asyncio.Task[None]] = set()
        self.unwritten = Unwritten(
            self._store,
            max_turns=memory.config.unwritten_turns_max,
            max_chars=memory.config.unwritten_chars_max,
        )

    def record(
        self,
        space: str,
        turns: list[Turn],
        reply: str,
        *,
        partial: bool,
        model: str | None,
        began: float,
        failed: str | None = None,
    ) -> None:
        """Schedule the recording of one exchange (its request came at ``began``, Unix time).

        A purge made since ``began``, in any process, binds what is recorded
        (``AsyncMemory.add_exchange``). ``failed`` says why the upstream gave no
        answer: the turns are kept, marked with it, and never recalled as said
        to the model; a retry that goes through is recorded as the one that counts.
        """
        if not turns and not reply:
            return
        task = asyncio.create_task(self._write(space, turns, reply, partial, model, began, failed))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def close(self) -> None:
        """Let recordings still running finish, and the kept ones be recorded (bounded)."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=RECORD_DRAIN_SECONDS)
        await self.unwritten.close(RECORD_DRAIN_SECONDS)

    async def _write(
        self,
        space: str,
        turns: list[Turn],
        reply: str,
        partial: bool,
        model: str | None,
        began: float,
        failed: str | None,
    ) -> None:
        meta: dict[str, Any] = {
            "via": "proxy",
            **({"model": model} if model else {}),
            **({"failed": failed} if failed else {}),
        }

        def cleaned() -> list[tuple[str, str, dict[str, Any]]]:
            said = [
                (turn.role, clean_text(turn.text), _with_speaker(meta, turn.speaker))
                for turn in turns
            ]
            if reply:
                said.append(("assistant", clean_text(reply), {**meta, "partial": partial}))
            return said

        size = len(reply) + sum(len(turn.text) for turn in turns)
        said = await in_thread(cleaned) if size > CLEAN_IN_THREAD_CHARS else cleaned()
        exchange = Exchange(space, said, heard_at=began, at=time.time())
        if self.unwritten.waiting:  # behind the exchanges kept before it, in order
            self.unwritten.keep(exchange)
            return
        try:
            await self._store(exchange)
        except Exception as exc:  # memory never breaks chat: keep it, or log and carry on
            if unavailable(exc):
                self.unwritten.keep(exchange, exc)
            else:
                log.warning("recording the turn in space %r failed: %s", space, exc)

    async def _store(self, exchange: Exchange) -> None:
        """Record ``exchange`` now; raises what the memory raised."""
        ids = await self._memory.add_exchange(
            exchange.said,
            exchange.space,
            heard_at=exchange.heard_at,
            at=exchange.at,
            once=exchange.unsure,
        )
        if None in ids:
            log.info(
                "%d turn(s) of space %r held a text purged while the reply was under way: "
                "not recorded",
                ids.count(None),
                exchange.space,
            )
        if self._on_recorded is not None:
            self._on_recorded()
