"""The product path on real dialogue: LoCoMo's development half recorded as a chat (issue 27).

``python -m bench.locomo --as-chat [--names assistant|both|none] [--data PATH]
[--conversations N] [--rebuild]``

Each conversation is its own space. Its first speaker is the user: each of their
turns is ``observe(role="user")`` (facts drawn on record, as the proxy records a
user's message); the second speaker is the assistant, ``observe(role="assistant")``,
each at its session's date. ``--names`` says which turns carry their speaker's
name (the OpenAI message ``name``; default: the assistant's only, the user's turns
as a client sends them). For each question of categories 1-4 the block is built as
the proxy builds it (``recall()``, the default budget) and its items are taken in
the order recall ranked them: a passage counts for its turn, a state or an event
for the turn it cites. R@k = share of the evidence turns among the first k
distinct turns. Scored without sleep, and after ``sleep()`` with no LLM (the rule
extractor), overall, per category, and by whose turns the evidence is (the
user's, the assistant's; questions with both are in neither row).

Every assistant line the block shows is checked for its label: it must read as
the assistant's words (``assistant`` or its name), never as the user's.

Stores are cached as ``bench/locomo.py`` caches them (``$XDG_CACHE_HOME/orma-bench/
locomo-chat``), keyed by the conversation, the names, the embedding model and
``STORE_FORMAT``; each run scores a fresh copy. The data is read from ``--data``
and never copied here. Not part of pytest.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

import orma_proxy.recall.pipeline as pipeline
from bench.locomo import Conversation, Question, Scores, _cache_dir, table
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.recall.pack import Entry, MemoryBlock

# Bump when what observe() stores for a turn (or what sleep draws) changes.
STORE_FORMAT = 1
NAMES = ("assistant", "both", "none")
USER, ASSISTANT = "user", "assistant"
_LOG = re.compile(r"^\[LOG: \d{4}-\d{2}-\d{2} (.+?): (.*)\]$")


@dataclass
class Labels:
    """How the block labelled the assistant's lines it showed."""

    shown: int = 0
    as_assistant: int = 0
    as_user: int = 0


@dataclass
class ChatScores:
    """One system's scores: overall and per category, and split by whose turns the evidence is."""

    all: Scores = field(default_factory=Scores)
    by_owner: dict[str, Scores] = field(default_factory=dict)
    labels: Labels = field(default_factory=Labels)
    # (conversation, question, R@10) for each question: which ones sleep moved.
    each: list[tuple[str, str, float]] = field(default_factory=list)

    def add(
        self,
        conv: str,
        q: Question,
        turns: Sequence[str],
        texts: dict[str, str],
        secs: float,
        owner: str,
    ) -> None:
        self.all.add(q, turns, texts, secs)
        self.by_owner.setdefault(owner, Scores()).add(q, turns, texts, secs)
        self.each.append((conv, q.text, self.all.r10[q.category][-1]))


def owner_of(q: Question, speaker: dict[str, str]) -> str:
    """Whose turns hold the evidence: ``user``, ``assistant`` or ``both``."""
    owners = {speaker.get(t, "") for t in q.evidence} - {""}
    return owners.pop() if len(owners) == 1 else "both"


def _config(path: Path) -> OrmaConfig:
    """The default configuration (budget included) on ``path``, sleeping with no LLM."""
    # No held index (vec0 and FTS5 only): a space held after a timing-dependent number of
    # searches would change the candidates part way through a run.
    update = {"db_path": path, "upstream": "", "vector_memory_after": 0, "keyword_memory_after": 0}
    return OrmaConfig.load().model_copy(update=update)


def _key(conv: Conversation, model: str, names: str) -> str:
    raw = json.dumps([[t.dia_id, t.speaker, t.text, t.said_at.isoformat()] for t in conv.turns])
    return hashlib.sha256(f"{STORE_FORMAT}|{model}|{names}|{raw}".encode()).hexdigest()[:16]


async def built_stores(
    conv: Conversation, model: str, names: str, rebuild: bool
) -> tuple[Path, Path, dict[int, str]]:
    """The cached stores of ``conv`` recorded as a chat, before and after sleep, and the
    episode id -> turn map (built now if missing)."""
    folder = _cache_dir().with_name("locomo-chat") / f"{conv.name}-{_key(conv, model, names)}"
    awake, slept, turns_file = folder / "awake.db", folder / "slept.db", folder / "turns.json"
    if rebuild and folder.exists():
        shutil.rmtree(folder)
    if not turns_file.exists():
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        first = conv.turns[0].speaker
        episodes: dict[int, str] = {}
        async with AsyncMemory(config=_config(awake)) as mem:
            for turn in conv.turns:
                role = USER if turn.speaker == first else ASSISTANT
                named = names == "both" or (names == ASSISTANT and role == ASSISTANT)
                episode = await mem.observe(
                    role,
                    turn.text,
                    conv.name,
                    at=turn.said_at.replace(tzinfo=UTC),
                    name=turn.speaker if named else None,
                )
                episodes[episode] = turn.dia_id
            await mem.flush()
        shutil.copyfile(awake, slept)
        async with AsyncMemory(config=_config(slept)) as mem:
            report = await mem.sleep(conv.name)
            await mem.flush()
        turns_file.write_text(json.dumps(episodes))
        took = time.perf_counter() - started
        print(
            f"  built {conv.name}: {len(conv.turns)} turns, slept ({report.outcomes}) "
            f"in {took:.0f} s",
            file=sys.stderr,
        )
    return awake, slept, {int(k): v for k, v in json.loads(turns_file.read_text()).items()}


@contextmanager
def ranked_entries() -> Iterator[list[Entry]]:
    """The entries each block is packed from, with recall's scores (bench only).

    The block lists its items by kind; R@k needs them in the order recall ranked
    them across kinds, which only the packer's input says.
    """
    seen: list[Entry] = []
    original: Callable[..., MemoryBlock] = getattr(pipeline, "pack_block")  # noqa: B009

    def spy(*args: Any, **kwargs: Any) -> MemoryBlock:
        seen[:] = list(kwargs.get("entries", ()))
        return original(*args, **kwargs)

    setattr(pipeline, "pack_block", spy)  # noqa: B010
    try:
        yield seen
    finally:
        setattr(pipeline, "pack_block", original)  # noqa: B010


def block_turns(
    block: MemoryBlock, entries: list[Entry], turn_of_sentence: dict[int, str]
) -> list[str]:
    """The turns of what ``block`` shows, in recall's order (a fact for the line it cites)."""
    score = {e.key: e.score for e in entries}
    shown = block.keys()
    shown.sort(key=lambda k: -score.get(k, 0.0))
    cited = {("state", s.id): s.sentence_id for s in block.states}
    cited |= {("event", e.id): e.sentence_id for e in block.events}
    cited |= {("passage", p.sentence_id): p.sentence_id for p in block.passages}
    return [turn_of_sentence[cited[k]] for k in shown if cited[k] in turn_of_sentence]


def check_labels(block: MemoryBlock, labels: Labels, user_name: str) -> None:
    """Count how the block's lines of the assistant's turns name who said them."""
    said = {}
    for line in block.text.splitlines():
        found = _LOG.match(line)
        if found:
            said[found.group(2)] = found.group(1)
    for p in block.passages:
        if p.role != ASSISTANT:
            continue
        who = next((w for text, w in said.items() if text.startswith(p.text)), None)
        if who is None:
            continue
        labels.shown += 1
        words = set(who.lower().replace("(", " ").replace(")", " ").split())
        if USER in words or user_name.lower() in words:
            labels.as_user += 1
        elif ASSISTANT in words or (p.speaker or "").lower() in words:
            labels.as_assistant += 1


async def score_chat(
    conv: Conversation, db: Path, episodes: dict[int, str], result: ChatScores
) -> None:
    """Each question's block on a fresh copy of ``db``, scored into ``result``."""
    texts = {t.dia_id: f"{t.speaker}: {t.text}" for t in conv.turns}
    first = conv.turns[0].speaker
    speaker = {t.dia_id: USER if t.speaker == first else ASSISTANT for t in conv.turns}
    with tempfile.TemporaryDirectory(prefix="orma-locomo-chat-") as tmp:
        copy = Path(tmp) / "orma.db"
        shutil.copyfile(db, copy)
        async with AsyncMemory(config=_config(copy)) as mem:
            turn_of_sentence = sentence_turns(copy, episodes)
            # Asked a day after the last session, the same moment every run: recency and
            # relative dates then score alike from run to run.
            asked_at = max(t.said_at for t in conv.turns) + timedelta(days=1)
            await mem.search("warm up", conv.name)
            with ranked_entries() as entries:
                for q in conv.questions:
                    started = time.perf_counter()
                    block = await mem.recall(q.text, conv.name, at=asked_at)
                    secs = time.perf_counter() - started
                    turns = block_turns(block, entries, turn_of_sentence)
                    result.add(conv.name, q, turns, texts, secs, owner_of(q, speaker))
                    check_labels(block, result.labels, first)


def sentence_turns(db: Path, episodes: dict[int, str]) -> dict[int, str]:
    """Sentence id -> turn, read from the store's file."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT id, episode_id FROM sentences").fetchall()
    finally:
        conn.close()
    return {sid: episodes[eid] for sid, eid in rows if eid in episodes}


def owner_table(rows: dict[str, ChatScores]) -> str:
    """R@5 / R@10 by whose turns the evidence is, with the question counts."""
    head = ["system", "user's turns", "assistant's turns", "both", "assistant lines as user"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in rows.items():
        cells = [name]
        for owner in (USER, ASSISTANT, "both"):
            part = s.by_owner.get(owner, Scores())
            count = len(part.seconds)
            cells.append(
                f"{part.row(part.r5, None):.1f} / {part.row(part.r10, None):.1f} (n={count})"
            )
        cells.append(f"{s.labels.as_user} of {s.labels.shown}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def run_chat(conversations: list[Conversation], names: str, rebuild: bool) -> int:
    model = OrmaConfig.load().embed_model
    stores = [await built_stores(conv, model, names, rebuild) for conv in conversations]
    rows: dict[str, ChatScores] = {}
    for label, slept in (("as chat, no sleep", False), ("as chat, after sleep (rules)", True)):
        result = ChatScores()
        for conv, (awake, after, turns) in zip(conversations, stores, strict=True):
            await score_chat(conv, after if slept else awake, turns, result)
        rows[label] = result
    count = sum(len(c.questions) for c in conversations)
    print(
        f"LoCoMo dev as chat ({names} named): {len(conversations)} conversations, "
        f"{count} questions (categories 1-4); block at the default budget"
    )
    print("R@5 / R@10 (answer-token recall@5), % ; ms per query is the median\n")
    print(table({name: s.all for name, s in rows.items()}))
    print("\nBy whose turns the evidence is (R@5 / R@10, %):\n")
    print(owner_table(rows))
    for name, s in rows.items():
        print(
            f"\n{name}: {s.labels.shown} assistant lines shown, "
            f"{s.labels.as_assistant} labelled as the assistant's, {s.labels.as_user} as the user's"
        )
    print(moved(*rows.values()))
    return 0


def moved(before: ChatScores, after: ChatScores) -> str:
    """The questions whose R@10 sleep changed, worst first: what to read when it falls."""
    changes = sorted(
        zip(before.each, after.each, strict=True), key=lambda pair: pair[1][2] - pair[0][2]
    )
    lines = [
        f"  {b[0]}: R@10 {b[2] * 100:.0f} -> {a[2] * 100:.0f}  {b[1]}"
        for b, a in changes
        if a[2] != b[2]
    ]
    return f"\nQuestions sleep moved ({len(lines)}):\n" + "\n".join(lines)
