"""Date phrases resolved against the day they were said, and the terms they are indexed as."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from orma_proxy.text.dates import (
    Span,
    date_terms,
    finest_terms,
    mentions,
    query_date_terms,
    span_terms,
)

# A Monday.
SAID = date(2024, 3, 11)


def days(text: str, said: date = SAID, *, past: bool = False) -> list[str]:
    """Each span as "2024-03-10" (one day) or "2024-03-04..2024-03-10 week"."""
    return [
        s.first.isoformat()
        if (s.first, s.unit) == (s.last, "day")
        else f"{s.first.isoformat()}..{s.last.isoformat()} {s.unit}"
        for s in mentions(text, said, past=past)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I fixed the bike yesterday.", ["2024-03-10"]),
        ("We baked bread today", ["2024-03-11"]),
        ("The day before yesterday it rained", ["2024-03-09"]),
        ("See you tomorrow!", ["2024-03-12"]),
        ("Last night the power went out", ["2024-03-10"]),
        ("I started 3 days ago", ["2024-03-08"]),
        ("two weeks ago I moved", ["2024-02-26..2024-03-03 week"]),
        ("a month ago", ["2024-02-01..2024-02-29 month"]),
        ("five years ago", ["2019-01-01..2019-12-31 year"]),
        ("in two days we fly", ["2024-03-13"]),
        ("last week was busy", ["2024-03-04..2024-03-10 week"]),
        ("next week", ["2024-03-18..2024-03-24 week"]),
        ("this month", ["2024-03-01..2024-03-31 month"]),
        ("last year", ["2023-01-01..2023-12-31 year"]),
        ("last weekend we hiked", ["2024-03-09..2024-03-10 day"]),
        ("this weekend", ["2024-03-16..2024-03-17 day"]),
        ("last Friday", ["2024-03-08"]),
        ("next Wednesday", ["2024-03-13"]),
        # A bare weekday: the one before or the one after (the tense is not read).
        ("on Saturday we swam", ["2024-03-09", "2024-03-16"]),
        ("the exam was on 4 March 2024", ["2024-03-04"]),
        ("4th of March, 2024", ["2024-03-04"]),
        ("March 4, 2024", ["2024-03-04"]),
        ("Mar 4th 2024", ["2024-03-04"]),
        ("2024-03-04", ["2024-03-04"]),
        ("in February 2023", ["2023-02-01..2023-02-28 month"]),
        ("since 2019", ["2019-01-01..2019-12-31 year"]),
        # No year: the nearest such date to the day said.
        ("on 20 December", ["2023-12-20"]),
        ("in May", ["2024-05-01..2024-05-31 month"]),
        ("last May", ["2023-05-01..2023-05-31 month"]),
        ("the week before 20 March 2024", ["2024-03-20", "2024-03-11..2024-03-17 week"]),
        ("the Sunday before 20 March 2024", ["2024-03-20", "2024-03-17"]),
    ],
)  # fmt: skip
def test_phrases_resolve_against_the_day_said(text: str, expected: list[str]) -> None:
    assert days(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "You may go now",
        "May I ask something?",
        "I ran 2000 metres",
        "We march on",
        "Fridays are for pizza",
        "years ago, far away",
        "Mostly sunny",
    ],
)
def test_words_that_only_look_like_dates_are_not_dates(text: str) -> None:
    assert days(text) == []


def test_a_question_reads_dates_without_a_year_as_past() -> None:
    assert days("in May", past=True) == ["2023-05-01..2023-05-31 month"]
    assert days("on Saturday", past=True) == ["2024-03-09"]


def test_terms_name_the_day_its_week_month_and_year() -> None:
    assert span_terms(Span(date(2024, 3, 10), date(2024, 3, 10), "day")) == [
        "d20240310",
        "w20240304",
        "m202403",
        "y2024",
    ]
    assert span_terms(Span(date(2024, 2, 1), date(2024, 2, 29), "month")) == ["m202402", "y2024"]
    assert span_terms(Span(date(2024, 3, 4), date(2024, 3, 10), "week"), "month") == [
        "w20240304",
        "m202403",
    ]


def test_a_sentence_is_indexed_with_when_it_was_said_and_what_it_says_of_when() -> None:
    said_at = datetime(2024, 3, 11, 9, 30).timestamp()
    assert date_terms("I fixed the bike yesterday.", said_at).split() == [
        "d20240311",
        "w20240311",
        "m202403",
        "y2024",
        "d20240310",
        "w20240304",
    ]
    assert date_terms("Nothing about time here.", said_at).split() == [
        "d20240311",
        "w20240311",
        "m202403",
        "y2024",
    ]


def test_a_query_names_its_dates_and_reads_relative_ones_from_the_date_it_gives() -> None:
    now = datetime(2025, 1, 15, 12, 0).timestamp()
    assert query_date_terms("What happened on 10 March 2024?", now) == [
        "d20240310",
        "w20240304",
        "m202403",
    ]
    assert query_date_terms("What did I cook in March 2024?", now) == ["m202403"]
    assert query_date_terms("Anything in 2023?", now) == ["y2023"]
    # "last weekend" is read from the date the question gives, not from today.
    assert query_date_terms("What did I do last weekend before 11 March 2024?", now) == [
        "d20240311",
        "w20240311",
        "m202403",
        "d20240309",
        "d20240310",
        "w20240304",
    ]
    # Without a date, from now.
    assert query_date_terms("What did I do yesterday?", now) == [
        "d20250114",
        "w20250113",
        "m202501",
    ]
    assert query_date_terms("What is my sister's name?", now) == []


def test_the_finest_terms_are_the_days_if_any() -> None:
    assert finest_terms(["d20240310", "w20240304", "m202403"]) == {"d20240310"}
    assert finest_terms(["m202403", "y2024"]) == {"m202403"}
    assert finest_terms([]) == frozenset()
