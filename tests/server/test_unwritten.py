"""Exchanges the database refused: kept in order, bounded, recorded once it is back, never twice."""

from __future__ import annotations

import time

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import DatabaseUnavailableError, InputError, UnsureWriteError
from orma_proxy.server.unwritten import Exchange, Unwritten
from tests.helpers.rawdb import rows


def exchange(n: int, text: str = "") -> Exchange:
    return Exchange("s", [("user", text or f"turn {n}", {})], heard_at=0.0, at=float(n))


async def test_kept_exchanges_are_bounded_then_recorded_in_order_once_writes_work() -> None:
    written: list[str] = []
    refusing = True

    async def write(kept: Exchange) -> None:
        if refusing:
            raise DatabaseUnavailableError("the server is down")
        written.append(kept.said[0][1])

    unwritten = Unwritten(write, max_turns=3, max_chars=100)
    down = DatabaseUnavailableError("the server is down")
    for n in range(4):  # the fourth is past max_turns
        unwritten.keep(exchange(n), down)
    unwritten.keep(exchange(9, "x" * 95), down)  # past max_chars
    assert (unwritten.waiting, unwritten.dropped) == (3, 2)
    refusing = False
    await unwritten.close(10.0)
    assert written == ["turn 0", "turn 1", "turn 2"] and unwritten.waiting == 0


async def test_an_exchange_the_write_itself_refuses_is_dropped_not_retried_forever() -> None:
    tries = 0

    async def write(kept: Exchange) -> None:
        nonlocal tries
        tries += 1
        raise InputError("not storable")

    unwritten = Unwritten(write, max_turns=10, max_chars=1000)
    unwritten.keep(exchange(0), DatabaseUnavailableError("down"))
    await unwritten.close(5.0)
    assert tries == 1 and unwritten.waiting == 0


async def test_a_commit_cut_off_makes_every_retry_look_for_the_first_try() -> None:
    seen: list[bool] = []

    async def write(kept: Exchange) -> None:
        seen.append(kept.unsure)
        if len(seen) == 1:
            raise DatabaseUnavailableError("still down")

    unwritten = Unwritten(write, max_turns=10, max_chars=1000)
    unwritten.keep(exchange(0), UnsureWriteError("the connection broke during COMMIT"))
    await unwritten.close(10.0)
    assert seen == [True, True]


@pytest.mark.both_backends
async def test_a_retry_after_an_unsure_commit_finds_the_turns_the_first_try_stored(
    amem: AsyncMemory,
) -> None:
    turns = [("user", "My bike is the green one.", {}), ("assistant", "Noted.", {})]
    at = time.time()
    first = await amem.add_exchange(turns, "default", heard_at=at, at=at)
    again = await amem.add_exchange(turns, "default", heard_at=at, at=at, once=True)
    assert again == first
    assert rows(amem.location, "SELECT count(*) FROM episodes") == [(2,)]
    # Not found at that time (the first try stored nothing): stored now.
    fresh = await amem.add_exchange(turns, "default", heard_at=at, at=at + 1, once=True)
    assert None not in fresh and set(fresh).isdisjoint(first)
