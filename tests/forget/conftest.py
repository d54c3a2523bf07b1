"""Shared pieces for the forgetting and portability tests: one small life, stored and slept on."""

from __future__ import annotations

import io

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.facts import State
from tests.server.serving import free_port

PUNE = "I live in Pune."
DENTIST = "My dentist is Dr. Rao in Kothrud."
JOB = (
    "I worked at Acme Corp as a backend engineer until 2021.",
    "I quit my job at Acme last year.",
)
CAT = "We adopted a grey cat called Biscuit in March."
NOTES = (PUNE, DENTIST, *JOB, "My sister Asha lives in Delhi.", CAT)


@pytest.fixture
def config(config: OrmaConfig) -> OrmaConfig:
    """Sleep asks a port nothing listens on, so the rule-based extractor makes the states."""
    return config.model_copy(update={"upstream": f"http://127.0.0.1:{free_port()}/v1"})


async def remember(mem: AsyncMemory, *, space: str = "default") -> dict[str, int]:
    """Store ``NOTES``, embed them and consolidate; returns each note's episode id."""
    ids = {note: await mem.add(note, space=space) for note in NOTES}
    await mem.flush()
    await mem.sleep(space)
    return ids


async def exported(mem: AsyncMemory, space: str | None = None) -> str:
    """The whole export as one string."""
    out = io.StringIO()
    await mem.export_jsonl(out, space)
    return out.getvalue()


async def shown(mem: AsyncMemory, query: str, space: str = "default") -> list[str]:
    """Every text recall and search give back for ``query``: the block, top-10 passages, states."""
    found = await mem.search(query, space=space, k=10)
    block = await mem.recall(query, space)
    states = [s.text for s in found.states if isinstance(s, State)]
    return [block.text, *(p.text for p in found.passages), *states]
