"""Block precision: does the memory block carry what helps the question, and nothing else?

``python -m bench.block [--seed N] [--conversations N] [--configs old,new,...]
[--config NAME=KEY:VALUE,...] [--sleep] [--unflushed] [--via exchange|observe] [--show N]``

Cases come from ``bench/block_cases.py``: seeded conversations of 14-40 turns
(facts, chatter, questions, assistant replies and echoes, corrections, rules),
each in its own space, recorded as the proxy's ``Recorder`` records them
(``AsyncMemory.add_exchange``: the user turn and the reply in one commit; ``--via
observe`` records turn by turn, an hour apart). What the proxy does before it calls
``add_exchange`` is not seen here. Every query's block (``recall(query, space)``,
no conversation to exclude) is read line by line, each line mapped to the part
(one sentence) of the turn it came from:

- a ``[LOG: ...]`` passage by its episode id and text, a state or an event by the
  episode and sentence it cites, a ``[FORBIDDEN: ...]`` rule by the active
  prohibited state with that value, a ``[PREFER: ...]`` alternative by the active
  ``instead_of_*`` state with that value; each item claims the shortest line of the
  block text holding its text (the passage, the state's value, the event's what);
- a line no item claims (a kind of line the block may gain later) by its content
  words: the part sharing most of them (at least 2 and 40% of the line's), else
  "unmapped". The last table counts these lines.

A line is good when its part is in the query's ``should`` (the current name, home
and job, every rule, the current facts on the query's topics; the user's questions
on them for "What did I ask you about ...?") or ``on_topic`` (the assistant's
replies on those topics; outdated facts on them when the line holds ``[outdated``).
Every other line is a false positive, named by its part: chatter, question,
assistant (a reply off the topic), echo (the assistant repeating memory or a user
fact), outdated (a replaced fact without the mark), unrelated-fact (a current fact
off the topic, or a marked outdated one), wrongly-outdated (a current fact marked
outdated; it does not count for recall either) and unmapped. Precision = good
lines / lines shown, over all blocks; recall = ``should`` parts with a line /
``should`` parts, over all queries (and apart: core, rules, topic facts, asked
questions); tokens = ``MemoryBlock.tokens``, header included.

Each named configuration (``CONFIGS``: ``OrmaConfig`` overrides over ``BASE``)
records and queries the same cases in its own database, side by side in one run;
"vs first" is mean tokens over the first configuration's in the same mode. The
vectors come in one ``flush()`` after the recording, so a space's noise floor
never depends on timing, and recall's access log is written only at the end, so
no block of the run boosts a later one: the same seed gives the same table.
``--sleep`` queries again after a rule-based ``sleep()`` (no LLM), ``--unflushed``
adds a run per configuration whose vectors never come (the keyword channels
alone, as right after ``observe()``). Not part of pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.block_cases import Conversation, Part, PartId, Query, generate
from bench.block_report import Tally, print_case, report
from orma_proxy.config import OrmaConfig
from orma_proxy.embed.base import Embedder, Vectors
from orma_proxy.embed.models import load_embedder
from orma_proxy.facts import State, is_alternative, is_rule
from orma_proxy.memory.engine import AsyncMemory
from orma_proxy.recall.layout import CLASSIC_TITLES
from orma_proxy.recall.pack import MemoryBlock, estimate_tokens
from orma_proxy.text.stopwords import STOPWORDS

# name -> OrmaConfig overrides; adding a configuration is one line here (or --config).
# Issue 19, each switch of it off: the block as it was before (recall side, record time).
OLD = {
    "enable_facts_on_record": False,
    "recall_screen": False,
    "recall_relevant_states": False,
    "noise_floor_background_quantile": None,
    "recall_topic_share": None,
}
CONFIGS: dict[str, dict[str, Any]] = {
    "old": OLD,
    "new": {},  # the defaults
    "found": {"recall_topic_share": None},  # facts and chat lines in when found, on topic or not
    "floor-small": {**OLD, "noise_floor_min_sentences": 2},  # the percentile floor below 24
    "classic": {"enable_sutra_packing": False},  # prose sections instead of bracket lines
    "sleep-only": {"enable_facts_on_record": False},  # no rules or facts before sleep
}
DEFAULT_CONFIGS = "old,new"
# What the bench fixes whatever the configuration: its own files, no LLM within reach
# (port 9 refuses at once, so sleep falls back to its rules), one embedding model.
BASE = {
    "upstream": "http://127.0.0.1:9/v1",
    "embed_model": "all-MiniLM-L6-v2-int8",
    "access_flush_seconds": 3600.0,
}
WORD = re.compile(r"\w+")
PRIORITY = ("rule", "fact", "question", "reply", "echo", "chatter")
MARK = "[outdated"


class CachedEmbedder:
    """One model for every configuration: each text is embedded once per run."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._known: dict[str, Vectors] = {}
        self._count = getattr(inner, "count_tokens", estimate_tokens)

    def embed(self, texts: list[str]) -> Vectors:
        missing = [t for t in dict.fromkeys(texts) if t not in self._known]
        if missing:
            self._known.update(zip(missing, self.inner.embed(missing), strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._known[t] for t in texts])

    def count_tokens(self, text: str) -> int:
        count: int = self._count(text)
        return count


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOPWORDS}


def normal(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True)
class Line:
    text: str
    source: str  # rule, prefer, state, event, passage, words (mapped by its words), "" (unmapped)
    pid: PartId | None
    marked: bool


def content_lines(block: MemoryBlock) -> list[str]:
    if not block.text:
        return []
    body = block.text.split("\n\n", 1)[1] if "\n\n" in block.text else ""
    titles = set(CLASSIC_TITLES.values())
    return [line for line in body.splitlines() if line.strip() and line.strip() not in titles]


def part_of(conv: Conversation, turn: int | None, quote: str) -> PartId | None:
    """The part of ``turn`` (None: any turn) that ``quote`` comes from."""
    quote = normal(quote).lower()
    pool = [
        (pid, normal(p.text).lower()) for pid, p in conv.parts() if turn is None or pid[0] == turn
    ]
    inside = [pid for pid, text in pool if quote and (quote in text or text in quote)]
    if len(inside) == 1 or (inside and turn is not None):  # a sentence of two parts: the fact
        return min(inside, key=lambda pid: PRIORITY.index(conv.part(pid).kind))
    said = words(quote)
    best, common = None, 0
    for pid, text in pool:
        if len(said & words(text)) > common:
            best, common = pid, len(said & words(text))
    if turn is not None or (common >= 2 and common >= 0.4 * len(said)):
        return best
    return None


def map_lines(
    conv: Conversation, block: MemoryBlock, turn_of: dict[int, int], rules: list[State]
) -> list[Line]:
    """Every content line of the block, with the part it comes from."""
    items: list[tuple[str, str, int | None, str]] = []  # signature, source, episode, quote
    by_value = {normal(r.value): r for r in rules if is_rule(r)}
    instead = {normal(r.value): r for r in rules if is_alternative(r)}
    for shown, source, states in (
        (block.forbidden, "rule", by_value),
        (block.preferred, "prefer", instead),
    ):
        for value in shown:
            state = states.get(normal(value))
            episode = state.episode_id if state else None
            items.append((value, source, episode, state.quote if state else value))
    items += [(s.value, "state", s.episode_id, s.quote) for s in block.states]
    items += [(e.what, "event", e.episode_id, e.quote) for e in block.events]
    items += [(p.text, "passage", p.episode_id, p.text) for p in block.passages]
    texts = content_lines(block)
    claimed: dict[int, Line] = {}
    for signature, source, episode, quote in sorted(items, key=lambda i: -len(i[0])):
        sig = normal(signature)
        free = [i for i, t in enumerate(texts) if i not in claimed and sig in normal(t)]
        if not free:
            continue
        at = min(free, key=lambda i: len(texts[i]))
        turn = turn_of.get(episode) if episode is not None else None
        pid = part_of(conv, turn, quote)
        claimed[at] = Line(texts[at], source, pid, MARK in texts[at])
    for i, text in enumerate(texts):
        if i not in claimed:
            pid = part_of(conv, None, text)
            claimed[i] = Line(text, "words" if pid else "", pid, MARK in text)
    return [claimed[i] for i in range(len(texts))]


def judge(conv: Conversation, query: Query, line: Line) -> str:
    """``good``, or the false positive's category."""
    if line.pid is None:
        return "unmapped"
    part: Part = conv.part(line.pid)
    if line.pid in query.should:
        return "wrongly-outdated" if line.marked and part.kind == "fact" else "good"
    if line.pid in conv.outdated:
        if not line.marked:
            return "outdated"
        return "good" if line.pid in query.on_topic else "unrelated-fact"
    if part.kind == "fact" and line.marked:
        return "wrongly-outdated"
    if line.pid in query.on_topic:
        return "good"
    return {
        "chatter": "chatter",
        "question": "question",
        "reply": "assistant",
        "echo": "echo",
        "fact": "unrelated-fact",
        "rule": "unrelated-fact",
    }[part.kind]


def score(
    conv: Conversation, query: Query, lines: list[Line], block: MemoryBlock, tally: Tally
) -> None:
    kind = tally.by_kind.setdefault(query.kind, [0, 0, 0, 0])
    verdicts = [judge(conv, query, line) for line in lines]
    hit = {line.pid for line, v in zip(lines, verdicts, strict=True) if v == "good"}
    tally.lines += len(lines)
    tally.tokens.append(block.tokens)
    good = verdicts.count("good")
    tally.good += good
    kind[0] += good
    kind[1] += len(lines)
    for v in verdicts:
        if v != "good":
            tally.false[v] += 1
    for pid in query.should:
        part = conv.part(pid)
        group: str = "rule" if part.kind == "rule" else "core" if pid in conv.core else part.kind
        group = "topic" if group == "fact" else group
        tally.should[group] += 1
        kind[3] += 1
        if pid in hit:
            tally.shown[group] += 1
            kind[2] += 1
    tally.by_words += sum(1 for line in lines if line.source == "words")
    for line in lines:
        if line.pid in conv.outdated:
            tally.outdated_shown += 1
            tally.outdated_marked += line.marked
    for pid in conv.rules & hit:
        tally.rules_shown += 1
        mine = [line for line in lines if line.pid == pid and line.source == "rule"]
        tally.rules_forbidden += bool(mine)
        instead = conv.part(pid).instead.lower()
        tally.swallowed += any(instead and instead in line.text.lower() for line in mine)
    missed = [conv.part(pid).text for pid in sorted(query.should - hit)]
    if missed or len(set(verdicts)) > 1 or (verdicts and verdicts[0] != "good"):
        head = (
            f"#{conv.index} {query.kind} {query.text!r}: {len(lines)} lines, {block.tokens} tokens"
        )
        shown = [f"  {v:<16} {line.text}" for line, v in zip(lines, verdicts, strict=True)]
        tally.failures.append("\n".join([head, *(f"  {'MISSED':<16} {m}" for m in missed), *shown]))


async def record(mem: AsyncMemory, conv: Conversation, space: str, via: str) -> dict[int, int]:
    """Store the conversation; episode id -> turn index."""
    turn_of: dict[int, int] = {}
    start = time.time() - 3600.0 * len(conv.turns)
    if via == "observe":
        for i, turn in enumerate(conv.turns):
            episode = await mem.observe(turn.role, turn.text, space, at=start + 3600.0 * i)
            turn_of[episode] = i
        return turn_of
    meta = {"via": "proxy"}
    for i in range(0, len(conv.turns), 2):
        said = [(t.role, t.text, meta) for t in conv.turns[i : i + 2]]
        ids = await mem.add_exchange(said, space, heard_at=time.time())
        turn_of.update({e: i + j for j, e in enumerate(ids) if e is not None})
    return turn_of


async def query_all(
    mem: AsyncMemory, convs: list[Conversation], maps: list[dict[int, int]], budget: int | None
) -> Tally:
    tally = Tally()
    started = time.perf_counter()
    for conv, turn_of in zip(convs, maps, strict=True):
        space = f"conv-{conv.index}"
        rules = [s for s in await mem.facts(space) if is_rule(s) or is_alternative(s)]
        for query in conv.queries:
            block = await mem.recall(query.text, space, budget_tokens=budget)
            score(conv, query, map_lines(conv, block, turn_of, rules), block, tally)
    tally.seconds = time.perf_counter() - started
    return tally


async def run_config(
    name: str,
    overrides: dict[str, Any],
    convs: list[Conversation],
    embedder: CachedEmbedder,
    folder: Path,
    args: argparse.Namespace,
    flushed: bool,
) -> list[tuple[str, Tally]]:
    # The vectors come in one flush after the recording (none at all when not ``flushed``):
    # indexed while recording, the noise floor of a space would depend on the timing.
    settings = {**BASE, **overrides, "home": folder, "db_path": folder / f"{name}-{flushed}.db"}
    config = OrmaConfig(**{**settings, "index_in_background": False})
    rows: list[tuple[str, Tally]] = []
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        maps = [await record(mem, c, f"conv-{c.index}", args.via) for c in convs]
        if flushed:
            await mem.flush()
        rows.append(
            ("awake" if flushed else "no vectors", await query_all(mem, convs, maps, args.budget))
        )
        if args.sleep:
            await mem.sleep()
            if flushed:
                await mem.flush()
            mode = "after sleep" if flushed else "no vectors, after sleep"
            rows.append((mode, await query_all(mem, convs, maps, args.budget)))
    return rows


def parse_config(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME=KEY:VALUE,KEY:VALUE`` (values read as JSON when they parse, else as text)."""
    name, _, rest = text.partition("=")
    overrides: dict[str, Any] = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition(":")
        try:
            overrides[key.strip()] = json.loads(value)
        except ValueError:
            overrides[key.strip()] = value.strip()
    OrmaConfig(**overrides)  # fail now on a misspelt key, not after minutes of recording
    return name.strip(), overrides


async def main_async(args: argparse.Namespace) -> int:
    configs = {name: CONFIGS[name] for name in args.configs.split(",") if name}
    for text in args.config:
        name, overrides = parse_config(text)
        configs[name] = overrides
    convs = generate(args.seed, args.conversations)
    started = time.perf_counter()
    rows: list[tuple[str, str, Tally]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        embedder = CachedEmbedder(load_embedder(OrmaConfig(**BASE, home=folder)))
        for name, overrides in configs.items():
            for flushed in (True, False) if args.unflushed else (True,):
                for mode, tally in await run_config(
                    name, overrides, convs, embedder, folder, args, flushed
                ):
                    rows.append((name, mode, tally))
                    print(f"{name}, {mode}: done", file=sys.stderr)
    turns = sum(len(c.turns) for c in convs)
    queries = sum(len(c.queries) for c in convs)
    print(
        f"\n{len(convs)} conversations ({turns} turns), {queries} queries, seed {args.seed}, "
        f"recorded via {args.via}, {time.perf_counter() - started:.0f} s\n"
    )
    report(rows, args.show)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--conversations", type=int, default=48)
    parser.add_argument("--configs", default=DEFAULT_CONFIGS, help=f"of {', '.join(CONFIGS)}")
    parser.add_argument("--config", action="append", default=[], metavar="NAME=KEY:VALUE,...")
    parser.add_argument("--sleep", action="store_true", help="query again after sleep()")
    parser.add_argument("--unflushed", action="store_true", help="also a run without vectors")
    parser.add_argument("--via", choices=("exchange", "observe"), default="exchange")
    parser.add_argument("--budget", type=int, default=None, help="block budget (config's)")
    parser.add_argument("--show", type=int, default=0, help="failures to print per row")
    parser.add_argument("--print-case", type=int, default=None, metavar="N")
    args = parser.parse_args(argv)
    if args.print_case is not None:
        print_case(generate(args.seed, args.print_case + 1)[args.print_case])
        return 0
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
