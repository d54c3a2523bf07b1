"""The fitted choice: a likely line alone is taken, two likely ones are asked back, none is nothing.

The mechanism is checked with a choice written here (one weight on meaning); the
fitted one shipped in ``choice.json`` must load, answer the same shapes, and find a
line said in other words (our own sentences: the development sets measure it).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest

from orma_proxy import AsyncMemory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError
from orma_proxy.forget import choice as choice_module
from orma_proxy.forget.choice import FEATURES, Choice, load_choice
from orma_proxy.store import StoredLine
from tests.helpers.life import stored


def _line(i: int, text: str) -> StoredLine:
    return StoredLine(i, i, 0, text, "user", None, 0.0, False, None)


def _rows(*z: float) -> np.ndarray:
    rows = np.zeros((len(z), len(FEATURES)))
    rows[:, FEATURES.index("z")] = z
    return rows


# P(meant) = sigmoid(z - 3): z 3 is an even chance, z 6 near certain, z 0 unlikely.
ON_MEANING = Choice(
    mean=(0.0,) * len(FEATURES),
    scale=(1.0,) * len(FEATURES),
    weights=tuple(1.0 if f == "z" else 0.0 for f in FEATURES),
    bias=-3.0,
    take=0.6,
    ask=0.3,
)
LINES = [_line(1, "Ines walks her dog at dawn."), _line(2, "Ines repairs old radios.")]


def test_a_likely_line_with_no_likely_rival_is_taken() -> None:
    assert ON_MEANING.decide("Ines's hobby", LINES, _rows(1.0, 6.0)) == [LINES[1]]


def test_two_likely_lines_are_asked_back_with_both() -> None:
    with pytest.raises(AmbiguousDescriptionError) as raised:
        ON_MEANING.decide("Ines's hobby", LINES, _rows(6.0, 5.0))
    assert raised.value.candidates == [LINES[0].text, LINES[1].text]
    with pytest.raises(AmbiguousDescriptionError):  # both plausible, neither likely enough
        ON_MEANING.decide("Ines's hobby", LINES, _rows(3.2, 3.1))


def test_no_likely_line_is_nothing_and_no_line_is_nothing() -> None:
    assert ON_MEANING.decide("Ines's hobby", LINES, _rows(2.0, 1.0)) == []
    assert ON_MEANING.decide("Ines's hobby", [], _rows()) == []


def test_the_shipped_choice_loads_and_favours_the_line_that_stands_out() -> None:
    shipped = load_choice()
    assert 0.0 < shipped.take < 1.0 and 0.0 < shipped.ask < 1.0
    rows = np.zeros((2, len(FEATURES)))
    for feature, typical, standing_out in (
        ("z", 0.0, 8.0),
        ("lead", -8.0, 8.0),
        ("cosine", 0.1, 0.6),
    ):
        rows[:, FEATURES.index(feature)] = (typical, standing_out)
    rows[:, FEATURES.index("words")] = 1.0
    rows[:, FEATURES.index("many")] = np.log(2)
    p = shipped.chances(rows)
    assert p[1] > shipped.take > p[0]
    assert shipped.decide("Ines's hobby", LINES, rows) == [LINES[1]]


def test_a_choice_fitted_on_other_features_is_refused() -> None:
    raw = json.loads(
        resources.files("orma_proxy.forget").joinpath("choice.json").read_text("utf-8")
    )
    assert raw["features"] == list(FEATURES)
    raw["features"] = [*FEATURES, "something else"]
    with pytest.raises(ValueError, match="fitted on"):
        choice_module.parsed(raw)


async def test_a_line_in_other_words_is_found_where_no_word_is_shared(amem: AsyncMemory) -> None:
    await stored(
        amem,
        "The offsite is booked for the second week of March.",
        "Lorenzo grows chillies on his balcony.",
        "Library books are due back on the 9th.",
        "I get my hair trimmed at Blade & Co on Fridays.",
        "My supervisor at work is Greta.",
        "The car needs new wiper blades.",
        "Haruki teaches pottery on Saturdays.",
    )
    barber = await amem.release("my barber", dry_run=True)
    assert barber.preview == ("I get my hair trimmed at Blade & Co on Fridays.",)
    boss = await amem.supersede("my boss", "My supervisor at work is Tomasz now.")
    assert boss.preview == ("My supervisor at work is Greta.",)
    with pytest.raises(NothingMatchedError):  # nothing near it: no line is taken
        await amem.purge("the quarterly tax return I filed", dry_run=True)
