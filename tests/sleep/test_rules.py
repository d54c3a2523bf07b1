"""The rule extractor on sentences of our own: what it proposes, and what it must not."""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.facts import Event
from orma_proxy.sleep.batch import Batch, Line
from orma_proxy.sleep.clock import find_date_phrase, prefers_future, resolve
from orma_proxy.sleep.heuristic import extract_by_rules
from orma_proxy.sleep.relations import relations_said
from tests.helpers.scripted_llm import ScriptedLLM, answer

ZONE = ZoneInfo("Asia/Kolkata")
SAID = datetime(2026, 10, 31, 12, 0, tzinfo=ZONE)  # a Saturday

Found = tuple[str, str, str, str, bool]


def read(*lines: str) -> tuple[list[Found], list[tuple[str, str]], str]:
    """States (about, attribute, value, condition, ended), events (when, what), the name."""
    batch = Batch(
        "s",
        0,
        (1,),
        tuple(Line(n, n, 1, "user", t, SAID.timestamp()) for n, t in enumerate(lines, 1)),
        (),
    )
    found = extract_by_rules(batch)
    relations = relations_said(batch).states  # "my sister Asha", whoever extracts the rest
    said = [*found.states, *(r for r in relations if r not in found.states)]
    states = [(s.about, s.attribute, s.value, s.condition, s.ended) for s in said]
    return states, [(e.when, e.what) for e in found.events], found.user_name


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["I am a vegan."], [("user", "diet", "vegan", "", False)]),
        (["I'm pescatarian, mostly."], [("user", "diet", "pescatarian", "", False)]),
        (["Back then I was vegetarian."], [("user", "diet", "vegetarian", "", True)]),
        (["I tried paleo for a year."], [("user", "diet", "paleo", "", True)]),
        # A denial is no fact; "no longer" and "not ... anymore" end one.
        (["I'm not vegetarian anymore."], [("user", "diet", "vegetarian", "", True)]),
        (["I no longer work at Initech."], [("user", "employer", "Initech", "", True)]),
        (
            ["I mostly work from the library."],
            [("user", "habit", "work from the library", "", False)],
        ),
        (
            ["I work at Northwind as a QA analyst."],
            [
                ("user", "employer", "Northwind", "", False),
                ("user", "job_title", "QA analyst", "", False),
            ],
        ),
        (
            ["I'm a freelance translator."],
            [("user", "job_title", "freelance translator", "", False)],
        ),
        (
            ["I'm 41 and I live in Utrecht."],
            [("user", "age", "41", "", False), ("user", "home_city", "Utrecht", "", False)],
        ),
        (["I grew up in Groningen."], [("user", "hometown", "Groningen", "", False)]),
        (["I used to live in Ghent."], [("user", "home_city", "Ghent", "", True)]),
        (
            ["I speak Dutch and Farsi."],
            [("user", "language", "Dutch", "", False), ("user", "language", "Farsi", "", False)],
        ),
        (["I'm severely allergic to sesame."], [("user", "allergy", "sesame", "", False)]),
        (["I'm gluten intolerant."], [("user", "intolerance", "gluten", "", False)]),
        (
            ["Every evening I drink chamomile tea."],
            [("user", "evening_drink", "chamomile tea", "", False)],
        ),
        (
            ["I usually drink rooibos in the evening."],
            [("user", "evening_drink", "rooibos", "", False)],
        ),
        (
            ["Lately I drink oolong instead of espresso in the morning."],
            [("user", "morning_drink", "oolong", "", False)],
        ),
        (
            ["I quit Contoso and I'm now a data analyst at Fabrikam."],  # Fabrikam replaces it
            [
                ("user", "job_title", "data analyst", "", False),
                ("user", "employer", "Fabrikam", "", False),
            ],
        ),
        (["I quit Contoso in May."], [("user", "employer", "Contoso", "", True)]),
        (["I swim twice a week."], [("user", "habit", "swim twice a week", "", False)]),
        (
            ["On Sundays I bake sourdough."],
            [("user", "habit", "bake sourdough on sundays", "", False)],
        ),
        # A condition beside the habit, never in place of it; "unless" is not "when".
        (
            [
                "I drink green tea every morning.",
                "When I have a cold, I drink lemon water instead.",
            ],
            [
                ("user", "morning_drink", "green tea", "", False),
                ("user", "morning_drink", "lemon water", "cold", False),
            ],
        ),
        (
            ["If it snows, I take the tram instead."],
            [("user", "habit", "take the tram", "snows", False)],
        ),
        (
            ["I walk to the office unless it's raining."],
            [("user", "habit", "walk to the office", "unless raining", False)],
        ),
        (
            ["Unless I'm travelling, I cook at home every night."],
            [("user", "habit", "cook at home every night", "unless travelling", False)],
        ),
        (
            ["Unless I have an exam, then I study all night."],
            [("user", "habit", "study all night", "exam", False)],
        ),
        # Corrections: the value said right replaces the one before it.
        (
            ["My anniversary is on 9 June.", "Sorry, typo. It's 19 June."],
            [
                ("user", "anniversary", "9 June", "", False),
                ("user", "anniversary", "19 June", "", False),
            ],
        ),
        (
            ["Actually my birthday is March 3, not March 5."],
            [("user", "birthday", "March 3", "", False)],
        ),
        # Third persons: the sentence names them; "she" and "he" carry over to people only.
        (
            ["My uncle Tomas is allergic to shellfish.", "He lives in Valencia."],
            [
                ("Tomas", "allergy", "shellfish", "", False),
                ("user", "uncle", "Tomas", "", False),
                ("Tomas", "home_city", "Valencia", "", False),
            ],
        ),
        (
            ["My cousin Ines moved to Lyon last year.", "She is a pharmacist."],
            [
                ("Ines", "home_city", "Lyon", "", False),
                ("user", "cousin", "Ines", "", False),
                ("Ines", "job_title", "pharmacist", "", False),
            ],
        ),
        (
            ["My grandma has type 1 diabetes."],
            [("user's grandma", "medical_condition", "type 1 diabetes", "", False)],
        ),
        (
            ["My aunt Rosa and her husband Jonas came over.", "They live in Antwerp."],
            [
                ("user", "aunt", "Rosa", "", False),
                ("Rosa", "home_city", "Antwerp", "", False),
                ("Jonas", "home_city", "Antwerp", "", False),
            ],
        ),
        (
            ["My flatmate got a new job at the city library."],
            [("user's flatmate", "employer", "city library", "", False)],
        ),
        (["We rent a house by the canal."], [("user", "housing", "house by the canal", "", False)]),
        (
            ["I live with my grandparents."],
            [("user", "living_situation", "with my grandparents", "", False)],
        ),
        (
            ["By night I restore old radios."],
            [("user", "habit", "restore old radios by night", "", False)],
        ),
        (
            ["Always reply in British English."],
            [("user", "prefers", "reply in British English", "", False)],
        ),
    ],
)
def test_the_rules_read_states_said_in_common_ways(lines: list[str], expected: list[Found]) -> None:
    states, _, _ = read(*lines)
    assert sorted(states) == sorted(expected)


@pytest.mark.parametrize(
    "line",
    [
        "Do you think I should move to Oslo?",
        "Which gym in Utrecht is open late?",
        "I think the leak is in the cache layer.",
        "I might be allergic to latex, not sure.",
        "If I moved to Oslo, would I need a car?",
        "What if I worked as a pilot?",
        "My neighbour says I should move to Haarlem.",
        "My sister thinks I'm a vegan at heart.",
        "I wish I lived in Kyoto.",
        "I don't live in Delft.",
        "I never work at weekends.",
        "Tell me about people who live in Lisbon.",
    ],
)
def test_questions_guesses_hypotheticals_reports_denials_and_wishes_give_nothing(
    line: str,
) -> None:
    assert read(line) == ([], [], "")


@pytest.mark.parametrize(
    ("line", "when", "what"),
    [
        (
            "My manager gave me a Swiss knife yesterday.",
            "yesterday",
            "My manager gave me a Swiss knife",
        ),
        ("Three weeks ago I sprained my ankle.", "Three weeks ago", "I sprained my ankle"),
        ("I have a vet appointment on Tuesday.", "on Tuesday", "I have a vet appointment"),
        (
            "We adopted a greyhound last month, she is lovely.",
            "last month",
            "We adopted a greyhound",
        ),
        ("I'm flying to Tbilisi next weekend.", "next weekend", "I am flying to Tbilisi"),
    ],
)
def test_a_clause_doing_something_on_a_date_is_an_event(line: str, when: str, what: str) -> None:
    assert read(line)[1] == [(when, what)]


@pytest.mark.parametrize(
    "line",
    [
        "My birthday is on 14 March.",  # a state with a date, no event
        "I have lived in Delft since 2019.",
        "I run every Sunday.",
        "Nice weather today.",
        "I'll send you the logs tomorrow.",  # a turn of the conversation, not of a life
    ],
)
def test_dates_that_are_no_events(line: str) -> None:
    assert read(line)[1] == []


@pytest.mark.parametrize(
    ("line", "label"),
    [
        ("I broke my wrist two weeks ago.", "2026-10-17"),  # a count of weeks names a day
        ("We'll meet in three weeks.", "2026-11-21"),
        ("I moved here last week.", "week of 2026-10-19"),  # "last week" names a week
        ("We hiked last weekend.", "week of 2026-10-19"),
        ("I'm flying next weekend.", "week of 2026-11-02"),
        ("I visited Dagmar in June.", "2026-06"),
        ("It happened a month ago.", "2026-09"),
        ("I have a dentist appointment on Friday.", "2026-11-06"),  # present: the next one
        ("I saw the dentist on Friday.", "2026-10-30"),
    ],
)
def test_date_precision_is_what_the_phrase_names(line: str, label: str) -> None:
    phrase = find_date_phrase(line)
    assert phrase is not None
    resolved = resolve(phrase, SAID, future=prefers_future(line))
    assert resolved is not None and resolved.label() == label


def test_every_sunday_is_how_often_not_a_date() -> None:
    assert find_date_phrase("I run every Sunday.") is None


def test_a_present_perfect_speaks_of_the_past() -> None:
    line = "I've been a beekeeper for nine years."
    assert not prefers_future(line)
    since = resolve("nine years", SAID, future=prefers_future(line))
    assert since is not None and since.label() == "2017-10"


async def test_a_move_last_week_starts_then_and_closes_the_old_home_then(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": "", "timezone": "Asia/Kolkata"})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.add("I live in Delft.", role="user", at="2026-09-01T09:00:00+05:30")
        await mem.add("I used to live in Ghent.", role="user", at="2026-09-01T09:01:00+05:30")
        await mem.add("I moved to Utrecht last week.", role="note", at=SAID.isoformat())
        await mem.add("I broke my wrist two weeks ago.", role="user", at=SAID.isoformat())
        await mem.sleep()
        history = {f.value: f for f in await mem.facts(include_history=True)}
        monday = datetime(2026, 10, 19, tzinfo=ZONE)
        assert history["Utrecht"].active and history["Utrecht"].since == "week of 2026-10-19"
        assert history["Utrecht"].valid_from == monday
        assert not history["Delft"].active and history["Delft"].replaced_by == "Utrecht"
        assert history["Delft"].valid_to == monday  # not the day the note was added
        assert not history["Ghent"].active and history["Ghent"].end_reason == "ended"
        wrist = (await mem.search("broke my wrist")).events
        assert isinstance(wrist[0], Event) and (wrist[0].date, wrist[0].precision) == (
            "2026-10-17",
            "day",
        )


async def test_a_conditional_habit_keeps_the_baseline_and_a_correction_supersedes(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"upstream": "", "timezone": "Asia/Kolkata"})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for line in (
            "I drink green tea every morning.",
            "When I have a cold, I drink lemon water instead.",
            "Actually my birthday is March 3, not March 5.",
            "Sorry, I mistyped. It's March 13.",
            "Do you know a good bakery in Delft?",
            "I guess the oven thermostat is broken.",
        ):
            await mem.add(line, role="user", at=SAID.isoformat())
        await mem.sleep()
        assert sorted(f.text for f in await mem.facts()) == [
            "user · birthday: March 13",
            "user · morning drink: green tea",
            "user · morning drink: lemon water | when: cold",
        ]


async def test_lines_recorded_at_once_read_each_others_facts(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """The proxy records turns in concurrent tasks: the exception still finds its habit."""
    config = config.model_copy(update={"upstream": "", "enable_facts_on_record": True})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await asyncio.gather(
            mem.add("I drink green tea every morning.", role="user", at=SAID.isoformat()),
            mem.add("When I have a cold, I drink lemon water.", role="user", at=SAID.isoformat()),
        )
        assert sorted(f.text for f in await mem.facts()) == [
            "user · morning drink: green tea",
            "user · morning drink: lemon water | when: cold",
        ]


async def test_the_verifier_refuses_a_models_fact_from_a_question_or_a_guess(
    smem: AsyncMemory, llm: ScriptedLLM, http: httpx.AsyncClient
) -> None:
    await smem.add("Should I move to Haarlem?", role="user", at=SAID.isoformat())
    await smem.add("I suppose the router is faulty.", role="user", at=SAID.isoformat())
    await smem.add("I rent a flat in Delft.", role="user", at=SAID.isoformat())
    llm.script = [
        answer(
            states=[
                {"line": 1, "attribute": "home_city", "value": "Haarlem"},
                {"line": 2, "attribute": "problem", "value": "router is faulty"},
                {"line": 3, "attribute": "home_city", "value": "Delft"},
            ]
        )
    ]
    report = await smem.sleeper(http=http).sleep()
    reasons = sorted(r.reason for r in report.rejected)
    assert reasons == [
        "cites s1: the line asks a question, no fact",
        "cites s2: the line is a guess, no fact",
    ]
    assert [f.text for f in await smem.facts()] == ["user · home city: Delft"]


async def test_the_seeds_worked_examples_without_an_llm(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    """The original's Sahil, coffee and tea, Zerodha, Swiss knife and sister Asha, by rules."""
    config = config.model_copy(update={"upstream": "", "timezone": "Asia/Kolkata"})
    said = (
        ("I'm Sahil and I live in Pune.", "2026-10-10T09:00:00+05:30"),
        ("I drink black coffee every morning.", "2026-10-10T09:05:00+05:30"),
        ("I'm a systems engineer at Zerodha.", "2026-10-11T10:00:00+05:30"),
        ("I moved to Bangalore last week.", "2026-10-21T09:00:00+05:30"),
        (
            "When I have a sore throat, I drink warm ginger tea with raw honey.",
            "2026-10-22T08:00:00+05:30",
        ),
        ("My sister Asha moved to Mumbai last year.", "2026-10-25T10:00:00+05:30"),
        ("She is allergic to peanuts.", "2026-10-25T10:01:00+05:30"),
        ("My manager gave me a Swiss knife today.", "2026-11-01T09:00:00+05:30"),
    )
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for text, at in said:
            await mem.add(text, role="user", at=at)
        await mem.sleep()
        assert sorted(f.text for f in await mem.facts()) == [
            "Asha · allergy: peanuts",
            "Asha · home city: Mumbai",
            "user · employer: Zerodha",
            "user · home city: Bangalore",
            "user · job title: systems engineer",
            "user · morning drink: black coffee",
            "user · morning drink: warm ginger tea with raw honey | when: sore throat",
            "user · name: Sahil",
            "user · sister: Asha",
        ]
        history = {f.value: f for f in await mem.facts(include_history=True)}
        assert history["Pune"].replaced_by == "Bangalore"
        assert history["Bangalore"].since == "week of 2026-10-12"
        events = {
            (e.date, e.precision, e.what)
            for query in ("Swiss knife from my manager", "Asha moved to Mumbai")
            for e in (await mem.search(query)).events
            if isinstance(e, Event)
        }
        assert events == {
            ("2026-11-01", "day", "My manager gave me a Swiss knife"),
            ("2026-10-12", "week", "I moved to Bangalore"),
            ("2025-01-01", "year", "My sister Asha moved to Mumbai"),
        }
