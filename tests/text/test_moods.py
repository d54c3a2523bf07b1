"""What a sentence does: only a statement asserts a fact sleep may store."""

from __future__ import annotations

import pytest

from orma_proxy.text.moods import mood, sought, unasserted


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I keep my bike in the hallway.", "statement"),
        ("When I have a cold, I drink lemon water instead.", "statement"),
        ("If it snows, I take the tram.", "statement"),  # a habit under a condition
        ("I rent a flat in Delft, what about you?", "statement"),
        ("Always reply in British English.", "statement"),
        ("I rent a flat in Delft, maybe I'll buy one next year.", "statement"),
        ("I work in Delft, but if the offer comes I would move.", "statement"),
        ("I'd move to Oslo if they paid more.", "hypothetical"),
        ("Never share my calendar with anyone.", "statement"),
        ("Which bike lock is the safest?", "question"),
        ("How do I renew a passport", "question"),
        ("Could you check my cover letter?", "question"),
        ("And in the winter?", "question"),
        ("When is the next train to Leiden?", "question"),
        ("Write me a limerick about otters.", "request"),
        ("Please suggest a name for my blog.", "request"),
        ("I think the leak is in the cache layer.", "guess"),
        ("Maybe the certificate expired.", "guess"),
        ("I might be lactose intolerant, not sure.", "guess"),
        ("A tabby, I think.", "guess"),
        ("If I moved to Oslo, would I need a car?", "hypothetical"),
        ("What if I switched to night shifts?", "hypothetical"),
        ("If I get the grant, I will move to Leiden.", "hypothetical"),
        ("My neighbour says I should get solar panels.", "reported"),
        ("My brother thinks I should learn to drive.", "reported"),
        ("Ingrid told me she is moving to Bergen.", "reported"),
        ("According to my dentist, I grind my teeth.", "reported"),
        ("I wish I lived in Kyoto.", "wish"),
        ("I'd love to own a sailboat someday.", "wish"),
        ("Someday I will open a bakery.", "wish"),
    ],
)
def test_mood_of_a_sentence(sentence: str, expected: str) -> None:
    assert mood(sentence) == expected


def test_only_statements_assert() -> None:
    assert unasserted("I rent a flat in Delft.") is None
    assert unasserted("Do you know a good locksmith?") == "the line asks a question"
    assert unasserted("I guess the printer is broken.") == "the line is a guess"


@pytest.mark.parametrize(
    ("value", "sentence", "expected"),
    [
        ("data analyst", "I'm applying for data analyst jobs this month.", True),
        ("Utrecht", "We're hunting for a bigger flat in Utrecht.", True),
        ("Northwind", "I work at Northwind but I'm looking for something new.", False),
        ("Delft", "I moved to Delft, looking for a bike now.", False),
        ("short replies", "My manager wants short replies.", False),  # a preference
        ("QA analyst", "I work as a QA analyst.", False),
    ],
)
def test_a_value_looked_for_is_wanted_not_had(value: str, sentence: str, expected: bool) -> None:
    assert sought(value, sentence) is expected
