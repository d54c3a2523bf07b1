"""A line with a named speaker ("Asha: I moved to Mumbai") holds facts about that speaker.

Issue 20: a note or transcript line said by someone else must never give the
user's facts. The speaker is read as the line is recorded (``text/speaker.py``);
sleep shows it to the model in place of the role, and verification takes the
line's "I" and "my" as the speaker's, with an LLM and without one.
"""

from __future__ import annotations

import json

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.sleep.holder import resolve_holder
from tests.helpers.bad_upstream import bad_upstream

WED = "2026-10-21T10:00:00+05:30"
SAID = (
    ("note", "Asha: I moved to Mumbai last year."),
    ("note", "Asha: My brother Kabir is a pilot."),
    ("user", "I live in Pune."),
)


def test_the_first_person_of_a_named_speakers_line_is_the_speaker() -> None:
    said_by = {"speaker": "Asha", "user_name": "Sahil"}
    assert resolve_holder("I moved to Mumbai.", "Mumbai", "Asha", [], **said_by).name == "Asha"
    mine = resolve_holder("My dentist is Dr. Rao.", "Dr. Rao", "Asha", [], **said_by)
    assert not isinstance(mine, str) and mine.name == "Asha"
    unnamed = resolve_holder("My brother is a pilot.", "pilot", "brother", [], **said_by)
    assert not isinstance(unnamed, str) and unnamed.name == "Asha's brother"
    # The model saying "user" for Asha's own line misread it.
    refused = resolve_holder("I moved to Mumbai.", "Mumbai", "user", [], **said_by)
    assert refused == "about Asha (first person, said by Asha), not the user"
    # The user's own name as the speaker is the user.
    own = resolve_holder("I moved to Mumbai.", "Mumbai", "user", [], speaker="Sahil",
                         user_name="Sahil")  # fmt: skip
    assert not isinstance(own, str) and own.is_user


async def _slept(config: OrmaConfig, embedder: OnnxEmbedder) -> tuple[list[str], list[str]]:
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for role, text in SAID:
            await mem.add(text, role=role, at=WED)
        report = await mem.sleep()
        return [f.text for f in await mem.facts()], [r.reason for r in report.rejected]


async def test_without_an_llm_a_speakers_facts_are_theirs(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    update = {"upstream": "", "timezone": "Asia/Kolkata"}
    facts, _ = await _slept(config.model_copy(update=update), embedder)
    assert "Asha · home city: Mumbai" in facts
    assert "user · home city: Pune" in facts
    assert not any(f.startswith("user") and "Mumbai" in f for f in facts)


async def test_with_an_llm_the_prompt_names_the_speaker_and_user_claims_are_refused(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    answer = json.dumps(
        {
            "states": [
                {"line": 1, "about": "Asha", "attribute": "home_city", "value": "Mumbai"},
                {"line": 1, "about": "user", "attribute": "home_city", "value": "Mumbai"},
                {"line": 2, "about": "Kabir", "attribute": "job_title", "value": "pilot"},
                {"line": 3, "about": "user", "attribute": "home_city", "value": "Pune"},
            ],
            "events": [{"line": 1, "what": "moved to Mumbai", "when": "last year", "who": ["I"]}],
        }
    )
    with bad_upstream(answer) as upstream:
        update = {"upstream": upstream.url, "timezone": "Asia/Kolkata"}
        facts, refused = await _slept(config.model_copy(update=update), embedder)
        prompt = upstream.requests[0]["messages"][-1]["content"]
    assert "[s1 2026-10-21 Asha] I moved to Mumbai last year." in prompt
    assert "[s3 2026-10-21 user] I live in Pune." in prompt
    assert sorted(facts) == [
        "Asha · brother: Kabir",  # "my brother" on Asha's line: hers
        "Asha · home city: Mumbai",
        "Kabir · job title: pilot",
        "user · home city: Pune",
    ]
    assert refused == ["about Asha (first person, said by Asha), not the user"]
