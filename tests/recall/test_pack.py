"""The block: budget never exceeded, forbidden rules first, outdated marks, redundant lines out."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

import pytest

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.facts import Event, State
from orma_proxy.recall.layout import COMPACT_FORBIDDEN_NOTE as FORBIDDEN_NOTE
from orma_proxy.recall.pack import Entry, pack_block
from orma_proxy.recall.search import Passage
from orma_proxy.store import Writer
from tests.helpers.recall_store import Store, sahil

NOW = "2026-11-01T10:00:00+05:30"


def passage(i: int, text: str) -> Passage:
    return Passage(text, i, i, datetime(2026, 10, i % 28 + 1, tzinfo=UTC), 1.0, "user")


@pytest.mark.parametrize("budget", [40, 90, 120, 150, 200, 333, 512])
@pytest.mark.parametrize("sutra", [True, False])
def test_budget_is_never_exceeded(embedder: OnnxEmbedder, budget: int, sutra: bool) -> None:
    lines = [
        passage(i, f"Note {i}: the blue ferry to Alibaug leaves at {i}:15 sharp.")
        for i in range(40)
    ]
    block = pack_block(
        entries=[Entry(score=-i, passage=p) for i, p in enumerate(lines)],
        budget_tokens=budget,
        today=date(2026, 11, 1),
        count_tokens=embedder.count_tokens,
        forbidden=["share the wifi password", "book flights on Fridays"],
        sutra=sutra,
    )
    assert block.tokens == embedder.count_tokens(block.text) if block.text else block.tokens == 0
    assert block.tokens <= budget
    if budget >= 200:  # room for the header, both rules and some passages
        assert block.forbidden and block.passages


@pytest.mark.both_backends
async def test_forbidden_rules_are_hoisted_first_with_the_negative_framing(
    amem: AsyncMemory,
) -> None:
    store = Store(amem)
    await sahil(store)
    rule = await store.say("Never chain PowerShell commands with semicolons.", NOW)
    await store.state(
        rule, "forbidden_chain_powershell", "chain PowerShell commands with semicolons",
        prohibited=True,
    )  # fmt: skip
    await amem.flush()
    block = await amem.recall("Where do I live now?", at=NOW)
    header, body = block.text.split("\n\n", 1)
    assert header.endswith(FORBIDDEN_NOTE.strip())
    assert body.splitlines()[0] == "[FORBIDDEN: chain PowerShell commands with semicolons]"
    assert block.forbidden == ["chain PowerShell commands with semicolons"]
    assert "LOG: 2026-11-01" not in block.text  # the rule's own line is not repeated
    assert "forbidden" not in block.text.split("[FORBIDDEN:")[1].split("\n", 1)[1]
    quiet = await amem.recall("What do I drink?", at=NOW)
    assert FORBIDDEN_NOTE.strip() in quiet.text  # a rule binds whatever the query


@pytest.mark.both_backends
async def test_rules_bind_even_on_the_pure_episodic_baseline(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    config = config.model_copy(update={"enable_semantic": False})
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await mem.forbid("Never chain PowerShell commands with semicolons.")
        await mem.add("I live in Pune.", role="user")
        await mem.flush()
        block = await mem.recall("Where do I live?")
    assert block.text.split("\n\n", 1)[1].splitlines() == [
        "[FORBIDDEN: chain PowerShell commands with semicolons]",
        f"[LOG: {block.passages[0].said_at.date()} user: I live in Pune.]",
    ]


@pytest.mark.both_backends
async def test_outdated_marks_follow_the_chain_and_say_when_a_fact_just_ended(
    amem: AsyncMemory, writer: Writer
) -> None:
    store = Store(amem)
    pune_line = await store.say("I live in Pune these days.", "2026-01-10T09:00:00+05:30")
    pune = await store.state(pune_line, "home_city", "Pune")
    blr_line = await store.say("I live in Bangalore these days.", "2026-05-10T09:00:00+05:30")
    blr = await store.state(blr_line, "home_city", "Bangalore")
    goa_line = await store.say("I live in Goa these days.", "2026-09-10T09:00:00+05:30")
    goa = await store.state(goa_line, "home_city", "Goa")
    await store.supersede(pune, blr)
    await store.supersede(blr, goa)
    gym_line = await store.say("I go to the gym on Tuesdays.", "2026-02-01T09:00:00+05:30")
    gym = await store.state(gym_line, "gym_day", "Tuesday")
    await writer.execute_write_fn(
        lambda conn: conn.execute(
            "UPDATE states SET active = 0, end_reason = 'ended', valid_to = 1 WHERE id = ?", (gym,)
        )
    )
    await amem.flush()
    block = await amem.recall("Where do I live these days, and when do I go to the gym?", at=NOW)
    assert "[LOG: 2026-01-10 user: I live in Pune these days. [outdated: now Goa]]" in block.text
    assert (
        "[LOG: 2026-05-10 user: I live in Bangalore these days. [outdated: now Goa]]" in block.text
    )
    assert "[LOG: 2026-02-01 user: I go to the gym on Tuesdays. [outdated]]" in block.text
    assert "[user.home city: Goa]" in block.text
    # Goa's own line says nothing the state line doesn't: left out.
    assert "I live in Goa these days" not in block.text


def merging_counter(text: str) -> int:
    """A BPE-like counter: a line break costs a token, but "]\\n[" merges into one."""
    return len(re.findall(r"\]\n\[|\S+|\n", text))


@pytest.mark.parametrize("budget", [110, 130, 170, 260])
def test_budget_holds_when_line_breaks_cost_or_merge(budget: int) -> None:
    lines = [passage(i, f"Line {i} says the ferry leaves at {i}:15.") for i in range(30)]
    block = pack_block(
        entries=[Entry(score=-i, passage=p) for i, p in enumerate(lines)],
        budget_tokens=budget,
        today=date(2026, 11, 1),
        count_tokens=merging_counter,
        forbidden=["share the wifi password"],
    )
    assert block.passages and merging_counter(block.text) <= budget
    if block.tokens > 0.9 * budget:  # close to the budget: counted exactly
        assert block.tokens == merging_counter(block.text)
    else:  # else the sum of the parts, never less than the real count
        assert block.tokens >= merging_counter(block.text)


def test_a_section_s_unused_share_goes_to_the_others(embedder: OnnxEmbedder) -> None:
    lines = [passage(i, f"Remembered line number {i} about the garden shed.") for i in range(30)]
    block = pack_block(
        entries=[Entry(score=-i, passage=p) for i, p in enumerate(lines)],
        budget_tokens=400,
        today=date(2026, 11, 1),
        count_tokens=embedder.count_tokens,
    )
    # No states or events at all: passages may use the whole budget, not just their 40%.
    assert block.tokens > 400 * 0.8


def test_no_rule_framing_when_no_rule_fits(embedder: OnnxEmbedder) -> None:
    rule = "mention the surprise party to anyone in the family group chat before Saturday"
    tight = pack_block(
        [passage(1, "The party is at eight.")],
        budget_tokens=60,
        today=date(2026, 11, 1),
        count_tokens=embedder.count_tokens,
        forbidden=[rule],
    )
    assert tight.forbidden == [] and FORBIDDEN_NOTE.strip() not in tight.text
    assert "The party is at eight." in tight.text and tight.tokens <= 60
    roomy = pack_block(
        [], budget_tokens=200, today=date(2026, 11, 1), count_tokens=embedder.count_tokens,
        forbidden=[rule],
    )  # fmt: skip
    assert roomy.forbidden == [rule] and FORBIDDEN_NOTE.strip() in roomy.text


def test_a_share_smaller_than_a_line_does_not_starve_the_best_match(
    embedder: OnnxEmbedder,
) -> None:
    best = passage(3, "We adopted a beagle named Biscuit.")
    line = f"[LOG: {best.said_at.date()} user: {best.text}]"
    header = pack_block([best], budget_tokens=4096, today=date(2026, 11, 1)).text.split("\n\n")[0]
    budget = embedder.count_tokens(header) + embedder.count_tokens(line) + 4
    state = State(
        id=1, entity="user", attribute="home_city", value="Pune", condition="",
        prohibited=False, active=True, since=None, valid_from=best.said_at, valid_to=None,
        rehearsals=1, sentence_id=9, episode_id=9, quote="", superseded_by=None,
        replaced_by=None, end_reason=None,
    )  # fmt: skip
    block = pack_block(
        entries=[Entry(score=0.1, state=state), Entry(score=1.5, passage=best)],
        budget_tokens=budget,
        today=date(2026, 11, 1),
        count_tokens=embedder.count_tokens,
    )
    assert block.passages == [best] and block.tokens <= budget


def _event(what: str, sentence_id: int) -> Event:
    return Event(1, what, "last week", "2026-10-03", "day", ["user"], sentence_id, sentence_id, "")


def test_an_event_its_shown_line_says_all_of_takes_one_place_with_it() -> None:
    line = passage(7, "I sailed to the island with my cousin last week.")
    other = passage(9, "The ferry timetable changes in winter.")
    block = pack_block(
        entries=[
            Entry(score=2.0, event=_event("I sailed to the island with my cousin", 7)),
            Entry(score=1.5, passage=other),
            Entry(score=1.0, passage=line),
        ],
        budget_tokens=400,
        today=date(2026, 11, 1),
    )
    assert block.events == []  # the line says it all, at the event's rank
    assert [p.sentence_id for p in block.passages] == [7, 9]


def test_an_event_saying_more_than_its_line_stays_beside_it() -> None:
    line = passage(7, "We finally went last week.")
    block = pack_block(
        entries=[
            Entry(score=2.0, event=_event("went sailing to the island", 7)),
            Entry(score=1.0, passage=line),
        ],
        budget_tokens=400,
        today=date(2026, 11, 1),
    )
    assert [e.sentence_id for e in block.events] == [7]
    assert [p.sentence_id for p in block.passages] == [7]


def test_an_event_whose_line_is_no_candidate_is_shown() -> None:
    block = pack_block(
        entries=[Entry(score=2.0, event=_event("I sailed to the island", 7))],
        budget_tokens=400,
        today=date(2026, 11, 1),
    )
    assert [e.sentence_id for e in block.events] == [7]
