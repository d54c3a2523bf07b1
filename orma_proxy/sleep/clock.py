"""Date phrases resolved against the moment a line was said, by code, never by the model.

Small models get "last Saturday" wrong most of the time, so sleep asks them
only to copy the phrase; this module turns it into a date in the configured
timezone. Relative phrases (yesterday, last/next/this <weekday>, last week,
N days ago...) follow our own rules, where ``dateparser`` is ambiguous (it reads
"last week" as exactly seven days back and ignores tense); absolute dates
("3 May", "May 2025", "2019") go through ``dateparser`` with the said-at moment
as its base, and keep their precision (a month-only date is not a day).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orma_proxy.errors import ConfigError

Precision = Literal["day", "week", "month", "year"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "couple of": 2, "a couple of": 2,
}  # fmt: skip
_DAYS_PER_WEEK = 7
_MONTHS_PER_YEAR = 12
_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
# A month by its name alone, capitalised ("in June", never "you may").
_MONTH_NAMES = (
    r"January|February|March|April|May|June|July|August|September|October|November|December"
)
_MONTH_NUMBERS = {name[:3].lower(): n for n, name in enumerate(_MONTH_NAMES.split("|"), start=1)}
_NUM = r"(?:\d+|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + ")"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_PAST = re.compile(
    r"\b(?:was|were|been|had|did|went|gave|got|made|took|came|saw|met|fell|broke|bought|sold|left|"
    r"ran|won|lost|began|became|found|wrote|spent|sent|built|drove|flew|ate|drank|told|said|"
    r"paid|heard|kept|felt|taught|caught|brought|chose|forgot|spoke|grew|knew|slept|sat|"
    r"stood|ago|last|yesterday|\w+ed)\b",
    re.IGNORECASE,
)
_EVERY = re.compile(r"\b(?:every|each)\s+(?:other\s+)?$", re.IGNORECASE)
_COPULA = re.compile(r"\b(?:is|are|am)\b|['\u2019](?:s|re|m)\b", re.IGNORECASE)
_FUTURE = re.compile(
    r"\b(will|shall|going to|gonna|plan(?:ning)? to|planned|scheduled|next|tomorrow|upcoming|"
    r"coming|soon|'ll)\b"
    # "I have a dentist appointment on Friday": something one has, on a day, is ahead.
    r"|\b(?:i|we)\s+(?:have|'ve got|have got)\s+(?:a|an|my|our|the)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ResolvedDate:
    """A calendar date, how exact it is, and the phrase it came from."""

    date: date
    precision: Precision
    phrase: str

    def label(self) -> str:
        """Human form: '2026-10-17', 'week of 2026-10-12', '2026-05', '2019'."""
        if self.precision == "week":
            return f"week of {self.date.isoformat()}"
        if self.precision == "month":
            return self.date.strftime("%Y-%m")
        if self.precision == "year":
            return str(self.date.year)
        return self.date.isoformat()


def zone(name: str) -> tzinfo:
    """The configured timezone; 'local' is the machine's own."""
    if name == "local":
        local = datetime.now().astimezone().tzinfo
        assert local is not None
        return local
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"unknown timezone {name!r} (use an IANA name or 'local')") from exc


def prefers_future(line: str) -> bool:
    """Whether the line talks about the future ('I'm flying on Saturday' vs 'I flew...').

    A line that does something with no verb in the past ("I have a dentist
    appointment on Friday") speaks of the next Friday, not the last one; a line
    that says what is ("my birthday is on 14 March") keeps the date before.
    """
    if _FUTURE.search(line):
        return True
    return _PAST.search(line) is None and _COPULA.search(line) is None


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _NUMBER_WORDS[text.lower()]


def _month_start(day: date, months: int) -> date:
    index = day.year * _MONTHS_PER_YEAR + day.month - 1 + months
    return date(index // _MONTHS_PER_YEAR, index % _MONTHS_PER_YEAR + 1, 1)


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _shift(day: date, count: int, unit: str) -> tuple[date, Precision]:
    unit = unit.lower()
    if unit == "day":
        return day + timedelta(days=count), "day"
    if unit == "week":
        return _week_start(day + timedelta(days=count * _DAYS_PER_WEEK)), "week"
    if unit == "month":
        return _month_start(day, count), "month"
    return date(day.year + count, 1, 1), "year"


def _weekday(day: date, name: str, mode: str) -> date:
    """The weekday ``name`` relative to ``day``: last / next / this week's / nearest."""
    target = _WEEKDAYS.index(name.lower())
    back = (day.weekday() - target) % _DAYS_PER_WEEK or _DAYS_PER_WEEK
    ahead = (target - day.weekday()) % _DAYS_PER_WEEK or _DAYS_PER_WEEK
    if mode == "last":
        return day - timedelta(days=back)
    if mode == "next":
        return day + timedelta(days=ahead)
    if mode == "this":
        return _week_start(day) + timedelta(days=target)
    if target == day.weekday():
        return day
    return day + timedelta(days=ahead) if mode == "future" else day - timedelta(days=back)


Rule = Callable[[re.Match[str], date, bool], tuple[date, Precision]]


def _rule_relative_day(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    offsets = {
        "today": 0, "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
        "yesterday": -1, "last night": -1, "the day before yesterday": -2,
        "tomorrow": 1, "the day after tomorrow": 2,
    }  # fmt: skip
    return day + timedelta(days=offsets[m[0].lower()]), "day"


def _rule_weekday(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    mode = (m["mode"] or "").lower().replace("coming", "next").replace("past", "last")
    if mode not in ("last", "next", "this"):
        mode = "future" if future else "past"
    return _weekday(day, m["weekday"], mode), "day"


def _rule_period(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    """'last week', 'next month'; a weekend is told by the week it ends."""
    step = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}
    unit = m["unit"].lower()
    if unit == "weekend":
        # The week of the weekend before this week's, this week's, or the one after it.
        steps = step[m["mode"].lower()]
        saturday = _weekday(day, "saturday", "this") + timedelta(days=_DAYS_PER_WEEK * steps)
        return _week_start(saturday), "week"
    return _shift(day, step[m["mode"].lower()], unit)


def _rule_month_name(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    """'in June': the last June (the next one in a line about the future); this month is now."""
    month = _MONTH_NUMBERS[m["month"][:3].lower()]
    year = day.year
    if future and month < day.month:
        year += 1
    elif not future and month > day.month:
        year -= 1
    return date(year, month, 1), "month"


def _rule_ago(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    """'3 days ago', 'two weeks ago', 'in two weeks': a day; the month for longer spans.

    A count of days or weeks back from a day names a day ("two weeks ago" said on
    31 October is 17 October), unlike "last week", which names a week.
    """
    count = _number(m["n"]) * (1 if m["dir"].lower() == "in" else -1)
    unit = m["unit"].lower()
    if unit in ("day", "week"):
        days = count * (_DAYS_PER_WEEK if unit == "week" else 1)
        return day + timedelta(days=days), "day"
    months = count * (_MONTHS_PER_YEAR if unit == "year" else 1)
    return _month_start(day, months), "month"


def _rule_year(m: re.Match[str], day: date, future: bool) -> tuple[date, Precision]:
    return date(int(m["year"]), 1, 1), "year"


_RULES: tuple[tuple[re.Pattern[str], Rule], ...] = (
    (
        re.compile(
            r"\b(?:the day (?:before yesterday|after tomorrow)|today|tonight|yesterday|"
            r"tomorrow|last night|this (?:morning|afternoon|evening))\b",
            re.IGNORECASE,
        ),
        _rule_relative_day,
    ),
    (
        re.compile(
            r"\b(?:(?P<mode>last|past|next|this|coming|on)\s+)?(?P<weekday>"
            + "|".join(_WEEKDAYS)
            + r")\b",
            re.IGNORECASE,
        ),
        _rule_weekday,
    ),
    (
        re.compile(
            r"\b(?P<mode>last|past|previous|this|next|coming)\s+(?P<unit>weekend|week|month|year)\b",
            re.IGNORECASE,
        ),
        _rule_period,
    ),
    (
        re.compile(rf"\b(?i:in|during)\s+(?P<month>{_MONTH_NAMES})(?!\s+\d)\b"),
        _rule_month_name,
    ),
    (
        re.compile(rf"\b(?P<dir>in)\s+(?P<n>{_NUM})\s+{_UNIT}\b", re.IGNORECASE),
        _rule_ago,
    ),
    (
        re.compile(rf"\b(?P<n>{_NUM})\s+{_UNIT}\s+(?P<dir>ago)\b", re.IGNORECASE),
        _rule_ago,
    ),
)
_ABSOLUTE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}(?:,?\s+\d{{4}})?"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|{_MONTHS}\s+\d{{4}})\b",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:in|since|from|of)\s+(?P<year>(?:19|20)\d{2})\b", re.IGNORECASE)
_DAY_NUMBER = re.compile(r"(?<![\d-])\d{1,2}(?:st|nd|rd|th)?(?!\d)|-\d{2}$")


def find_date_phrase(text: str) -> str | None:
    """The first date phrase in ``text`` that this module can resolve, if any."""
    found: list[tuple[int, str]] = []
    for pattern, _ in _RULES:
        for m in pattern.finditer(text):
            if not _EVERY.search(text[: m.start()]):  # "every Sunday" is how often, not when
                found.append((m.start(), m[0]))
                break
    for pattern in (_ABSOLUTE, _YEAR):
        absolute = pattern.search(text)
        if absolute:
            found.append((absolute.start(), absolute[0]))
    return min(found)[1] if found else None


def resolve(phrase: str, said_at: datetime, *, future: bool = False) -> ResolvedDate | None:
    """The date ``phrase`` means when said at ``said_at`` (aware, in the configured zone).

    ``future`` breaks ties for bare weekdays and day-month dates ("on Saturday",
    "3 May"): the next one rather than the last one. None when it is no date.
    """
    text = phrase.strip()
    if not text:
        return None
    day = said_at.date()
    for pattern, rule in _RULES:
        m = pattern.search(text)
        if m:
            resolved, precision = rule(m, day, future)
            return ResolvedDate(resolved, precision, phrase)
    m = _YEAR.search(text) or re.fullmatch(r"(?P<year>(?:19|20)\d{2})", text)
    if m:
        resolved, precision = _rule_year(m, day, future)
        return ResolvedDate(resolved, precision, phrase)
    m = _ABSOLUTE.search(text)
    candidate = m[0] if m else text
    import dateparser  # a tenth of a second to import: only once a phrase needs it

    parsed = dateparser.parse(
        candidate,
        languages=["en"],
        settings={
            "RELATIVE_BASE": said_at.replace(tzinfo=None),
            "PREFER_DATES_FROM": "future" if future else "past",
            "PREFER_DAY_OF_MONTH": "first",
            "RETURN_AS_TIMEZONE_AWARE": False,
        },
    )
    if parsed is None:
        return None
    if _DAY_NUMBER.search(candidate):
        return ResolvedDate(parsed.date(), "day", phrase)
    return ResolvedDate(parsed.date().replace(day=1), "month", phrase)
