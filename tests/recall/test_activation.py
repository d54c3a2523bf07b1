"""Spreading activation: the fan effect damps hubs, and a toothache reaches the dentist."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.recall.activation import spread
from orma_proxy.recall.candidates import gather
from orma_proxy.recall.pipeline import activate
from orma_proxy.recall.rank import score
from orma_proxy.store import Reader, execute_fn
from tests.helpers.rawdb import raw, reading, rows
from tests.helpers.recall_store import Store, ts

WHEN = "2026-10-01T09:00:00+05:30"
LATER = "2026-11-01T10:00:00+05:30"
HUB_FAN = 60
QUERY = "Where should I go for my toothache?"


async def toothache_store(mem: AsyncMemory) -> dict[str, int]:
    """Dr. Rao (2 links) and Pune (a hub of 61 links) both named by a toothache event."""
    store = Store(mem)
    ids: dict[str, int] = {}
    rao = await store.say("My dentist is Dr. Rao in Kothrud.", WHEN)
    ids["dentist"] = await store.state(rao, "dentist", "Dr. Rao in Kothrud", links=("Dr. Rao",))
    home = await store.say("I live in Pune.", WHEN)
    ids["home"] = await store.state(home, "home_city", "Pune", links=("Pune",))
    hobby = await store.say("I play the sitar on weekends.", WHEN)
    ids["hobby"] = await store.state(hobby, "hobby", "sitar")
    friends = await store.say("Most of my school friends still live in Pune.", WHEN)
    for n in range(HUB_FAN - 1):
        await store.state(friends, "home_city", "Pune", entity=f"friend {n}", links=("Pune",))
    pain = await store.say("Last month I had a toothache after the trek near Pune.", WHEN)
    ids["event"] = await store.event(
        pain, "user had a toothache after the trek", "2026-09-20", links=("Dr. Rao", "Pune")
    )
    return ids


async def test_fan_effect_hands_a_specific_entity_s_activation_on_and_damps_a_hub(
    amem: AsyncMemory, reader: Reader
) -> None:
    ids = await toothache_store(amem)
    entities = dict(rows(amem.path, "SELECT name, id FROM entities WHERE space = 'default'"))
    config = amem.config.model_copy(update={"activation_depth": 1, "activation_base_weight": 1.0})
    with raw(amem.path) as conn:
        reached = spread(conn, "default", {entities["Dr. Rao"]: 1.0, entities["Pune"]: 1.0}, config)
    assert reached[("state", ids["dentist"])] == pytest.approx(1 / 2)  # fan(Dr. Rao) = 2
    assert reached[("state", ids["home"])] == pytest.approx(1 / (HUB_FAN + 1))  # the hub
    assert reached[("event", ids["event"])] == pytest.approx(1 / 2 + 1 / (HUB_FAN + 1))
    assert ("state", ids["hobby"]) not in reached
    # A hub over the fan limit spreads nothing at all.
    capped = config.model_copy(update={"activation_max_fan": HUB_FAN})
    with raw(amem.path) as conn:
        hub = spread(conn, "default", {entities["Pune"]: 1.0}, capped)
    assert ("state", ids["home"]) not in hub


async def test_a_second_hop_keeps_only_hop_decay_of_the_activation(
    amem: AsyncMemory, reader: Reader
) -> None:
    ids = await toothache_store(amem)
    (rao,) = rows(amem.path, "SELECT id FROM entities WHERE name = 'Dr. Rao'")
    config = amem.config.model_copy(update={"activation_depth": 2, "activation_hop_decay": 0.5})
    with raw(amem.path) as conn:
        reached = spread(conn, "default", {int(rao[0]): 1.0}, config)
    # Hop 2, halved by the hop decay: the dentist state (0.5) passes on through "user"
    # (fan 3: dentist, home, hobby), the event (0.5) through Pune (fan 61).
    hop = 0.5 * 0.5
    assert reached[("state", ids["home"])] == pytest.approx(hop / 3 + hop / (HUB_FAN + 1))
    assert reached[("state", ids["hobby"])] == pytest.approx(hop / 3)


@pytest.mark.both_backends
async def test_toothache_reaches_the_dentist_through_shared_entities(
    amem: AsyncMemory, reader: Reader
) -> None:
    ids = await toothache_store(amem)
    await amem.flush()
    now = ts(LATER)
    pool = await gather(reader, amem.embed_query, QUERY, "default", amem.config, now)
    await execute_fn(reader, lambda conn: activate(conn, pool, QUERY, "default", amem.config))
    dentist, home = pool.items[("state", ids["dentist"])], pool.items[("state", ids["home"])]
    # Both get the user's share (fan 3); Dr. Rao (fan 2) adds far more than Pune (fan 61).
    assert dentist.activation > 3 * home.activation > 0
    ranked = score(pool.items.values(), {}, now, amem.config)
    states = [c.key for c in ranked if c.key[0] == "state"]
    assert states[0] == ("state", ids["dentist"])
    block = await amem.recall(QUERY, at=LATER)
    assert block.states[0].id == ids["dentist"]  # best first
    assert "[user.dentist: Dr. Rao in Kothrud]" in block.text


async def test_without_spreading_nothing_gets_an_activation_boost(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"enable_spreading_activation": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await toothache_store(mem)
        await mem.flush()
        now = ts(LATER)
        async with reading(mem.path) as reader:
            pool = await gather(reader, mem.embed_query, QUERY, "default", config, now)
        ranked = score(pool.items.values(), {}, now, config)
    assert all("activation" not in c.boosts for c in ranked)
