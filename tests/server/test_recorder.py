"""The proxy's recorder: turns stored in the background, and purges that outlive a stream."""

from __future__ import annotations

import time

from orma_proxy import AsyncMemory
from orma_proxy.memory.messages import Turn
from orma_proxy.server.capture import Recorder

SECRET = "My locker code is 88415."


async def _texts(mem: AsyncMemory) -> list[str]:
    rows = await mem._opened().reader.execute_fetchall("SELECT text FROM episodes ORDER BY id")
    return [str(r[0]) for r in rows]


async def test_a_reply_streaming_during_a_purge_is_purged_when_recorded(
    amem: AsyncMemory,
) -> None:
    recorder = Recorder(amem)
    began = time.monotonic()  # the chat started, its reply is still streaming...
    recorder.purged("default", "88415")  # ...when the user purges the code
    turns = [Turn("user", SECRET)]
    recorder.record("default", turns, "Noted: 88415.", partial=False, model=None, began=began)
    await recorder.settle()
    assert not any("88415" in text for text in await _texts(amem))


async def test_a_chat_begun_after_a_purge_is_recorded_whole(amem: AsyncMemory) -> None:
    """Saying it again after the purge is a new statement: it is kept."""
    recorder = Recorder(amem)
    recorder.purged("default", "88415")
    began = time.monotonic()
    recorder.record(
        "default", [Turn("user", SECRET)], "Noted.", partial=False, model=None, began=began
    )
    await recorder.settle()
    assert await _texts(amem) == [SECRET, "Noted."]


async def test_a_purge_in_another_space_leaves_this_one_alone(amem: AsyncMemory) -> None:
    recorder = Recorder(amem)
    began = time.monotonic()
    recorder.purged("bob", "88415")
    recorder.record("default", [Turn("user", SECRET)], "", partial=False, model=None, began=began)
    await recorder.settle()
    assert await _texts(amem) == [SECRET]
