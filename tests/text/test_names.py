"""Names in text, as sleep links them and recall seeds activation from them."""

from __future__ import annotations

from orma_proxy.text.names import clean_name, names_in


def test_names_skip_capitalised_words_that_are_not_names() -> None:
    text = "Yesterday my sister Asha saw Dr. Rao in Kothrud. Then I went home."
    assert names_in(text) == ["Asha", "Dr. Rao", "Kothrud"]


def test_a_name_is_cleaned_of_spacing_and_edge_punctuation() -> None:
    assert clean_name('  "Dr.   Rao," ') == "Dr. Rao"
