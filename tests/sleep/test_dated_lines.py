"""Events take their dates from the lines, and an ending the space never recorded is history.

Issue 20: a date the model gives is read again from the words of the cited
line, or of the line just before it when the cited one leaves its time there
("On Monday I had my review." ... "Really well, I got a raise."); a fragment
("A root canal, sadly.") belongs to the event just before it. "I used to live
in Tartu" ends a state nobody recorded: it is kept as history, not refused.
"""

from __future__ import annotations

import json
from typing import Any

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.bad_upstream import bad_upstream
from tests.helpers.rawdb import rows

WED = "2026-10-21T10:0{}:00+05:30"


async def _slept(
    config: OrmaConfig, embedder: OnnxEmbedder, answer: dict[str, Any], *said: tuple[str, str]
) -> tuple[list[str], list[tuple[str, str | None]]]:
    """Facts (with history) and events (what, date) after one sleep on ``said``."""
    with bad_upstream(json.dumps(answer)) as upstream:
        update = {"upstream": upstream.url, "timezone": "Asia/Kolkata"}
        async with AsyncMemory(config=config.model_copy(update=update), embedder=embedder) as mem:
            for minute, (role, text) in enumerate(said):
                await mem.add(text, role=role, at=WED.format(minute))
            await mem.sleep()
            facts = [
                f.text + ("" if f.active else " [closed]")
                for f in await mem.facts(include_history=True)
            ]
            path = mem.path
    events = rows(path, "SELECT what, date FROM events ORDER BY id")
    return facts, [(str(w), None if d is None else str(d)) for w, d in events]


def ev(line: int, what: str, when: str = "") -> dict[str, Any]:
    return {"line": line, "what": what, "when": when, "who": ["user"]}


async def test_an_event_takes_the_time_the_line_before_it_gave(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    said = (
        ("user", "On Tuesday I had my driving test."),
        ("assistant", "How did it go?"),
        ("user", "I passed, first try."),
        ("user", "I have a vet appointment for Bruno on Friday."),
        ("assistant", "What for?"),
        ("user", "A booster shot, nothing serious."),
        ("user", "Then I baked bread."),
        ("user", "I swim every morning now."),
    )
    answer = {
        "states": [],
        "events": [
            ev(1, "had my driving test", "on Tuesday"),
            ev(3, "passed, first try", "Tuesday"),  # the model's time, said a line before
            ev(4, "vet appointment for Bruno", "on Friday"),
            ev(6, "booster shot"),  # a fragment: part of the appointment
            # A date the model computed is not believed, and a one-off with no date is no event.
            ev(7, "baked bread", "2026-10-20"),
            ev(8, "swim every morning"),  # a habit, not a happening
        ],
    }
    _, events = await _slept(config, embedder, answer, *said)
    assert events == [
        ("had my driving test", "2026-10-20"),
        ("passed, first try", "2026-10-20"),
        ("vet appointment for Bruno", "2026-10-23"),
        ("booster shot", "2026-10-23"),
    ]


async def test_an_ending_nobody_recorded_is_kept_as_history(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    said = (
        ("user", "I used to live in Tartu."),
        ("user", "Now I live in Tallinn."),
        ("user", "Yes, I used to live in Tartu, years ago."),
    )
    tartu = {"line": 1, "attribute": "home_city", "value": "Tartu", "ended": True}
    tallinn = {"line": 2, "attribute": "home_city", "value": "Tallinn"}
    answer = {"states": [tartu, tallinn, tartu | {"line": 3}], "events": []}
    facts, _ = await _slept(config, embedder, answer, *said)
    # Said twice, the ending is stored once.
    assert sorted(facts) == ["user · home city: Tallinn", "user · home city: Tartu [closed]"]
