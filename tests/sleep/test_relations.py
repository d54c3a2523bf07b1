"""What a line says outright is kept even when the model skips it or words it otherwise.

Issue 20: "my sister Asha" makes ``user · sister: Asha`` whoever extracted the
batch (a model that recorded only Asha's city, or no model at all); a value
the model writes as a digit ("2" for "two kids") or a plural ("Sundays" for
"every Sunday") is still the line's; "short unless I ask for detail" is short,
with no condition, where "when I have a sore throat" is a condition.
"""

from __future__ import annotations

import json
from typing import Any

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.sleep.persons import relatives
from orma_proxy.sleep.verify import conditional_frame, overlap, unsaid_name
from tests.helpers.bad_upstream import bad_upstream

WED = "2026-10-21T10:0{}:00+05:30"


def test_relations_are_the_speakers_own_and_named() -> None:
    assert relatives("My sister Asha and her husband Arjun visited.") == [("sister", "Asha")]
    assert relatives("Our neighbour Mr. Fernandes has a dog.") == [("neighbour", "Mr. Fernandes")]
    assert relatives("My friend thinks I should move. My parents Raj and Uma agree.") == []


def test_digits_plurals_and_unless() -> None:
    assert overlap("2", "I have two kids.") == 1.0
    assert unsaid_name("runs 5k on Sundays", "I run 5k every Sunday.") is None
    assert unsaid_name("lives in Pune", "I live in Punekar Colony.") == "Pune"
    assert conditional_frame("Keep answers short unless I ask for detail.", "short") == ""
    assert conditional_frame("When I have a sore throat, I drink tea.", "tea") == "sore throat"


async def _slept(
    config: OrmaConfig, embedder: OnnxEmbedder, answer: dict[str, Any] | None, *said: str
) -> list[str]:
    update: dict[str, Any] = {"timezone": "Asia/Kolkata", "upstream": ""}
    with bad_upstream(json.dumps(answer)) as upstream:
        if answer is not None:
            update["upstream"] = upstream.url
        async with AsyncMemory(config=config.model_copy(update=update), embedder=embedder) as mem:
            for minute, text in enumerate(said):
                await mem.add(text, role="user", at=WED.format(minute))
            await mem.sleep()
            return sorted(f.text for f in await mem.facts())


SAID = (
    "My sister Asha moved to Mumbai.",
    "I had lunch with my friend Dagny, and my friend Ola joined us.",
)


async def test_a_named_relation_is_kept_with_or_without_the_model(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    answer = {"states": [{"line": 1, "about": "Asha", "attribute": "home_city", "value": "Mumbai"}]}
    with_llm = await _slept(config, embedder, answer, *SAID)
    assert with_llm == [
        "Asha · home city: Mumbai",
        "user · friend: Dagny",  # two friends: one does not replace the other
        "user · friend: Ola",
        "user · sister: Asha",
    ]


async def test_without_a_model_too(config: OrmaConfig, embedder: OnnxEmbedder) -> None:
    assert await _slept(config, embedder, None, *SAID) == [
        "Asha · home city: Mumbai",  # the rules read a third person's move too
        "user · friend: Dagny",
        "user · friend: Ola",
        "user · sister: Asha",
    ]


async def test_the_models_wording_of_what_the_line_says(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    said = ("I have two kids.", "Keep answers short unless I ask for detail.")
    answer = {
        "states": [
            {"line": 1, "attribute": "kids", "value": "2"},
            {"line": 2, "attribute": "answer_style", "value": "short",
             "condition": "I ask for detail"},
        ]
    }  # fmt: skip
    assert await _slept(config, embedder, answer, *said) == [
        "user · answer style: short",
        "user · kid: 2",
    ]


async def test_endings_additions_pronouns_relations_and_origins(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    said = (
        "I tried the paleo diet for a month.",
        "I quit, it was too expensive.",
        "I'm vegetarian.",
        "I do eat fish though.",
        "My colleague Imran broke his wrist.",
        "I'm handling his clients this week.",
        "My mum gardens a lot, roses mostly.",
        "I'm Lena, originally from Graz.",
    )
    answer = {
        "user_name": "Lena",
        "states": [
            {"line": 1, "attribute": "diet", "value": "paleo"},
            # What ended is said in the line before the one that ends it.
            {"line": 2, "attribute": "diet", "value": "paleo", "ended": True},
            {"line": 3, "attribute": "diet", "value": "vegetarian"},
            {"line": 4, "attribute": "diet", "value": "fish"},  # "though": beside vegetarian
            {"line": 6, "attribute": "task", "value": "handling Imran's clients"},  # "his"
            {"line": 7, "about": "mum", "attribute": "grows", "value": "roses"},
            {"line": 8, "attribute": "home_city", "value": "Graz"},  # from, not living there
        ],
    }
    assert await _slept(config, embedder, answer, *said) == [
        "user · colleague: Imran",
        "user · diet: fish",
        "user · diet: vegetarian",
        "user · hometown: Graz",
        "user · name: Lena",
        "user · task: handling Imran's clients",
        "user's mum · grow: roses",
    ]
