"""The days a line speaks of, resolved against the day it was said, as searchable terms.

"I repaired the fence yesterday", said on 11 March 2024, is about 10 March
2024; a question naming "10 March 2024" or "March 2024" should find it, though
neither the day nor the month is among its words. Each sentence is indexed
with *date terms*: the day, week, month and year it was said, and those of
every date phrase in it, resolved against that day (``date_terms``). A query
that names a date gets the same terms (``query_date_terms``), so BM25 matches
them like words: a rare day outweighs a common month, and a line both about
the question's words and from the day it names ranks first.

Terms are single tokens the tokenizer keeps whole and no English word can be:
``d20240310`` (a day), ``w20240304`` (the Monday-to-Sunday week, by its
Monday), ``m202403`` (a month), ``y2024`` (a year). A phrase adds the terms of
its own precision and every coarser one ("yesterday": day, week, month and
year; "last month": month and year).

Phrases understood (English, no model involved): today, tonight, this
morning, yesterday, last night, the day before yesterday, tomorrow, N days /
weeks / months / years ago, in N days / weeks..., last / this / next week,
weekend, month, year or weekday ("last Friday"), a bare "on Friday" (the one
before and the one after: the tense decides, and is not read), the day / week
/ weekend / weekday before or after a date, and calendar dates: "4 March 2024",
"4th of March, 2024", "March 4, 2024", "March 2024", "2024-03-04", "in March",
"in 2024". A date without a year is the nearest such day to the day said (a
query's: the latest not after its anchor, since a memory is asked about the
past). A month name alone counts only after a preposition ("in May", not "you
may"). Days are local calendar days of the machine, as recall's "today" is.
Sleep resolves the one phrase a model copied out of a line (``sleep/clock.py``,
with ``dateparser`` for calendar dates); this module scans every line for all of
them, cheaply enough to run on each ``add()`` (~20-50 us a sentence).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache

from orma_proxy.text.date_phrases import (
    Span,
    Unit,
    day_span,
    mentions,
    monday_of,
    query_mentions,
)

__all__ = [
    "DATES_SQL_FUNCTION",
    "QueryDates",
    "Span",
    "date_terms",
    "date_terms_or_none",
    "finest_terms",
    "mentions",
    "query_date_terms",
    "query_dates",
    "span_terms",
    "terms_of_day",
]

# The SQL function's name, as migration 0012 calls it.
DATES_SQL_FUNCTION = "orma_date_terms"

_ORDER: dict[Unit, int] = {"day": 0, "week": 1, "month": 2, "year": 3}
# A span of days longer than this gives its weeks, not each of its days.
_MOST_DAYS = 14


def _days(span: Span) -> Iterator[date]:
    day = span.first
    while day <= span.last:
        yield day
        day += timedelta(days=1)


def span_terms(span: Span, coarsest: Unit = "year") -> list[str]:
    """The terms of ``span``: its own precision and each coarser one up to ``coarsest``."""
    top = _ORDER[coarsest]
    terms: dict[str, None] = {}
    days = list(_days(span)) if span.unit != "year" else [span.first, span.last]
    if span.unit == "day" and len(days) <= _MOST_DAYS:
        terms.update((f"d{d.year:04d}{d.month:02d}{d.day:02d}", None) for d in days)
    if _ORDER[span.unit] <= _ORDER["week"] <= top:
        terms.update((_week_term(d), None) for d in days)
    if _ORDER[span.unit] <= _ORDER["month"] <= top:
        terms.update((f"m{d.year:04d}{d.month:02d}", None) for d in days)
    if _ORDER["year"] <= top:
        terms.update((f"y{d.year:04d}", None) for d in days)
    return list(terms)


def _week_term(day: date) -> str:
    monday = monday_of(day)
    return f"w{monday.year:04d}{monday.month:02d}{monday.day:02d}"


@lru_cache(maxsize=4096)
def terms_of_day(day: date) -> tuple[str, ...]:
    """The terms of the day a line was said: its day, week, month and year."""
    return tuple(span_terms(day_span(day)))


def local_day(timestamp: float) -> date:
    """The machine's local calendar day of a Unix time."""
    return datetime.fromtimestamp(timestamp).date()


def date_terms(text: str, said_at: float) -> str:
    """The date terms a sentence is indexed with: when it was said, and what it says of when."""
    said = local_day(said_at)
    terms = dict.fromkeys(terms_of_day(said))
    for span in mentions(text, said):
        terms.update(dict.fromkeys(span_terms(span)))
    return " ".join(terms)


def date_terms_or_none(text: str | None, said_at: float | None) -> str:
    """``date_terms`` as the SQL function: "" for a missing text or time."""
    if text is None or said_at is None:
        return ""
    return date_terms(text, float(said_at))


@dataclass(frozen=True)
class QueryDates:
    """The date terms of a query, and the query without the phrases they came from."""

    terms: list[str]
    rest: str


def query_date_terms(query: str, now: float | None = None) -> list[str]:
    """The date terms of a query (``query_dates``)."""
    return query_dates(query, now).terms


def query_dates(query: str, now: float | None = None) -> QueryDates:
    """The date terms of a query: the dates it names, its relative phrases resolved.

    Relative phrases are read against the first full date the query gives ("what
    did I do the day before 3 March 2024?") or else against ``now``. A day or a week
    gives its month too, never its year: a year would match nearly every line.
    ``rest`` is the query without those phrases: "last week" there is a time, not
    two words to match.
    """
    now = time.time() if now is None else now
    spans, rest = query_mentions(query, local_day(now))
    terms: dict[str, None] = {}
    for span in spans:
        terms.update(dict.fromkeys(span_terms(span, "year" if span.unit == "year" else "month")))
    return QueryDates(list(terms), rest if terms else query)


def finest_terms(terms: list[str]) -> frozenset[str]:
    """The terms of the finest unit among ``terms`` (the days a query names, if any)."""
    for prefix in "dwmy":
        found = frozenset(t for t in terms if t.startswith(prefix))
        if found:
            return found
    return frozenset()
