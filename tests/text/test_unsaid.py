"""``unsaid``: the content words of a line that the facts drawn from it do not say."""

from __future__ import annotations

from orma_proxy.text import unsaid


def test_a_relation_says_the_name_not_what_the_person_does() -> None:
    line = "My brother Kabir plays the violin in the Pune symphony orchestra."
    left = unsaid(line, "user brother Kabir", ["brother"])
    assert left == ["plays", "violin", "pune", "symphony", "orchestra"]


def test_the_name_of_an_attribute_s_kind_is_said_by_it() -> None:
    assert unsaid("I live in Pune.", "user home_city Pune", ["home_city"]) == []
    assert unsaid("I work at Zoho.", "user employer Zoho", ["employer"]) == []
    # Without the attribute "live" is a word like any other.
    assert unsaid("I live in Pune.", "user home_city Pune") == ["live"]
    assert unsaid("I live in Pune.", "user employer Pune", ["employer"]) == ["live"]


def test_words_are_compared_by_stem_and_contractions_lose_their_tail() -> None:
    assert unsaid("I'm a nurse and my sister's a nurse.", "user job title nurses") == ["sister"]
    assert unsaid("Kabir's violins", "Kabir violin") == []


def test_a_negation_is_never_said_by_the_value() -> None:
    assert unsaid("I don't eat meat.", "user diet meat", ["diet"]) == ["don't"]
    assert unsaid("I never eat meat.", "user diet meat", ["diet"]) == ["never"]


def test_date_phrases_count_only_when_a_fact_carries_a_date() -> None:
    line = "I moved to Bangalore last week."
    said = "user home_city Bangalore week of 2026-11-23"
    assert unsaid(line, said, ["home_city"], dated=True) == []
    assert unsaid(line, "user home_city Bangalore", ["home_city"]) == ["last", "week"]


def test_words_for_the_present_count_only_for_a_current_state() -> None:
    line = "I live in Goa these days."
    assert unsaid(line, "user home_city Goa", ["home_city"], current=True) == []
    assert unsaid(line, "user home_city Goa", ["home_city"]) == ["days"]
    assert (
        unsaid("I now work at Quillmark.", "user employer Quillmark", ["employer"], current=True)
        == []
    )
