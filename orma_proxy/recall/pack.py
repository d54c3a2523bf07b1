"""The memory block: what the model is told, inside a hard token budget.

Lines use the original Orma's Sutra format (``[LOG: 2026-10-10 user: ...]``)
under its ``## Memory`` header. Forbidden rules come first, as
``[FORBIDDEN: rule]``, with a header sentence framing them as strict negative
constraints: a small model obeys a prohibition it reads first and is told is
absolute far more reliably than one buried among facts. Tokens are counted
with a real tokenizer when the embedder has one; the block never exceeds its
budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date

from orma_proxy.recall.search import Passage

TokenCounter = Callable[[str], int]

HEADER = (
    "## Memory\n"
    "What you remember about the person you are talking to, from earlier conversations, "
    "notes and documents. Answer directly using these facts and statements without asking "
    "the user to re-confirm details already provided here; do not mention this list. "
    "A line marked [outdated] was true when it was said and has changed since. "
    "Today is {today}."
)
FORBIDDEN_NOTE = (
    " Lines marked [FORBIDDEN: ...] are strict negative constraints: you must NEVER "
    "suggest, mention, or take what is forbidden."
)


@dataclass(frozen=True)
class MemoryBlock:
    """The packed block, its size in tokens, and the rules and passages it holds."""

    text: str
    tokens: int
    passages: list[Passage] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.passages and not self.forbidden


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate that errs high (English averages ~4 characters a token)."""
    return len(text) // 3 + 1


def log_line(passage: Passage) -> str:
    return f"[LOG: {passage.said_at.date().isoformat()} {passage.role}: {passage.text}]"


def forbidden_line(rule: str) -> str:
    return f"[FORBIDDEN: {rule}]"


def pack_block(
    passages: Iterable[Passage],
    *,
    budget_tokens: int,
    today: date,
    count_tokens: TokenCounter = estimate_tokens,
    exclude_texts: Iterable[str] = (),
    forbidden: Iterable[str] = (),
) -> MemoryBlock:
    """Pack the forbidden rules, then the best passages, until the budget is spent.

    Passages whose text the conversation already holds (``exclude_texts``) or
    that repeat one already packed are skipped: the model sees them anyway.
    """
    rules = list(dict.fromkeys(" ".join(r.split()) for r in forbidden if r.strip()))
    header = HEADER.format(today=today.isoformat()) + (FORBIDDEN_NOTE if rules else "")
    used = count_tokens(header) + 1
    if used > budget_tokens:
        return MemoryBlock("", 0)
    seen = {" ".join(t.split()) for t in exclude_texts}
    lines: list[str] = []
    kept: list[str] = []
    for rule in rules:
        line = forbidden_line(rule)
        cost = count_tokens(line) + 1
        if used + cost <= budget_tokens:
            lines.append(line)
            kept.append(rule)
            used += cost
    chosen: list[Passage] = []
    for passage in passages:
        normal = " ".join(passage.text.split())
        if normal in seen or any(normal in t for t in seen if len(t) > len(normal)):
            continue
        line = log_line(passage)
        cost = count_tokens(line) + 1
        if used + cost > budget_tokens:
            continue
        seen.add(normal)
        lines.append(line)
        chosen.append(passage)
        used += cost
    while lines:
        # Tokens at line joins can differ from the sum of the parts: recount the whole.
        text = header + "\n\n" + "\n".join(lines)
        tokens = count_tokens(text)
        if tokens <= budget_tokens:
            return MemoryBlock(text, tokens, chosen, kept[: len(lines)])
        lines.pop()
        if chosen:
            chosen.pop()
    return MemoryBlock("", 0)
