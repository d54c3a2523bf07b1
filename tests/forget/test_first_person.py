"""The user's own descriptions ("my diet") are cut to candidate lines in SQL before judging.

The cut must keep every line the rules would choose: a first person in any
spelling the rules read ("(i)", "ME", a dotless i), and nothing else.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory

pytestmark = pytest.mark.both_backends

MINE = (
    "I'm cooking dinner tonight.",
    "(i) eat vegan food now.",
    "LUNCH with me at one.",
    "My sister's lunch was late.",
    "\u0131 had lunch at noon.",  # Python's case-blind "i" matches a dotless i
)
OTHERS = (
    "Tanvi cooks dinner every day.",
    "I prefer Python over Go for scripting.",
    "Lunchtime traffic is bad.",
)


async def test_my_diet_finds_every_first_person_line_about_food(amem: AsyncMemory) -> None:
    for text in (*MINE, *OTHERS):
        await amem.add(text)
    dry = await amem.release("my diet", dry_run=True)
    assert set(dry.preview) == set(MINE)
