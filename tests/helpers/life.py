"""One small life for the forgetting and portability tests: stored, slept on, looked at."""

from __future__ import annotations

import io

from orma_proxy import AsyncMemory
from orma_proxy.facts import State

PUNE = "I live in Pune."
DENTIST = "My dentist is Dr. Rao in Kothrud."
JOB = (
    "I worked at Acme Corp as a backend engineer until 2021.",
    "I quit my job at Acme last year.",
)
CAT = "We adopted a grey cat called Biscuit in March."
NOTES = (PUNE, DENTIST, *JOB, "My sister Asha lives in Delhi.", CAT)


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
