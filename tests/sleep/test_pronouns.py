"""She, he and they carry to the last person of their gender and number: never a place or thing.

Issue 20, item 1. The antecedent rules on their own, then the seed's sister
Asha end to end: a real upstream on a loopback socket answers like a small
model, sleep verifies and stores, the facts are read back.
"""

from __future__ import annotations

import json

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.sleep import SleepReport
from orma_proxy.sleep.persons import antecedent, people_in
from tests.helpers.bad_upstream import bad_upstream

pytestmark = pytest.mark.both_backends

WED = "2026-10-21T10:00:00+05:30"


@pytest.mark.parametrize(
    ("pronoun", "before", "preceding", "person"),
    [
        # A city in the same sentence, and a city at the start of the line before.
        ("She", "", ["My sister Asha moved to Mumbai last year.", "She loves it."], "Asha"),
        ("She", "", ["My friend Dagny lives in Bergen.", "Bergen is famously wet."], "Dagny"),
        # A capitalised first word is no one: "Congratulations", "Short", "Do".
        ("He's", "", ["My colleague Ravi became a father.", "Congratulations to him!"], "Ravi"),
        ("She", "", ["My boss Helen hates long emails.", "Short and sweet, then."], "Helen"),
        # Gender: "he" skips the woman named just before it.
        (
            "he",
            "Leela is a cardiologist and ",
            ["My sister Leela and her husband Arjun visited.", "What do they do?"],
            "Arjun",
        ),
        # An unnamed relation is a person too.
        ("she", "Yes, ", ["My mom has type 2 diabetes.", "Is it well managed?"], "user's mom"),
        # People before animals; an animal when no person fits.
        ("He", "", ["Our neighbour Mr. Fernandes has a dog named Bruno."], "Mr. Fernandes"),
        ("She's", "", ["I adopted a cat.", "Her name is Miso.", "Cute name."], "Miso"),
        # "they" is two people joined by "and".
        ("They", "", ["My sister Leela and her husband Arjun visited."], "Leela and Arjun"),
    ],
)
def test_a_pronoun_carries_to_the_last_person_of_its_gender(
    pronoun: str, before: str, preceding: list[str], person: str
) -> None:
    found = antecedent(pronoun, before, preceding)
    assert found is not None and found.name == person


def test_places_things_and_first_words_are_nobody() -> None:
    assert antecedent("She", "", ["I moved to Mumbai.", "Mumbai is humid."]) is None
    assert antecedent("He", "", ["Congratulations!", "Mostly weddings."]) is None
    assert antecedent("they", "", ["My sister Asha called."]) is None  # one person is no "they"
    assert [p.name for p in people_in("My brother Tariq and I work at a startup called Zeno.")] == [
        "Tariq"
    ]


def states(*items: dict[str, object]) -> str:
    return json.dumps({"states": list(items), "events": []})


async def consolidate(
    config: OrmaConfig, embedder: OnnxEmbedder, answer: str, *said: str
) -> tuple[list[str], SleepReport]:
    """``said`` by the user, slept on against a model answering ``answer``: facts, report."""
    with bad_upstream(answer) as upstream:
        update = {"upstream": upstream.url, "timezone": "Asia/Kolkata"}
        async with AsyncMemory(config=config.model_copy(update=update), embedder=embedder) as mem:
            for text in said:
                await mem.add(text, role="user", at=WED)
            report = await mem.sleep()
            return [f.text for f in await mem.facts()], report


async def test_the_seeds_sister_asha_is_allergic_not_mumbai(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    answer = states(
        {"line": 1, "about": "Asha", "attribute": "home_city", "value": "Mumbai"},
        {"line": 2, "about": "Asha", "attribute": "allergy", "value": "peanuts"},
        {"line": 2, "about": "user", "attribute": "allergy", "value": "peanuts"},
    )
    said = "My sister Asha moved to Mumbai last year. She is allergic to peanuts."
    facts, report = await consolidate(config, embedder, answer, said)
    assert facts == ["user · sister: Asha", "Asha · allergy: peanuts", "Asha · home city: Mumbai"]
    [refused] = report.rejected
    assert refused.item["about"] == "user"
    assert refused.reason == "about Asha ('She' carried to Asha), not the user"


HUSBAND = (
    states(
        {"line": 2, "about": "Leela", "attribute": "home_city", "value": "Chennai"},
        {"line": 2, "about": "Arjun", "attribute": "home_city", "value": "Chennai"},
        {"line": 3, "about": "Leela", "attribute": "job_title", "value": "cardiologist"},
        {"line": 3, "about": "Leela", "attribute": "job_title", "value": "history teacher"},
    ),
    [
        "My sister Leela and her husband Arjun visited last weekend.",
        "They live in Chennai.",
        "Leela is a cardiologist and he teaches history.",
    ],
    [
        "user · sister: Leela",
        "Arjun · home city: Chennai",
        "Arjun · job title: history teacher",
        "Leela · home city: Chennai",
        "Leela · job title: cardiologist",
    ],
    [],
)
# "she walks every evening and avoids sugar": the second clause has the first one's subject.
ELLIPSIS = (
    states(
        {"line": 2, "about": "mom", "attribute": "exercise", "value": "walks every evening"},
        {"line": 2, "about": "user", "attribute": "diet", "value": "avoids sugar"},
    ),
    ["My mom has type 2 diabetes.", "Yes, she walks every evening and avoids sugar."],
    ["user's mom · exercise: walks every evening"],
    ["about user's mom ('she' carried to user's mom), not the user"],
)


@pytest.mark.parametrize(("answer", "said", "facts", "refused"), [HUSBAND, ELLIPSIS])
async def test_whose_fact_a_line_states(
    config: OrmaConfig,
    embedder: OnnxEmbedder,
    answer: str,
    said: list[str],
    facts: list[str],
    refused: list[str],
) -> None:
    stored, report = await consolidate(config, embedder, answer, *said)
    assert stored == facts
    assert [r.reason for r in report.rejected] == refused
