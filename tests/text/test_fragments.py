"""A value says something by itself: no word pointing elsewhere, no empty lead-in (issue 27)."""

from __future__ import annotations

import pytest

from orma_proxy.text import felt, lead_in, unresolved


@pytest.mark.parametrize(
    "value",
    [
        "I had a wonderful week there",
        "I began teaching here",
        "I figured that out",
        "I learned that the hard way",
        "We sold a few more",
        "I bought another one",
        "we go a couple of times a month",
        "My cousins and I finally went",
        "I fixed it",
        "I loved those",
        # Which dogs, which picture: the line's listener knows, the fact's reader does not.
        "to build a home for these dogs",
        "I took this photo at the harbour",
        "I framed that old snap of the orchard",
    ],
)
def test_a_value_leaning_on_something_outside_it(value: str) -> None:
    assert unresolved(value) is not None


@pytest.mark.parametrize(
    "value",
    [
        "I painted that old lighthouse",
        "I heard that the bakery closed",
        "I had a hard exam that left me drained",
        "I submitted three more poems",
        "There is a market on Fridays",
        "I went hiking and got lost near the ridge",
        "I have a dentist appointment coming up",
        'watch "Brief Encounter"',  # a quotation whole
        "play CS:GO",  # a name with "GO" in it, not the verb
    ],
)
def test_a_value_whole_in_itself(value: str) -> None:
    assert unresolved(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "I had a setback",
        "We had a great time",
        "I had a rough game",
        "I had a moment that made me rethink my priorities",
        "It was a really fun day",
        # With whom, against whom, on the way where: circumstances, not what it was.
        "I had a brilliant day out with the crew",
        "I had a weird incident on the way to the market",
        "We had a tough battle against a strong side",
    ],
)
def test_an_empty_lead_in(value: str) -> None:
    assert lead_in(value)


@pytest.mark.parametrize(
    "value",
    [
        "We had a great time at the lantern festival",
        "I had a hard exam",
        "I graduated",
        "I had a great day out with Priya",  # a name says who
        "I had a picnic with my neighbours",
    ],
)
def test_a_lead_in_with_content(value: str) -> None:
    assert not lead_in(value)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("look forward to the harvest festival", True),
        ("I can't wait to see the new stadium", True),
        ("I am hoping to visit the glass museum", True),
        ("We are thinking about renting a canal boat", True),
        ("I will always remember the ferry ride", True),
        ("I feel like baking", True),
        ("I joined a choir that gives me hope", False),
        ("I visited the glass museum", False),
    ],
)
def test_a_feeling_towards_something(phrase: str, expected: bool) -> None:
    assert felt(phrase) is expected


def test_a_cut_quotation_is_no_value() -> None:
    assert unresolved('watch "Brief') is not None
