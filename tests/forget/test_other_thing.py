"""A line that shares a word with a description but is about another thing is never taken.

"my rabbit's grooming visit" is not the groomer's address; "my glove size" is
not "My ring size is M"; "the leaking fridge" is not the line about a squeaky
dryer however close their meanings. Asking back or saying nothing matched is
better than acting on the wrong line.
"""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from orma_proxy.forget.describe import describe
from orma_proxy.forget.rank import another_one
from tests.helpers.life import exported, stored

OTHERS = (
    "The offsite is booked for the second week of March.",
    "Lorenzo grows chillies on his balcony.",
    "Library books are due back on the 9th.",
)


async def _store(mem: AsyncMemory, *notes: str) -> None:
    await stored(mem, *OTHERS, *notes)


@pytest.mark.parametrize(
    ("said", "line", "other"),
    [
        ("my glove size", "My ring size is M", True),
        ("my glove size", "Glove size: 8", False),
        ("my rabbit's grooming visit", "Grooming salon is on Elm Road", True),
        ("my rabbit's grooming visit", "Rabbit grooming visit on Friday", False),
        ("Priya sushi food preferences", "Priya loves sushi.", False),
        ("my sister's birthday", "Meera's birthday is in May", False),  # kin: not a thing owned
    ],
)
def test_another_thing_of_the_kind_named(said: str, line: str, other: bool) -> None:
    assert another_one(said, line) is other


async def test_a_lowercase_owner_the_line_lacks_is_not_it(amem: AsyncMemory) -> None:
    await _store(amem, "Grooming salon is on Elm Road", "Hamster's grooming visit Friday 3pm")
    before = await exported(amem)
    with pytest.raises((NothingMatchedError, AmbiguousDescriptionError)):
        await amem.release("my rabbit's grooming visit")
    assert await exported(amem) == before


async def test_a_size_of_something_else_is_not_corrected(amem: AsyncMemory) -> None:
    await _store(amem, "My ring size is M", "I should call the garage about the brakes.")
    before = await exported(amem)
    with pytest.raises((NothingMatchedError, AmbiguousDescriptionError)):
        await amem.supersede("my glove size", "I'm a 9 now.")
    assert await exported(amem) == before


async def test_a_topic_no_line_words_finds_nothing_by_meaning_alone(amem: AsyncMemory) -> None:
    await _store(amem, "The tumble dryer squeaks when it spins", "Descaler is under the sink")
    before = await exported(amem)
    with pytest.raises(NothingMatchedError) as raised:
        await amem.release("the thing about the leaking fridge")
    assert await exported(amem) == before
    assert raised.value.candidates  # the closest lines, to quote the one meant


async def test_a_name_inside_an_address_still_reads_as_a_name(amem: AsyncMemory) -> None:
    await _store(amem, "Rania's email rania.k@post.example", "Rania is a pilot", "Ola is a pilot")
    result = await amem.release("everything about rania")
    assert set(result.preview) == {"Rania's email rania.k@post.example", "Rania is a pilot"}


@pytest.mark.parametrize(
    ("said", "phone"),
    [
        ("my locker number", False),
        ("the bank card number", False),
        ("my mobile number", True),
        ("Tariq's number", True),
    ],
)
def test_a_number_after_another_thing_is_that_things(said: str, phone: bool) -> None:
    assert ("phone" in describe(said).groups) is phone


async def test_a_locker_number_is_not_read_as_a_phone(amem: AsyncMemory) -> None:
    await _store(amem, "Gym locker number 214, code on the tag", "Tariq's number is 07700 900 111")
    result = await amem.release("my gym locker number")
    assert result.preview == ("Gym locker number 214, code on the tag",)
