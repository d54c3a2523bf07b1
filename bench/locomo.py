"""Recall quality on long real conversations: LoCoMo's development half (issue 17).

``python -m bench.locomo [--block] [--ablation] [--data PATH] [--conversations N] [--rebuild]``
(``--as-chat``: the product path, ``bench/locomo_chat.py``)

Scored exactly as ``../shared/datasets/locomo-dev/README.md`` says: each conversation
is its own space; every turn is added in session order as one note
``"{speaker}: {text}"`` said at its session's date and time; for each question of
categories 1-4 the top 10 passages are mapped to their turns (a turn counts once,
at the rank of its first passage). R@k = share of the question's evidence turns
among the first k distinct turns. Answer-token recall@5 = share of the answer's
words (lower case, stop words out) found in the text of those first 5 turns.

Printed for Orma's ``search()``, with ``--block`` for the passages of the block
``recall()`` builds (budget 1,024 tokens), and for a plain BM25 baseline over whole
turns (SQLite FTS5, the same tokenizer and query terms) built in the same run;
``--ablation`` scores the block with each ranking switch off in turn, with plain
RRF, and with the three signals of recall's history off together.

The dataset is CC BY-NC 4.0 and is never copied into this repository: it is read
from ``--data`` (default ``../shared/datasets/locomo-dev/locomo-dev.json``). Built
stores are cached per conversation under ``$XDG_CACHE_HOME/orma-bench/locomo``,
keyed by the conversation's text, the embedding model and ``STORE_FORMAT`` (bumped
when what ``add()`` writes changes); every run scores a fresh copy, so the access
log one run writes never reaches the next. Not part of pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.keywords import match_terms
from orma_proxy.text.stopwords import STOPWORDS

DEFAULT_DATA = Path("../shared/datasets/locomo-dev/locomo-dev.json")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TOP = 10
BLOCK_BUDGET = 1_024
# Bump when what ``add()`` stores for a note changes, so cached stores are rebuilt.
STORE_FORMAT = 3
ABLATION = (
    "enable_semantic",
    "enable_date_terms",
    "enable_spreading_activation",
    "enable_hawkes",
    "enable_ebbinghaus",
    "enable_base_level",
    "enable_novelty_gate",
)
# Ablation rows that are a setting rather than a switch.
ABLATION_SETTINGS: dict[str, dict[str, Any]] = {
    "plain RRF (rrf_score_power 0)": {"rrf_score_power": 0.0},
    "Hawkes, Ebbinghaus, base level off": {
        "enable_hawkes": False,
        "enable_ebbinghaus": False,
        "enable_base_level": False,
    },
}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    said_at: datetime

    @property
    def note(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    category: int
    evidence: frozenset[str]


@dataclass(frozen=True)
class Conversation:
    name: str
    turns: list[Turn]
    questions: list[Question]

    def key(self, model: str) -> str:
        raw = json.dumps([[t.dia_id, t.note, t.said_at.isoformat()] for t in self.turns])
        return hashlib.sha256(f"{STORE_FORMAT}|{model}|{raw}".encode()).hexdigest()[:16]


@dataclass
class Scores:
    """Per-question scores of one system, with the time each query took."""

    r5: dict[int, list[float]] = field(default_factory=dict)
    r10: dict[int, list[float]] = field(default_factory=dict)
    answer5: dict[int, list[float]] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)

    def add(self, q: Question, turns: Sequence[str], texts: dict[str, str], secs: float) -> None:
        order = list(dict.fromkeys(turns))
        for table, k in ((self.r5, 5), (self.r10, 10)):
            table.setdefault(q.category, []).append(
                len(q.evidence & set(order[:k])) / len(q.evidence)
            )
        words = _words(q.answer)
        seen = _words(" ".join(texts.get(t, "") for t in order[:5]))
        share = len(words & seen) / len(words) if words else 0.0
        self.answer5.setdefault(q.category, []).append(share)
        self.seconds.append(secs)

    def row(self, table: dict[int, list[float]], category: int | None) -> float:
        values = [v for c, vs in table.items() if category in (None, c) for v in vs]
        return 100 * statistics.fmean(values) if values else 0.0


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def load(path: Path, limit: int | None) -> list[Conversation]:
    """The conversations of the LoCoMo file at ``path`` (the first ``limit``)."""
    conversations = []
    for sample in json.loads(path.read_text(encoding="utf-8"))[:limit]:
        conv = sample["conversation"]
        sessions = sorted(
            (int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k)),
        )
        turns = []
        for n in sessions:
            when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            for turn in conv[f"session_{n}"]:
                turns.append(Turn(turn["dia_id"], turn["speaker"], turn["text"], when))
        questions = []
        for qa in sample["qa"]:
            evidence = frozenset(
                f"D{a}:{b}" for e in qa["evidence"] for a, b in _EVIDENCE.findall(e)
            )
            if qa["category"] in CATEGORIES and evidence:
                questions.append(
                    Question(qa["question"], str(qa["answer"]), qa["category"], evidence)
                )
        conversations.append(Conversation(sample["sample_id"], turns, questions))
    return conversations


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "orma-bench" / "locomo"


def _config(path: Path) -> OrmaConfig:
    return OrmaConfig.load().model_copy(update={"db_path": path, "budget_tokens": BLOCK_BUDGET})


async def built_store(conv: Conversation, model: str, rebuild: bool) -> tuple[Path, dict[int, str]]:
    """The cached store of ``conv`` (built now if missing) and its episode id -> turn map."""
    folder = _cache_dir() / f"{conv.name}-{conv.key(model)}"
    db, turns_file = folder / "orma.db", folder / "turns.json"
    if rebuild and folder.exists():
        shutil.rmtree(folder)
    if not turns_file.exists():
        folder.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        episodes: dict[int, str] = {}
        async with AsyncMemory(config=_config(db)) as mem:
            for turn in conv.turns:
                episode = await mem.add(turn.note, conv.name, at=turn.said_at.replace(tzinfo=UTC))
                episodes[episode] = turn.dia_id
            await mem.flush()
        turns_file.write_text(json.dumps(episodes))
        took = time.perf_counter() - started
        print(f"  built {conv.name}: {len(conv.turns)} turns in {took:.0f} s", file=sys.stderr)
    return db, {int(k): v for k, v in json.loads(turns_file.read_text()).items()}


def bm25_turns(conv: Conversation) -> Callable[[str], list[str]]:
    """Plain BM25 over whole turns: FTS5 with Orma's tokenizer and query terms."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE turns USING fts5(dia_id UNINDEXED, text, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.executemany("INSERT INTO turns VALUES (?, ?)", [(t.dia_id, t.note) for t in conv.turns])

    def search(query: str) -> list[str]:
        terms = match_terms(query)
        if terms is None:
            return []
        sql = "SELECT dia_id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?"
        return [r[0] for r in conn.execute(sql, (terms, TOP))]

    return search


Searcher = Callable[[str], Awaitable[list[str]]]


async def score_orma(
    conv: Conversation,
    db: Path,
    episodes: dict[int, str],
    config_update: dict[str, Any],
    block: bool,
) -> Scores:
    """Orma's search (or block) on a fresh copy of the cached store."""
    texts = {t.dia_id: t.note for t in conv.turns}
    scores = Scores()
    with tempfile.TemporaryDirectory(prefix="orma-locomo-") as tmp:
        copy = Path(tmp) / "orma.db"
        shutil.copyfile(db, copy)
        config = _config(copy).model_copy(update=config_update)
        async with AsyncMemory(config=config) as mem:
            await mem.search("warm up", conv.name)
            for q in conv.questions:
                started = time.perf_counter()
                if block:
                    found = (
                        await mem.recall(q.text, conv.name, budget_tokens=BLOCK_BUDGET)
                    ).passages
                else:
                    found = (await mem.search(q.text, conv.name, k=TOP)).passages
                secs = time.perf_counter() - started
                scores.add(q, [episodes[p.episode_id] for p in found], texts, secs)
    return scores


def score_bm25(conv: Conversation) -> Scores:
    texts = {t.dia_id: t.note for t in conv.turns}
    search = bm25_turns(conv)
    scores = Scores()
    for q in conv.questions:
        started = time.perf_counter()
        found = search(q.text)
        scores.add(q, found, texts, time.perf_counter() - started)
    return scores


def merge(parts: list[Scores]) -> Scores:
    total = Scores()
    for part in parts:
        for mine, theirs in (
            (total.r5, part.r5),
            (total.r10, part.r10),
            (total.answer5, part.answer5),
        ):
            for c, vs in theirs.items():
                mine.setdefault(c, []).extend(vs)
        total.seconds.extend(part.seconds)
    return total


def table(rows: dict[str, Scores]) -> str:
    """A Markdown table: R@5 / R@10 (answer-token recall@5), overall and per category."""
    head = ["system", "overall", *(CATEGORIES[c] for c in sorted(CATEGORIES)), "ms/query"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, s in rows.items():
        cells = [name]
        for category in (None, *sorted(CATEGORIES)):
            cells.append(
                f"{s.row(s.r5, category):.1f} / {s.row(s.r10, category):.1f} "
                f"({s.row(s.answer5, category):.1f})"
            )
        cells.append(f"{1000 * statistics.median(s.seconds):.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def run(args: argparse.Namespace) -> int:
    if not args.data.exists():
        print(
            f"LoCoMo data not found at {args.data}: put locomo-dev.json there or pass --data PATH",
            file=sys.stderr,
        )
        return 2
    conversations = load(args.data, args.conversations)
    if args.as_chat:
        from bench.locomo_chat import run_chat  # the chat path imports this module

        return await run_chat(conversations, args.names, args.rebuild)
    model = OrmaConfig.load().embed_model
    stores = [await built_store(conv, model, args.rebuild) for conv in conversations]
    variants: dict[str, tuple[dict[str, Any], bool]] = {"Orma search()": ({}, False)}
    if args.block or args.ablation:
        variants["Orma recall() block"] = ({}, True)
    if args.ablation:
        for switch in ABLATION:
            variants[f"block, {switch.removeprefix('enable_')} off"] = ({switch: False}, True)
        for name, update in ABLATION_SETTINGS.items():
            variants[f"block, {name}"] = (update, True)
    rows = {"plain BM25 over whole turns": merge([score_bm25(c) for c in conversations])}
    for name, (update, block) in variants.items():
        parts = [
            await score_orma(conv, db, episodes, update, block)
            for conv, (db, episodes) in zip(conversations, stores, strict=True)
        ]
        rows[name] = merge(parts)
    count = sum(len(c.questions) for c in conversations)
    print(f"LoCoMo dev: {len(conversations)} conversations, {count} questions (categories 1-4)")
    print("R@5 / R@10 (answer-token recall@5), % ; ms per query is the median\n")
    print(table(rows))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--block", action="store_true", help="score recall()'s block too")
    parser.add_argument("--ablation", action="store_true", help="the block, each switch off")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument(
        "--as-chat", action="store_true", help="record as a chat, score the block (locomo_chat)"
    )
    parser.add_argument(
        "--names",
        choices=("assistant", "both", "none"),
        default="assistant",
        help="with --as-chat: whose turns carry their speaker's name",
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached stores")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
