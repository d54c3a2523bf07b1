"""Date phrases in English text, resolved against a day: "yesterday", "last Friday", "4 March".

``mentions(text, anchor)`` finds each phrase ``text/dates.py``'s docstring lists
and gives the stretch of days it speaks of (``Span``) and how precisely; the
date terms a line is indexed with are made from these spans there.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

__all__ = ["Span", "Unit", "day_span", "mentions", "monday_of", "query_mentions"]

Unit = Literal["day", "week", "month", "year"]


@dataclass(frozen=True)
class Span:
    """A stretch of calendar days a phrase speaks of, and how precisely it says so."""

    first: date
    last: date
    unit: Unit


_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_WEEKDAYS = {
    name: number
    for number, names in enumerate(
        (
            ("monday", "mon"),
            ("tuesday", "tue", "tues"),
            ("wednesday", "wed"),
            ("thursday", "thu", "thur", "thurs"),
            ("friday", "fri"),
            ("saturday", "sat"),
            ("sunday", "sun"),
        )
    )
    for name in names
}
_COUNTS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
}
# "a few days ago" is two to four days ago: each of them.
_VAGUE = {"a few": (2, 3, 4), "few": (2, 3, 4)}

_FULL_MONTH = "|".join(sorted((m for m in _MONTHS if len(m) > 3 or m == "may"), key=len)[::-1])
_ANY_MONTH = "|".join(sorted(_MONTHS, key=len)[::-1])
_FULL_DAY = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_COUNT = r"\d{1,2}|" + "|".join(sorted(_COUNTS, key=len)[::-1])
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d\d"

# Calendar dates, most specific first.
_ISO = re.compile(rf"\b({_YEAR})-(\d{{1,2}})-(\d{{1,2}})\b")
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}}){_ORD}(?: of)? ({_ANY_MONTH})\b\.?(?:,? ({_YEAR})\b)?", re.I
)
_MONTH_DAY = re.compile(rf"\b({_ANY_MONTH})\.? (\d{{1,2}}){_ORD}\b(?!:)(?:,? ?({_YEAR})\b)?", re.I)
_MONTH_YEAR = re.compile(rf"\b({_ANY_MONTH})\.?,? ({_YEAR})\b", re.I)
# A month or a year alone only after a word that makes it one ("in May", "since 2019").
_MONTH_ALONE = re.compile(
    rf"\b(in|early|late|mid|since|until|till|by|during|last|next|this|of|through|from|before"
    rf"|after|end of|beginning of|start of)[ -]({_FULL_MONTH})\b",
    re.I,
)
_YEAR_ALONE = re.compile(
    rf"\b(?:in|of|since|during|by|until|till|from|before|after|year|summer|winter|spring|fall"
    rf"|autumn) ({_YEAR})\b",
    re.I,
)
# "the week before 20 March 2024": a unit before or after a date given next.
_AROUND = re.compile(rf"\b(?:the )?(day|week|weekend|{_FULL_DAY}) (before|after|prior to) $", re.I)
# Relative to the day said.
_AGO = re.compile(rf"\b({_COUNT}) (day|week|weekend|month|year)s? (?:ago|back|earlier)\b", re.I)
_AHEAD = re.compile(rf"\b(?:in|within) ({_COUNT}) (day|week|month|year)s?\b(?! ago)", re.I)
_NAMED = re.compile(
    rf"\b(last|this past|past|this coming|this|next|coming) ({_FULL_DAY}|week|weekend|month"
    rf"|year|{_FULL_MONTH})\b",
    re.I,
)
_DAY_WORDS = re.compile(
    r"\b(the day before yesterday|the day after tomorrow|yesterday|last night|today|tonight"
    r"|this (?:morning|afternoon|evening)|tomorrow)\b",
    re.I,
)
_WEEKEND = re.compile(r"\b(?:over|on|at|during) the weekend\b", re.I)
_BARE_DAY = re.compile(rf"\b(?:on )?({_FULL_DAY})\b(?!s)", re.I)
_CAPITAL_DAY = re.compile(r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b")


# The words each kind of phrase needs one of (calendar dates need a digit): a line is
# only searched for the phrases it could hold, and most lines hold none.
_TOKEN = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_NEEDS_DAY_WORD = frozenset(
    ["yesterday", "today", "tonight", "tomorrow", "night", "morning", "afternoon", "evening"]
)
_NEEDS_AGO = frozenset(("ago", "back", "earlier"))
_NEEDS_AHEAD = frozenset(("in", "within"))
_NEEDS_NAMED = frozenset(("last", "past", "this", "next", "coming"))
_NEEDS_WEEKEND = frozenset(("weekend",))
_NEEDS_WEEKDAY = frozenset(_FULL_DAY.split("|"))
_NEEDS_MONTH = frozenset(_FULL_MONTH.split("|"))
_ANY_NEED = (
    _NEEDS_DAY_WORD | _NEEDS_AGO | _NEEDS_AHEAD | _NEEDS_NAMED | _NEEDS_WEEKEND
    | _NEEDS_WEEKDAY | _NEEDS_MONTH
)  # fmt: skip


def _day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _month_span(year: int, month: int) -> Span:
    first = date(year, month, 1)
    nxt = date(year + month // 12, month % 12 + 1, 1)
    return Span(first, nxt - timedelta(days=1), "month")


def _add_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def monday_of(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _week(day: date) -> Span:
    return Span(monday_of(day), monday_of(day) + timedelta(days=6), "week")


def day_span(day: date) -> Span:
    return Span(day, day, "day")


def _weekend(saturday: date) -> Span:
    return Span(saturday, saturday + timedelta(days=1), "day")


def _no_year(month: int, day: int | None, anchor: date, past: bool) -> date | None:
    """The year of a date given without one: nearest to ``anchor`` (``past``: not after it)."""
    options = []
    for year in (anchor.year - 1, anchor.year, anchor.year + 1):
        found = _day(year, month, day or 1)
        if found is not None:
            options.append(found)
    if past:
        # A month without a day counts as reached once it has begun.
        options = [d for d in options if d <= anchor]
    if not options:
        return None
    return min(options, key=lambda d: (abs((d - anchor).days), d > anchor))


def _counts(word: str) -> tuple[int, ...]:
    word = " ".join(word.lower().split())
    return (int(word),) if word.isdigit() else _VAGUE.get(word, (_COUNTS[word],))


def _shift(anchor: date, count: int, unit: str) -> Span:
    """The day, week, month or year ``count`` units from ``anchor`` (negative: before)."""
    if unit == "day":
        return day_span(anchor + timedelta(days=count))
    if unit == "week":
        return _week(anchor + timedelta(weeks=count))
    if unit == "weekend":
        saturday = monday_of(anchor) + timedelta(days=5)
        return _weekend(saturday + timedelta(weeks=count))
    if unit == "month":
        return _month_span(*_add_months(anchor, count))
    year = anchor.year + count
    return Span(date(year, 1, 1), date(year, 12, 31), "year")


def _weekday_from(anchor: date, weekday: int, step: int) -> date:
    """The nearest ``weekday`` strictly before (``step`` -1) or after (+1) ``anchor``."""
    delta = (step * (weekday - anchor.weekday())) % 7 or 7
    return anchor + timedelta(days=step * delta)


def _named(which: str, what: str, anchor: date, past: bool) -> list[Span]:
    """ "last Friday", "this week", "next month", "last May"."""
    which = " ".join(which.lower().split())
    what = what.lower()
    step = -1 if which in ("last", "this past", "past") else 1 if which != "this" else 0
    if what in _WEEKDAYS:
        wd = _WEEKDAYS[what]
        if step == 0:
            return [day_span(monday_of(anchor) + timedelta(days=wd))]
        return [day_span(_weekday_from(anchor, wd, step))]
    if what in ("week", "weekend", "month", "year"):
        return [_shift(anchor, step, what)]
    month = _MONTHS[what]
    if step == 0:
        return [_month_span(anchor.year, month)]
    year = anchor.year + (
        (-1 if month >= anchor.month else 0) if step < 0 else (1 if month <= anchor.month else 0)
    )
    return [_month_span(year, month)]


@dataclass
class _Text:
    """The text being read, with what has been read blanked out (no phrase counts twice)."""

    text: str
    words: frozenset[str] = frozenset()
    digits: bool = False

    @classmethod
    def of(cls, text: str) -> _Text:
        words = frozenset(_TOKEN.findall(text.lower()))
        return cls(text, words, _DIGIT.search(text) is not None)

    def worth(self) -> bool:
        """Whether the text could hold any phrase at all."""
        return self.digits or not self.words.isdisjoint(_ANY_NEED)

    def take(
        self, pattern: re.Pattern[str], needs: frozenset[str] | None = None
    ) -> Iterator[re.Match[str]]:
        """The pattern's matches; ``needs``: words one of which it needs (None: a digit)."""
        if not (self.digits if needs is None else not self.words.isdisjoint(needs)):
            return
        for match in list(pattern.finditer(self.text)):
            if match.group(0).strip():
                yield match

    def blank(self, match: re.Match[str]) -> None:
        start, end = match.span()
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]


def _calendar(text: _Text, anchor: date, past: bool) -> list[tuple[int, Span]]:
    """Calendar dates in the text, with where each starts."""
    found: list[tuple[int, Span]] = []

    def add(match: re.Match[str], span: Span | None) -> None:
        text.blank(match)
        if span is not None:
            found.append((match.start(), span))

    for m in text.take(_ISO):
        day = _day(int(m[1]), int(m[2]), int(m[3]))
        add(m, None if day is None else day_span(day))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for m in text.take(pattern):
            month, number = _MONTHS[m[month_group].lower()], int(m[day_group])
            day = _day(int(m[3]), month, number) if m[3] else _no_year(month, number, anchor, past)
            add(m, None if day is None else day_span(day))
    for m in text.take(_MONTH_YEAR):
        add(m, _month_span(int(m[2]), _MONTHS[m[1].lower()]))
    for m in text.take(_MONTH_ALONE, _NEEDS_MONTH):
        word, month = m[1].lower(), _MONTHS[m[2].lower()]
        if word in ("last", "next", "this"):
            continue  # relative: read with the other relative phrases
        first = _no_year(month, None, anchor, past)
        text.blank(m)
        if first is not None:
            found.append((m.start(2), _month_span(first.year, month)))
    for m in text.take(_YEAR_ALONE):
        text.blank(m)
        year = int(m[1])
        found.append((m.start(1), Span(date(year, 1, 1), date(year, 12, 31), "year")))
    return found


def _around(text: _Text, dates: list[tuple[int, Span]]) -> list[Span]:
    """ "the week before <date>": read against the date right after it."""
    spans = []
    for start, span in dates:
        if span.unit != "day":
            continue
        m = _AROUND.search(text.text[:start])
        if m is None:
            continue
        text.blank(m)
        what, step = m[1].lower(), -1 if m[2].lower() != "after" else 1
        if what in _WEEKDAYS:
            spans.append(day_span(_weekday_from(span.first, _WEEKDAYS[what], step)))
        elif what == "weekend":  # after a weekday, the weekend of its own week
            spans.append(_shift(span.first, 0 if step > 0 and span.first.weekday() < 5 else step,
                                what))  # fmt: skip
        else:
            spans.append(_shift(span.first, step, what))
    return spans


def _relative(text: _Text, anchor: date, past: bool) -> list[Span]:
    """Phrases relative to ``anchor``: "yesterday", "two weeks ago", "last Friday"."""
    spans: list[Span] = []
    for m in text.take(_DAY_WORDS, _NEEDS_DAY_WORD):
        text.blank(m)
        word = " ".join(m[1].lower().split())
        offset = {
            "the day before yesterday": -2,
            "the day after tomorrow": 2,
            "yesterday": -1,
            "last night": -1,
            "tomorrow": 1,
        }.get(word, 0)
        spans.append(day_span(anchor + timedelta(days=offset)))
    for pattern, sign, needs in ((_AGO, -1, _NEEDS_AGO), (_AHEAD, 1, _NEEDS_AHEAD)):
        for m in text.take(pattern, needs):
            text.blank(m)
            spans += [_shift(anchor, sign * n, m[2].lower()) for n in _counts(m[1])]
    for m in text.take(_NAMED, _NEEDS_NAMED):
        text.blank(m)
        spans += _named(m[1], m[2], anchor, past)
    for m in text.take(_WEEKEND, _NEEDS_WEEKEND):
        text.blank(m)
        # "over the weekend": the one just gone or the coming one; the tense decides.
        spans += [_shift(anchor, -1 if anchor.weekday() < 5 else 0, "weekend")]
        if anchor.weekday() < 5:
            spans.append(_shift(anchor, 0, "weekend"))
    for m in text.take(_BARE_DAY, _NEEDS_WEEKDAY):
        said_on = m[0].lower().startswith("on ")
        if not said_on and _CAPITAL_DAY.fullmatch(m[1]) is None:
            continue
        text.blank(m)
        wd = _WEEKDAYS[m[1].lower()]
        spans += [day_span(_weekday_from(anchor, wd, -1))]
        if not past:
            spans.append(day_span(_weekday_from(anchor, wd, 1)))
    return spans


def mentions(text: str, anchor: date, *, past: bool = False) -> list[Span]:
    """Every date phrase of ``text``, resolved against the day ``anchor``.

    ``past``: a date without a year, or a bare weekday, is the latest one not
    after ``anchor`` (a question about memory) instead of the nearest one.
    """
    reading = _Text.of(text)
    if not reading.worth():
        return []
    dates = _calendar(reading, anchor, past)
    around = _around(reading, dates)
    return [span for _, span in dates] + around + _relative(reading, anchor, past)


def query_mentions(query: str, now: date) -> tuple[list[Span], str]:
    """A query's date phrases, and the query without them.

    Relative phrases are read against the first full date the query gives ("what
    did I do the day before 3 March 2024?"), or else against ``now``; a date
    without a year is the latest one not after its anchor. What is left of the
    query is its words: "last week" there is a time, not two words to match.
    """
    reading = _Text.of(query)
    dates = _calendar(reading, now, past=True)
    days = [span.first for _, span in dates if span.unit == "day"]
    anchor = days[0] if days else now
    spans = [span for _, span in dates] + _around(reading, dates)
    spans += _relative(reading, anchor, past=True)
    return spans, reading.text
