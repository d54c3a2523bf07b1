"""The cognitive mechanisms on histories of use: what each one contributes (issue 17).

``python -m bench.cognitive [--pairs N] [--seed S] [--budget TOKENS]``

Hawkes, Ebbinghaus and the ACT-R base level rank by when and how often recall
returned an item, and when it was said; LoCoMo (``bench.locomo``) has no such
history, so they are measured here, on a seeded benchmark of our own, through
the public SDK with a controlled clock: ``add(..., at=)`` sets when a fact was
said, ``recall(..., at=)`` when it was recalled (the access log keeps that time).

Each probe is a space holding two facts that one question matches equally well
("My gym locker code is 4411." / "My pool locker code is 9032." for "What is my
locker code?") and two filler notes; a history of use made of recalls that
name one fact ("What is my gym locker code?"); and the ambiguous question,
asked at the end with a budget that fits one fact. The probe is right when the
block gives the fact its scenario says the user means (and the other one only
marked outdated, if at all). Which fact of a pair the history favours, and
which was said first, are drawn at random: relevance alone is right about
half the time. The scenarios, each an assumption about what a history says of
the next question (the mechanism meant for it in brackets):

- burst: the target was recalled twice in the last ten minutes; the other
  every day of the ten days before. The conversation is on the target now
  (Hawkes: minutes count, days don't).
- spaced: the target was recalled on four days, five days apart; the other
  four times within an hour, just after the target's last recall. What was
  needed on many separate days lasts (Ebbinghaus: stability grows with spaced
  use).
- frequent: the target was recalled eight times yesterday, the other once,
  just after. What is used more is needed more (ACT-R base level).
- recent: neither was ever recalled; the target was said two days ago, the
  other 200 days ago. A fresher statement is likelier to hold (Ebbinghaus and
  the base level both decay from the last use).
- corrected: one fact said twice with a new value; the old value recalled
  every week for four months, the new one said two days ago. The new value is
  right, and the history points the other way: what sleep's supersession is
  for. "corrected, after sleep" is the same with the rule-based sleep run after
  each statement (no LLM).

"asked by name" is the cost side: in the four two-fact scenarios, the question
that names the fact the history does *not* favour ("What is my pool locker
code?") must still get it.

Every variant scores the same histories (one store, built once, copied fresh
for each): all on, each switch off, the three history signals off together,
and plain RRF (``rrf_score_power`` 0) for the fusion's part in "asked by
name". The store is built with the three history signals off, so that each
recall making a history returns the fact it names, as the scenario says.
Spreading activation spreads through the entity graph sleep builds from states
and events; only the "corrected, after sleep" probes have one.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder

NOW = datetime(2025, 10, 28, 9, 0, tzinfo=UTC)
DEFAULT_PAIRS = 24
DEFAULT_BUDGET = 72  # the header and one fact's line, never two
HISTORY_OFF = "Hawkes, Ebbinghaus, base level off"
VARIANTS: dict[str, dict[str, Any]] = {
    "all on": {},
    "Hawkes off": {"enable_hawkes": False},
    "Ebbinghaus off": {"enable_ebbinghaus": False},
    "ACT-R base level off": {"enable_base_level": False},
    "spreading activation off": {"enable_spreading_activation": False},
    HISTORY_OFF: {
        "enable_hawkes": False,
        "enable_ebbinghaus": False,
        "enable_base_level": False,
    },
    "plain RRF fusion": {"rrf_score_power": 0.0},
}


@dataclass(frozen=True)
class Template:
    """A fact told twice with a different qualifier, and the questions that find it."""

    thing: str  # "locker code": "My gym locker code is 4411."

    def fact(self, place: str, value: int) -> str:
        return f"My {place} {self.thing} is {value}."

    def ambiguous(self) -> str:
        return f"What is my {self.thing}?"

    def specific(self, place: str) -> str:
        return f"What is my {place} {self.thing}?"


TEMPLATES = tuple(
    Template(thing)
    for thing in ("locker code", "wifi password", "parking spot", "door code", "alarm pin")
)
PLACES = (
    "gym", "pool", "office", "library", "studio", "clinic", "school", "station",
    "warehouse", "garage", "cabin", "lab", "bakery", "marina", "hostel", "museum",
)  # fmt: skip
FILLER = (
    "I bought new running shoes last month.",
    "My sister is learning to play the cello.",
)


@dataclass(frozen=True)
class Pair:
    """A probe's two facts (by their values), the question for each, and the ambiguous one."""

    scenario: str
    space: str
    target: str
    other: str
    target_value: str
    other_value: str
    ask_target: str
    ask_other: str
    question: str
    target_first: bool  # said first (ties between equal matches go to the newer line)


def make_pair(rng: random.Random, scenario: str, space: str) -> Pair:
    template = rng.choice(TEMPLATES)
    first, second = rng.sample(PLACES, 2)
    values = rng.sample(range(1000, 10000), 2)
    order = rng.random() < 0.5
    if scenario.startswith("corrected"):  # one place: its old value, then its new one
        ask = template.specific(first)
        old, new = (template.fact(first, v) for v in values)
        return Pair(scenario, space, new, old, str(values[1]), str(values[0]), ask, ask, ask, False)
    facts = [template.fact(q, v) for q, v in ((first, values[0]), (second, values[1]))]
    asks = [template.specific(q) for q in (first, second)]
    return Pair(
        scenario, space, facts[0], facts[1], str(values[0]), str(values[1]),
        asks[0], asks[1], template.ambiguous(), order,
    )  # fmt: skip


def swapped(pair: Pair) -> Pair:
    """The pair with the other fact as its target."""
    return replace(
        pair,
        target=pair.other,
        other=pair.target,
        target_value=pair.other_value,
        other_value=pair.target_value,
    )


def holds(block: str, pair: Pair) -> bool:
    """The block gives the target's value, and the other value only as outdated."""
    stale = [line for line in block.splitlines() if pair.other_value in line]
    return pair.target_value in block and all("[outdated" in line for line in stale)


@dataclass
class Build:
    """The store's probes, and how many history-making recalls missed their fact."""

    pairs: list[Pair]
    recalls: int = 0
    missed: int = 0


class Builder:
    """Writes the probes' facts and histories through the SDK, in time order per space."""

    def __init__(self, mem: AsyncMemory, budget: int) -> None:
        self.mem = mem
        self.budget = budget
        self.build = Build([])

    async def say(self, pair: Pair, text: str, at: datetime) -> None:
        await self.mem.add(text, pair.space, role="user", at=at)

    async def both(self, pair: Pair, at: datetime) -> None:
        """The filler and both facts, in the pair's order, a minute apart."""
        for text in FILLER:
            await self.say(pair, text, at - timedelta(hours=1))
        facts = [pair.target, pair.other] if pair.target_first else [pair.other, pair.target]
        for i, text in enumerate(facts):
            await self.say(pair, text, at + timedelta(minutes=i))

    async def recall(self, pair: Pair, question: str, value: str, at: datetime) -> None:
        block = await self.mem.recall(question, pair.space, budget_tokens=self.budget, at=at)
        self.build.recalls += 1
        self.build.missed += value not in block.text
        await self.mem.flush()  # logged before the next recall, as minutes or days apart


async def burst(b: Builder, p: Pair) -> None:
    await b.both(p, NOW - timedelta(days=60))
    for day in range(10, 0, -1):
        await b.recall(p, p.ask_other, p.other_value, NOW - timedelta(days=day))
    for minutes in (10, 5):
        await b.recall(p, p.ask_target, p.target_value, NOW - timedelta(minutes=minutes))


async def spaced(b: Builder, p: Pair) -> None:
    await b.both(p, NOW - timedelta(days=30))
    for day in (20, 15, 10, 5):
        await b.recall(p, p.ask_target, p.target_value, NOW - timedelta(days=day))
    for minutes in (5, 20, 35, 50):  # after the target's last use: it is not the more recent
        await b.recall(p, p.ask_other, p.other_value, NOW - timedelta(days=5, minutes=-minutes))


async def frequent(b: Builder, p: Pair) -> None:
    await b.both(p, NOW - timedelta(days=30))
    yesterday = NOW - timedelta(hours=22)
    for minutes in range(8):
        await b.recall(p, p.ask_target, p.target_value, yesterday + timedelta(minutes=minutes))
    await b.recall(p, p.ask_other, p.other_value, yesterday + timedelta(minutes=10))


async def recent(b: Builder, p: Pair) -> None:
    for text in FILLER:
        await b.say(p, text, NOW - timedelta(days=201))
    await b.say(p, p.other, NOW - timedelta(days=200))
    await b.say(p, p.target, NOW - timedelta(days=2))


async def corrected(b: Builder, p: Pair, *, consolidate: bool = False) -> None:
    for text in FILLER:
        await b.say(p, text, NOW - timedelta(days=121))
    await b.say(p, p.other, NOW - timedelta(days=120))
    if consolidate:
        await b.mem.sleep(p.space)
    for week in range(17, 0, -1):
        await b.recall(p, p.ask_other, p.other_value, NOW - timedelta(days=3 + 7 * (week - 1)))
    await b.say(p, p.target, NOW - timedelta(days=2))
    if consolidate:
        await b.mem.sleep(p.space)


async def corrected_after_sleep(b: Builder, p: Pair) -> None:
    await corrected(b, p, consolidate=True)


# Not a history scenario: the fact the history does not favour, asked for by name.
NAMED = "asked by name"
SCENARIOS: dict[str, Callable[[Builder, Pair], Awaitable[None]]] = {
    "burst": burst,
    "spaced": spaced,
    "frequent": frequent,
    "recent": recent,
    "corrected": corrected,
    "corrected, after sleep": corrected_after_sleep,
}


def config_for(db: Path, update: dict[str, Any]) -> OrmaConfig:
    return OrmaConfig(
        home=db.parent / "home", db_path=db, upstream="", budget_tokens=4096, **update
    )


async def build_store(db: Path, embedder: Embedder, pairs: int, seed: int, budget: int) -> Build:
    rng = random.Random(seed)
    # Built with the history signals off, so that each history-making recall returns
    # the fact it names (with them on, a history can outweigh the name: see NAMED).
    async with AsyncMemory(config=config_for(db, VARIANTS[HISTORY_OFF]), embedder=embedder) as mem:
        builder = Builder(mem, budget)
        for name, scenario in SCENARIOS.items():
            for _ in range(pairs):
                space = f"{name.split(',')[0]}-{len(builder.build.pairs)}"
                pair = make_pair(rng, name, space)
                await scenario(builder, pair)
                builder.build.pairs.append(pair)
                await mem.flush()  # vectors for the next recalls, and the access log written
    return builder.build


async def score(
    db: Path, embedder: Embedder, pairs: Sequence[Pair], update: dict[str, Any], budget: int
) -> dict[str, list[bool]]:
    """Whether each probe's block gives its target fact (and not the other), by scenario."""
    results: dict[str, list[bool]] = {name: [] for name in [*SCENARIOS, NAMED]}
    with tempfile.TemporaryDirectory(prefix="orma-cognitive-") as tmp:
        copy = Path(tmp) / "memory.db"
        shutil.copyfile(db, copy)
        async with AsyncMemory(config=config_for(copy, update), embedder=embedder) as mem:
            for pair in pairs:
                block = await mem.recall(pair.question, pair.space, budget_tokens=budget, at=NOW)
                results[pair.scenario].append(holds(block.text, pair))
                if pair.ask_other != pair.ask_target:
                    # The fact the history does not favour, asked for by name: a boost
                    # that outweighs the words asked for gives the wrong one.
                    named = await mem.recall(
                        pair.ask_other, pair.space, budget_tokens=budget, at=NOW
                    )
                    results[NAMED].append(holds(named.text, swapped(pair)))
    return results


def table(rows: dict[str, dict[str, list[bool]]]) -> str:
    head = ["variant", *SCENARIOS, "scenarios", NAMED]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    for name, results in rows.items():
        cells = [_percent(results[s]) for s in SCENARIOS]
        every = [x for s in SCENARIOS for x in results[s]]
        lines.append(
            f"| {name} | " + " | ".join([*cells, _percent(every), _percent(results[NAMED])]) + " |"
        )
    return "\n".join(lines)


def _percent(hits: list[bool]) -> str:
    return f"{100 * sum(hits) / len(hits):.0f}" if hits else "-"


async def run(args: argparse.Namespace) -> int:
    embedder = await asyncio.to_thread(load_embedder, OrmaConfig())
    with tempfile.TemporaryDirectory(prefix="orma-cognitive-build-") as tmp:
        db = Path(tmp) / "memory.db"
        built = await build_store(db, embedder, args.pairs, args.seed, args.budget)
        rows = {
            name: await score(db, embedder, built.pairs, update, args.budget)
            for name, update in VARIANTS.items()
        }
    print(
        f"{len(built.pairs)} probes ({args.pairs} per scenario, seed {args.seed}), "
        f"budget {args.budget} tokens; {built.recalls} recalls made the histories "
        f"({built.missed} returned the other fact)"
    )
    print("% of probes whose block gives the fact the history points to (chance: ~50)\n")
    print(table(rows))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cognitive", description=__doc__)
    parser.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help="probes per scenario")
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
