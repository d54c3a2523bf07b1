"""Rules and changes bind at once, before any sleep: said in chat, through MCP, corrected.

A rule said in chat is a ``[FORBIDDEN: ...]`` line on the very next recall, with
what to do instead on a ``[PREFER: ...]`` line of its own; "I moved to ..." marks
the earlier line outdated at once; sleep then reads the same lines again and
adds nothing twice. ``supersede`` by text keeps the subject of what it replaced.
"""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.facts import State
from orma_proxy.mcp.server import build_server

pytestmark = pytest.mark.both_backends

RULE = "Don't use semicolons in PowerShell, use newlines instead."
META = {"via": "proxy"}


async def chat(mem: AsyncMemory, user: str, reply: str, space: str = "default") -> None:
    """One exchange recorded as the proxy records it."""
    await mem.add_exchange([("user", user, META), ("assistant", reply, META)], space, heard_at=0)


def lines(text: str) -> list[str]:
    return text.split("\n\n", 1)[1].splitlines() if "\n\n" in text else []


def summary(facts: list[State]) -> list[tuple[str, str, bool, str | None]]:
    return [(s.attribute, s.value, s.active, s.end_reason) for s in facts]


async def test_a_rule_said_in_chat_binds_the_next_turn_with_its_alternative_apart(
    amem: AsyncMemory,
) -> None:
    await chat(amem, "Hi! I'm Meera.", "Hello Meera!")
    await chat(amem, RULE, "Understood, I will follow that from now on.")
    messages = [{"role": "user", "content": "How do I run two commands in PowerShell?"}]

    system = (await amem.build_context(messages))[0]["content"]

    shown = lines(system)
    assert shown[:2] == ["[FORBIDDEN: use semicolons in PowerShell]", "[PREFER: use newlines]"]
    assert "Do what [PREFER] says instead." in system
    assert not any("newlines" in line for line in shown if line.startswith("[FORBIDDEN"))
    assert not any(RULE in line for line in shown)  # the rule's own line would repeat it
    before = summary(await amem.facts(include_history=True))
    assert ("forbidden_semicolons_powershell", "use semicolons in PowerShell", True, None) in before
    assert ("instead_of_semicolons_powershell", "use newlines", True, None) in before

    report = await amem.sleep()  # the rule-based sleep reads the same lines again

    assert report.batches == 1 and report.states_added == report.states_rehearsed == 0
    assert summary(await amem.facts(include_history=True)) == before  # no rule twice
    assert lines((await amem.build_context(messages))[0]["content"])[:2] == shown[:2]


async def test_a_move_outdates_the_earlier_line_at_once_and_sleep_agrees(
    amem: AsyncMemory,
) -> None:
    await chat(amem, "I live in Pune.", "Pune is a lovely city.")
    await chat(amem, "I work as a nurse at Kestrel Labs.", "That must keep you busy.")
    await chat(amem, "My phone number is 91234 56789.", "Noted.")
    await chat(amem, "I moved from Pune to Bangalore last month.", "So you live in Bangalore now.")
    await chat(amem, "I now work at Quillmark.", "Congratulations!")
    await chat(amem, "My new number is 98450 12345.", "Your new number is 98450 12345.")

    async def block(query: str) -> list[str]:
        return lines((await amem.recall(query)).text)

    def said_by_user(shown: list[str], word: str) -> list[str]:
        # The lines the user said, but the move's: it says where they moved from (which
        # its fact does not, so it is shown) and is no outdated line.
        return [
            line
            for line in shown
            if line.startswith("[LOG") and "user:" in line and word in line and "moved" not in line
        ]

    for _ in ("before sleep", "after sleep"):
        home = await block("Where do I live now?")
        assert "[user.home city: Bangalore (since 2026-11)]" in home or any(
            line.startswith("[user.home city: Bangalore") for line in home
        ), home
        assert all("[outdated: now Bangalore]" in line for line in said_by_user(home, "Pune"))
        work = await block("Where do I work these days?")
        assert "[user.employer: Quillmark]" in work
        assert all("[outdated: now Quillmark]" in line for line in said_by_user(work, "Kestrel"))
        phone = await block("What's my phone number?")
        assert "[user.phone number: 98450 12345]" in phone
        assert all("[outdated" in line for line in said_by_user(phone, "91234"))
        await amem.sleep()

    history = summary(await amem.facts(include_history=True))
    assert [h for h in history if h[0] == "home_city"] == [
        ("home_city", "Pune", False, "superseded"),
        ("home_city", "Bangalore", True, None),
    ]
    assert [h[1:] for h in history if h[0] == "phone_number"] == [
        ("91234 56789", False, "superseded"),
        ("98450 12345", True, None),
    ]


async def test_only_the_user_s_own_words_are_drawn(amem: AsyncMemory) -> None:
    await chat(amem, "What should I do about eval?", "Never use eval. You live in Mumbai.")
    await amem.observe("assistant", "I moved to Chennai.")
    await amem.observe("tool", "Never retry a failed payment.")
    await amem.add("Asha: I moved to Delhi.", role="note")  # a named speaker, not the user
    await amem.add("I work at Zoho and never reply in French.", role="document")
    assert await amem.facts() == []
    assert "[FORBIDDEN" not in (await amem.recall("eval")).text


async def test_a_turn_the_upstream_never_answered_draws_nothing(amem: AsyncMemory) -> None:
    failed = {**META, "failed": "upstream timeout"}
    await amem.add_exchange([("user", "I live in Kochi.", failed)], "default", heard_at=0)
    assert await amem.facts() == []


async def test_forbid_and_the_mcp_anti_pattern_keep_the_alternative_out(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    async with Client(build_server(config, embedder=embedder)) as client:

        async def call(tool: str, **arguments: Any) -> Any:
            result = await client.call_tool(tool, arguments)
            assert not result.is_error, result.content
            return result.structured_content or "".join(
                getattr(c, "text", "") for c in result.content
            )

        anti = await call(
            "orma_remember", text="Do not use the requests library; use httpx.", kind="anti_pattern"
        )
        assert anti["rule"]["text"] == "user · forbidden requests library: use the requests library"
        forbidden = await call("orma_forbid", rule="forbidden: eval()")
        assert forbidden["text"] == "user · forbidden eval: eval()"
        again = await call("orma_forbid", rule="FORBIDDEN: forbidden: eval()")
        assert again["id"] == forbidden["id"]
        rule = await call("orma_remember", text="Never log secrets, mask them.", kind="rule")
        assert rule["rule"] is None  # a rule said as a plain memory binds all the same
        block = lines(await call("orma_recall", query="Write code that downloads a web page."))
        assert block[:5] == [
            "[FORBIDDEN: use the requests library]",
            "[PREFER: use httpx]",
            "[FORBIDDEN: eval()]",
            "[FORBIDDEN: log secrets]",
            "[PREFER: mask them]",
        ]
        facts = (await call("orma_facts"))["facts"]
        assert sum(f["prohibited"] for f in facts) == 3
        await call("orma_forget", state_id=anti["rule"]["id"])  # its alternative goes with it
        block = lines(await call("orma_recall", query="Write code that downloads a web page."))
        assert block[:3] == [
            "[FORBIDDEN: eval()]",
            "[FORBIDDEN: log secrets]",
            "[PREFER: mask them]",
        ]
        assert len((await call("orma_facts"))["facts"]) == len(facts) - 2


async def test_supersede_by_text_keeps_the_subject_of_a_plain_line(
    config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    plain = config.model_copy(update={"enable_facts_on_record": False})  # no state yet
    async with AsyncMemory(config=plain, embedder=embedder) as mem:
        await mem.observe("user", "I'm Sahil and I live in Pune.")
        await mem.observe("user", "I moved from Pune to Bangalore last month.")
        await mem.supersede("Bangalore", "Mysore")

        shown = lines((await mem.recall("Where do I live now?")).text)
        assert "[user.home city: Mysore]" in shown
        assert not any("note: Mysore" in line or "Bangalore" in line for line in shown)
        await mem.sleep()
        homes = [s for s in await mem.facts(include_history=True) if s.attribute == "home_city"]
        assert [(s.value, s.active) for s in homes] == [("Pune", False), ("Mysore", True)]
        assert "[user.home city: Mysore]" in lines((await mem.recall("Where do I live?")).text)


async def test_supersede_by_text_replaces_the_state_drawn_from_the_line(amem: AsyncMemory) -> None:
    await amem.observe("user", "I moved from Pune to Bangalore last month.")
    await amem.supersede("Bangalore", "Mysore")
    shown = lines((await amem.recall("Where do I live now?")).text)
    assert "[user.home city: Mysore]" in shown
    assert [(s.value, s.end_reason) for s in await amem.facts(include_history=True)] == [
        ("Bangalore", "corrected"),
        ("Mysore", None),
    ]
