"""A leading ``Name:`` is who said the line, not words of it."""

from __future__ import annotations

import pytest

from orma_proxy.text.speaker import leading_speaker, split_said


@pytest.mark.parametrize(
    ("line", "speaker"),
    [
        ("Asha: I moved to Pune.", "Asha"),
        ("Dr. Rao: Take it twice a day.", "Dr. Rao"),
        ("Mary Ann Lee: Hi there", "Mary Ann Lee"),
        ("Note: buy milk", None),
        ("TODO: call the bank", None),
        ("I: think so", None),
        ("See http://example.com for more", None),
        ("asha: lower case is not a name", None),
        ("Asha:no space after the colon", None),
        ("Asha:   ", None),
        ("The plan: go north", None),
    ],
)
def test_a_leading_name_is_the_speaker_a_label_is_not(line: str, speaker: str | None) -> None:
    found = leading_speaker(line)
    assert (found[0] if found else None) == speaker


def test_what_was_said_is_split_after_the_name_with_offsets_into_the_whole_line() -> None:
    line = "Asha: Wow! I paint by the lake to unwind."
    speaker, segments = split_said(line, 500)
    assert speaker == "Asha"
    assert [s.text for s in segments] == ["Wow!", "I paint by the lake to unwind."]
    assert all(line[s.start : s.start + len(s.text)] == s.text for s in segments)


def test_an_explicit_speaker_only_drops_its_own_name() -> None:
    assert split_said("Asha: hello", 500, "Asha")[1][0].text == "hello"
    speaker, segments = split_said("Ravi: hello", 500, "Asha")
    assert (speaker, segments[0].text) == ("Asha", "Ravi: hello")
    speaker, segments = split_said("hello there", 500, "Asha")
    assert (speaker, segments[0].text) == ("Asha", "hello there")
