"""The per-space noise floor: computed once a space is big enough, refreshed as it grows,
and vector hits under it carry no weight."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from tests.helpers.rawdb import raw

# One space about food: its sentences are related to each other, so a random pair
# is about as similar as a query about food, and far more than a query about GPUs.
FOOD = [
    "I baked sourdough bread this morning.",
    "My grandmother makes the best apple pie.",
    "We grilled salmon with lemon for dinner.",
    "The pasta needs more garlic and basil.",
    "She ordered a bowl of spicy ramen.",
    "Fresh tomatoes make a great salad.",
    "He drinks black coffee every morning.",
    "The chocolate cake was too sweet.",
    "We had pancakes with maple syrup.",
    "The soup simmered for three hours.",
    "I chopped onions for the curry.",
    "They roasted a chicken with rosemary.",
    "The cheese platter had brie and cheddar.",
    "Our pizza came with extra mushrooms.",
    "I prefer green tea over coffee.",
    "The stew was rich with beef and carrots.",
    "She fried rice with eggs and scallions.",
    "We picked strawberries for jam.",
    "The bakery sells warm croissants.",
    "He seasoned the steak with pepper.",
    "Lentil soup is cheap and filling.",
    "I made guacamole with ripe avocados.",
    "The dumplings were filled with pork.",
    "Vanilla ice cream melts quickly in summer.",
    "We shared a plate of sushi rolls.",
    "The omelette had spinach and feta.",
    "Grandpa smokes brisket on weekends.",
    "I love oatmeal with blueberries.",
    "The tacos had grilled fish and lime.",
    "Homemade lemonade is very refreshing.",
    "The waffles came with whipped cream.",
    "She bakes banana bread on Sundays.",
    "We ate mango slices at the beach.",
    "The noodles were tossed in peanut sauce.",
    "He makes paneer tikka for guests.",
    "The bagels were toasted with butter.",
    "I sprinkled cinnamon on the porridge.",
    "The barbecue ribs were sticky and sweet.",
]
UNRELATED = "kernel panic after upgrading the GPU driver"


def floor_row(amem: AsyncMemory) -> tuple[float, int, float] | None:
    with raw(amem.location) as conn:
        row = conn.execute(
            "SELECT noise_floor, sampled_count, updated_at FROM space_stats WHERE space = 'food'"
        ).fetchone()
    return None if row is None else (float(row[0]), int(row[1]), float(row[2]))


async def add_food(amem: AsyncMemory, sentences: list[str]) -> None:
    for sentence in sentences:
        await amem.add(sentence, space="food")
    await amem.flush()


@pytest.mark.both_backends
async def test_the_floor_appears_with_enough_sentences_and_follows_growth(
    amem: AsyncMemory,
) -> None:
    assert amem.config.noise_floor_min_sentences == 24
    assert amem.config.noise_floor_regrow == 1.25
    await add_food(amem, FOOD[:23])
    assert floor_row(amem) is None  # too few sentences to say what chance looks like

    await add_food(amem, FOOD[23:30])
    first = floor_row(amem)
    assert first is not None and first[1] == 30
    assert 0.0 < first[0] < 1.0

    await add_food(amem, FOOD[30:35])  # 35 < 30 * 1.25: not worth a new sample
    assert floor_row(amem) == first

    await add_food(amem, FOOD[35:38])  # 38 >= 37.5: sampled again
    second = floor_row(amem)
    assert second is not None and second[1] == 38 and second[2] > first[2]


@pytest.mark.both_backends
async def test_vector_hits_under_the_floor_carry_no_weight(amem: AsyncMemory) -> None:
    await add_food(amem, FOOD[:30])
    amem.config.enable_semantic = False
    assert (await amem.search(UNRELATED, space="food")).passages == []  # no shared words

    amem.config.enable_semantic = True
    assert (await amem.search(UNRELATED, space="food")).passages == []  # all under the floor

    amem.config.enable_similarity_weighting = False
    unweighted = await amem.search(UNRELATED, space="food", k=5)
    assert len(unweighted.passages) == 5  # without the floor, noise would have come back

    amem.config.enable_similarity_weighting = True
    related = await amem.search("what did we cook for dinner?", space="food", k=5)
    assert related.passages  # a real match is above the floor


@pytest.mark.both_backends
async def test_the_embedded_count_follows_every_write_path(amem: AsyncMemory) -> None:
    """The floor check reads a trigger-kept count; it must equal a real count after
    adds, indexing, a second space, a purge and a full re-embed."""

    def counts() -> tuple[dict[str, int], dict[str, int]]:
        with raw(amem.location) as conn:
            kept = dict(conn.execute("SELECT space, embedded FROM space_counts").fetchall())
            real = dict(
                conn.execute(
                    "SELECT space, count(*) FROM sentences WHERE embedded = 1 GROUP BY space"
                ).fetchall()
            )
        return {k: v for k, v in kept.items() if v}, real

    first = await amem.add(" ".join(FOOD[:6]))
    await amem.add(" ".join(FOOD[6:9]), space="bob")
    await amem.flush()
    kept, real = counts()
    assert kept == real == {"default": 6, "bob": 3}
    await amem.purge([first])
    kept, real = counts()
    assert kept == real == {"bob": 3}
    await amem.rebuild()
    await amem.flush()
    kept, real = counts()
    assert kept == real == {"bob": 3}
