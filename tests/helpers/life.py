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
UNICODE = '我住在东京。 Ich heiße Jürgen 🙂 and I say "hi"\\ a lot.\nTabs\there.'


async def remember(mem: AsyncMemory, *, space: str = "default") -> dict[str, int]:
    """Store ``NOTES``, embed them and consolidate; returns each note's episode id."""
    ids = {note: await mem.add(note, space=space) for note in NOTES}
    await mem.flush()
    await mem.sleep(space)
    return ids


async def stored(mem: AsyncMemory, *notes: str) -> None:
    """Add ``notes`` as they are and embed them: a space a test then describes lines in."""
    for note in notes:
        await mem.add(note)
    await mem.flush()


async def lived(mem: AsyncMemory) -> None:
    """A memory with every kind of record: spaces, sleep, corrections, releases, a purge."""
    await remember(mem)
    await remember(mem, space="work")
    await mem.add(UNICODE, space="work", role="user", metadata={"kind": "décision", "n": 1.5})
    await mem.supersede("Pune", "Bangalore")
    released = await mem.release("my old job")
    await mem.unrelease(released.release_id or 0)
    await mem.release("my dentist", space="work")
    await mem.add("Temporary password: hunter2hunter2.")
    await mem.purge("hunter2hunter2")


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
