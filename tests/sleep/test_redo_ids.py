"""``sleep --redo`` and state ids: an id a user has seen names its fact or nothing.

A redo keeps the id of each fact it reads again; a fact it does not find again
answers "no longer exists" (never another fact); a new fact takes a new id.
"""

from __future__ import annotations

import httpx
import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import InputError
from orma_proxy.sleep import SleepReport
from tests.helpers.scripted_llm import ScriptedLLM, answer

pytestmark = pytest.mark.both_backends

LINES = ["I live in Pune.", "My dentist is Dr. Rao.", "I drink black coffee every morning."]


async def sleep(mem: AsyncMemory, http: httpx.AsyncClient, **kwargs: object) -> SleepReport:
    return await mem.sleeper(http=http).sleep(**kwargs)  # type: ignore[arg-type]


async def ids(mem: AsyncMemory) -> dict[str, int]:
    return {f.text: f.id for f in await mem.facts(include_history=True)}


async def test_redo_keeps_ids_of_facts_found_again_and_retires_the_rest(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    for line in LINES:
        await smem.add(line, role="user", at=1_790_000_000)
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "home_city", "value": "Pune"},
                {"line": 2, "attribute": "dentist", "value": "Dr. Rao"},
                {"line": 3, "attribute": "drink", "value": "black coffee"},
            ]
        ),
        # The second reading: another order, the drink missed, a fact read anew.
        answer(
            states=[
                {"line": 3, "attribute": "morning_drink", "value": "black coffee"},
                {"line": 2, "attribute": "dentist", "value": "dr. rao"},
                {"line": 1, "attribute": "home_city", "value": "Pune"},
            ]
        ),
    ]
    await sleep(smem, http)
    before = await ids(smem)
    assert sorted(before) == [
        "user · dentist: Dr. Rao",
        "user · drink: black coffee",
        "user · home city: Pune",
    ]
    report = await sleep(smem, http, redo=True)
    assert report.batches == 1 and report.errors == []
    after = await ids(smem)
    assert after["user · home city: Pune"] == before["user · home city: Pune"]
    assert after["user · dentist: dr. rao"] == before["user · dentist: Dr. Rao"]  # case aside
    new = after["user · morning drink: black coffee"]
    assert new > max(before.values())  # a new fact never takes an old id
    gone = before["user · drink: black coffee"]
    with pytest.raises(InputError, match=rf"state #{gone} no longer exists.*sleep --redo"):
        await smem.forget(gone)
    with pytest.raises(InputError, match=r"no state #9999 in space"):
        await smem.forget(9999)  # never an id: not "no longer exists"
    with pytest.raises(InputError, match=rf"state #{gone} no longer exists"):
        await smem.supersede(gone, "tea")
    assert (await smem.forget(new)).id == new  # the new id names the new fact


async def test_a_new_state_never_takes_the_id_of_a_removed_one(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    """The highest id removed: SQLite without AUTOINCREMENT would hand it out again."""
    await smem.add(LINES[0], role="user", at=1_790_000_000)
    await smem.add(LINES[1], role="user", at=1_790_000_000)
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "home_city", "value": "Pune"},
                {"line": 2, "attribute": "dentist", "value": "Dr. Rao"},
            ]
        ),
        answer(states=[{"line": 1, "attribute": "home_city", "value": "Pune"}]),  # the redo
        answer(states=[{"line": 1, "attribute": "employer", "value": "Zerodha"}]),
    ]
    await sleep(smem, http)
    first = await ids(smem)
    pune, dentist = first["user · home city: Pune"], first["user · dentist: Dr. Rao"]
    assert dentist > pune
    await sleep(smem, http, redo=True)
    assert await ids(smem) == {"user · home city: Pune": pune}
    await smem.add("I work at Zerodha.", role="user", at=1_790_000_200)
    await sleep(smem, http)
    assert (await ids(smem))["user · employer: Zerodha"] > dentist
    with pytest.raises(InputError, match="no longer exists"):
        await smem.forget(dentist)


async def test_a_removed_id_stays_another_spaces_unknown(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add(LINES[0], role="user", at=1_790_000_000)
    llm.script = [answer(states=[{"line": 1, "attribute": "home_city", "value": "Pune"}]), answer()]
    await sleep(smem, http)
    (pune,) = (await ids(smem)).values()
    await sleep(smem, http, redo=True)
    with pytest.raises(InputError, match=rf"no state #{pune} in space 'other'"):
        await smem.forget(pune, space="other")
