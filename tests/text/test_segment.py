"""The sentence splitter: what ends a sentence, what doesn't, and where each one starts."""

from __future__ import annotations

import pytest

from orma_proxy.text.segment import Segment, split_sentences


def texts(text: str, max_chars: int = 480) -> list[str]:
    return [s.text for s in split_sentences(text, max_chars)]


def assert_offsets_point_into(text: str, segments: list[Segment]) -> None:
    assert [s.position for s in segments] == list(range(len(segments)))
    for s in segments:
        assert text[s.start : s.start + len(s.text)] == s.text
    assert [s.start for s in segments] == sorted(s.start for s in segments)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "My dentist is Dr. Rao. He works in Kothrud.",
            ["My dentist is Dr. Rao.", "He works in Kothrud."],
        ),
        (
            "J. R. R. Tolkien wrote it. I read it twice.",
            ["J. R. R. Tolkien wrote it.", "I read it twice."],
        ),
        (
            "Mr. and Mrs. Smith left, e.g. at noon. Then rain.",
            ["Mr. and Mrs. Smith left, e.g. at noon.", "Then rain."],
        ),
        ("Pi is 3.14 or so. Yes!", ["Pi is 3.14 or so.", "Yes!"]),
        ("Wait... really?! Yes.", ["Wait...", "really?!", "Yes."]),
        ('He said "Go home." Then he left.', ['He said "Go home."', "Then he left."]),
        ("It ended (as planned.) Good.", ["It ended (as planned.)", "Good."]),
        (
            "我的牙医是拉奥医生。他在科斯鲁德工作！你呢？",
            ["我的牙医是拉奥医生。", "他在科斯鲁德工作！", "你呢？"],
        ),
        ("他说「好。」然后走了。", ["他说「好。」", "然后走了。"]),
        (
            "first line\nsecond line\r\n\n  third line  ",
            ["first line", "second line", "third line"],
        ),
        ("A list:\n- milk\n- eggs", ["A list:", "- milk", "- eggs"]),
        ("Dr.\nRao", ["Dr.", "Rao"]),
        ("no end punctuation at all", ["no end punctuation at all"]),
        ("   \n\n  ", []),
    ],
)
def test_sentences_end_where_a_reader_would_end_them(text: str, expected: list[str]) -> None:
    segments = split_sentences(text, 480)
    assert [s.text for s in segments] == expected
    assert_offsets_point_into(text, segments)


def test_closing_quotes_and_brackets_are_never_lost() -> None:
    text = 'She wrote "done." (Twice.) 「好。」 End.'
    assert texts(text) == ['She wrote "done."', "(Twice.)", "「好。」", "End."]


def test_a_long_sentence_is_cut_at_spaces_into_pieces_no_longer_than_the_limit() -> None:
    text = "Start. " + " ".join(f"word{n}" for n in range(200)) + ". End."
    segments = split_sentences(text, 64)
    assert segments[0].text == "Start." and segments[-1].text == "End."
    middle = segments[1:-1]
    assert len(middle) > 1
    assert all(len(s.text) <= 64 for s in middle)
    assert all(not s.text.startswith(" ") and not s.text.endswith(" ") for s in middle)
    assert " ".join(s.text for s in middle) == text[len("Start. ") : -len(" End.")]
    assert_offsets_point_into(text, segments)


def test_a_long_run_without_spaces_is_cut_hard() -> None:
    text = "字" * 1000
    segments = split_sentences(text, 300)
    assert [len(s.text) for s in segments] == [300, 300, 300, 100]
    assert_offsets_point_into(text, segments)


def test_many_abbreviations_in_a_row_stay_fast_and_whole() -> None:
    text = "Dr. " * 50_000 + "Rao arrived."
    segments = split_sentences(text, 480)
    assert all(len(s.text) <= 480 for s in segments)
    assert_offsets_point_into(text, segments)
    assert segments[-1].text.endswith("Rao arrived.")


def test_no_before_a_number_is_its_sign_and_a_plain_no_still_ends() -> None:
    texts = [s.text for s in split_sentences("Passport no. K8812345 expires in 2030. Fine.", 200)]
    assert texts == ["Passport no. K8812345 expires in 2030.", "Fine."]
    assert [s.text for s in split_sentences("I said no. Then I left.", 200)] == [
        "I said no.",
        "Then I left.",
    ]
