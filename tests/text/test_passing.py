"""What is true only when said: a feeling, hunger, the weather, a reaction."""

from __future__ import annotations

import pytest

from orma_proxy.text.lasting import passing


@pytest.mark.parametrize(
    ("attribute", "value", "sentence"),
    [
        ("status", "starving", "Ugh, I'm starving at the moment."),
        ("energy", "tired", "I feel so tired today."),
        ("slept", "on the sofa", "He fell asleep on the sofa."),
        ("weather", "lovely", "The weather is lovely here today."),
        ("sky", "cloudy", "It's cloudy and grey outside."),
        ("mood", "cheerful", "Feeling cheerful after that walk."),
        ("how_am_i", "not bad", "Not bad, thanks."),
        ("opinion", "the pun is awful", "Wow, that's awful."),
        ("review", "great", "This is really great!"),
        ("dislikes", "not being on the boat", "I hate not being on the boat."),
        ("dislikes", "not having my tools", "I can't stand not having my tools."),
    ],
)
def test_a_state_of_the_moment_is_passing(attribute: str, value: str, sentence: str) -> None:
    assert passing(attribute, value, sentence) is not None


@pytest.mark.parametrize(
    ("attribute", "value", "sentence"),
    [
        ("sleep", "falls asleep quickly", "I fall asleep quickly since I stopped coffee."),
        ("energy", "tired after lunch", "I'm always tired after lunch."),
        ("likes", "rainy days", "I love rainy days."),
        ("climate", "mild", "Lisbon winters are usually mild and wet."),
        ("german_level", "pretty good", "My German is pretty good."),
        ("home_city", "Utrecht", "It's Utrecht now."),
        ("diet", "vegan", "I'm vegan."),
        ("hobby", "cycling", "I go cycling on Sundays."),
    ],
)
def test_a_lasting_state_is_not_passing(attribute: str, value: str, sentence: str) -> None:
    assert passing(attribute, value, sentence) is None
