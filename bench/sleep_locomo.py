"""Sleep's facts on real dialogue: LoCoMo's development half, scored by its own annotations.

``python -m bench.sleep --locomo [--data PATH] [--conversations N] [--show N]
[--audit-sample N --seed S --audit-out FILE]``

Each development-half conversation is recorded in a space of its own the way
a user would (every turn one note ``"{speaker}: {text}"`` said at its
session's date and time, so whatever ``add()`` draws on record is drawn),
then consolidated by ``AsyncMemory.sleep(space)`` with no LLM: the rule
extractor proposes and verification checks. Every stored fact (states,
current and past, and events) is scored against what LoCoMo's annotators
wrote at the turn the fact cites:

- a state is *supported* when its holder is the person of an ``observation``
  citing that turn and the observation says the value: at least half the
  value's content words (one at least; stop words out, light stemming);
- an event is supported when one of its people is the person of such an
  observation, or has an ``event_summary`` entry in the turn's session, and
  that text says what happened, by the same measure.

Printed: facts stored, supported %, the unsupported count, the *loose*
measure (the fact's words share any content word with any observation at its
turn: the figure issue 27 first gave), coverage (share of observations whose
turn has a supported fact) and a per-attribute breakdown. ``--show N`` lists
unsupported facts with the line they cite and the observations there.
``--audit-sample N`` writes N stored facts drawn at random (``--seed``) with
their cited line and speaker, and no label, as JSONL for a hand audit.

The dataset is CC BY-NC 4.0 and never copied into this repository: it is read
from ``--data`` (default ``../shared/datasets/locomo-dev/locomo-dev.json``).
Not part of pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

import sqlean

from bench.locomo import DEFAULT_DATA, Conversation, load
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder
from orma_proxy.text.stopwords import STOPWORDS

__all__ = ["add_arguments", "run"]

_WORD = re.compile(r"[a-z0-9]+")
# Beyond search's stop words: pronouns, auxiliaries and fillers no annotation is "about".
_STOP = STOPWORDS | frozenset(
    """am been being he she her hers him his our ours us not no can could would should
    just also very really so too about up out all some any more most much one ones""".split()  # noqa: SIM905
)
_SUFFIXES = ("ing", "ed", "es", "s", "ly")
_MIN_STEM = 3
_HALF = 0.5
_TURN = re.compile(r"D(\d+):(\d+)")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            return word[: -len(suffix)]
    return word


def words(text: str) -> set[str]:
    """Content words of ``text``: lower case, stop words out, a few suffixes stripped."""
    return {_stem(w) for w in _WORD.findall(text.lower().replace("'s", "")) if w not in _STOP}


def says(value: str, text: str) -> bool:
    """Whether ``text`` says ``value``: at least half its content words (one at least)."""
    wanted = words(value)
    if not wanted:
        return False
    return len(wanted & words(text)) >= max(1, _HALF * len(wanted))


@dataclass(frozen=True)
class Note:
    """What an annotator wrote about ``person`` at some turns."""

    person: str
    text: str
    turns: frozenset[str]


@dataclass(frozen=True)
class Labels:
    observations: tuple[Note, ...]
    events: dict[int, tuple[Note, ...]]  # session -> the session's event summary, per person

    def at(self, turn: str) -> list[Note]:
        return [o for o in self.observations if turn in o.turns]


def labels_of(sample: dict[str, object]) -> Labels:
    observations: list[Note] = []
    for block in dict(sample["observation"]).values():  # type: ignore[call-overload]
        for person, notes in block.items():
            for text, cited in notes:
                turns = cited if isinstance(cited, list) else [cited]
                observations.append(Note(person, text, frozenset(map(str, turns))))
    events: dict[int, tuple[Note, ...]] = {}
    for key, block in dict(sample["event_summary"]).items():  # type: ignore[call-overload]
        session = int(key.rsplit("_", 1)[1])
        events[session] = tuple(
            Note(person, text, frozenset())
            for person, texts in block.items()
            if person != "date"
            for text in texts
        )
    return Labels(tuple(observations), events)


@dataclass(frozen=True)
class Stored:
    """One stored fact, the turn it cites and what it says, as scored and audited."""

    conversation: str
    kind: str  # "state" or "event"
    holders: tuple[str, ...]
    attribute: str  # "event" for an event
    value: str
    turn: str
    speaker: str
    line: str

    def shown(self) -> str:
        who = ", ".join(self.holders) or "nobody"
        return f"{who} · {self.attribute}: {self.value}"


Row = tuple[str, tuple[str, ...], str, str, str]


def _stored(path: Path, space: str, turns: dict[int, str]) -> list[Row]:
    """(kind, holders, attribute, value, turn) of every fact of ``space``, read from the file."""
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        states = conn.execute(
            "SELECT e.name, s.attribute, s.value, s.condition, s.prohibited, s.episode_id "
            "FROM states s JOIN entities e ON e.id = s.entity_id WHERE s.space = ? ORDER BY s.id",
            (space,),
        ).fetchall()
        events = conn.execute(
            "SELECT what, who, episode_id FROM events WHERE space = ? ORDER BY id", (space,)
        ).fetchall()
    finally:
        conn.close()
    found: list[Row] = []
    for name, attribute, value, condition, prohibited, episode in states:
        shown = f"{value} | {condition}" if condition else value
        attribute = f"forbidden {attribute}" if prohibited else attribute
        found.append(("state", (str(name),), str(attribute), str(shown), turns[int(episode)]))
    for what, who, episode in events:
        people = tuple(str(p) for p in json.loads(who))
        found.append(("event", people, "event", str(what), turns[int(episode)]))
    return found


@dataclass
class Tally:
    stored: int = 0
    supported: int = 0
    loose: int = 0

    def add(self, supported: bool, loose: bool) -> None:
        self.stored += 1
        self.supported += supported
        self.loose += loose


@dataclass
class Result:
    facts: list[tuple[Stored, bool, list[Note]]] = field(default_factory=list)
    total: Tally = field(default_factory=Tally)
    by_kind: dict[str, Tally] = field(default_factory=dict)
    covered_by: dict[str, int] = field(default_factory=dict)
    by_attribute: dict[str, Tally] = field(default_factory=dict)
    observations: int = 0
    covered: int = 0
    seconds: float = 0.0


def supported(fact: Stored, labels: Labels) -> tuple[bool, bool]:
    """(supported, loose) for ``fact`` against the labels at the turn it cites."""
    here = labels.at(fact.turn)
    value = fact.value.split(" | ")[0]
    loose = any(words(f"{fact.value}") & words(o.text) for o in here)
    people = {h.lower() for h in fact.holders}
    notes = [o for o in here if o.person.lower() in people]
    if fact.kind == "event":
        m = _TURN.match(fact.turn)
        session = int(m[1]) if m else 0
        notes += [e for e in labels.events.get(session, ()) if e.person.lower() in people]
    return any(says(value, o.text) for o in notes), loose


async def _consolidate(conv: Conversation, embedder: Embedder, home: Path) -> list[Stored]:
    config = OrmaConfig(
        home=home, db_path=home / f"{conv.name}.db", upstream="", timezone="UTC",
        sleep_backoff_seconds=0,
    )  # fmt: skip
    turns: dict[int, str] = {}
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for said in conv.turns:
            episode = await mem.add(said.note, conv.name, at=said.said_at.replace(tzinfo=UTC))
            turns[episode] = said.dia_id
        await mem.sleep(conv.name)
        await mem.flush()
        path = mem.path
    by_turn = {t.dia_id: t for t in conv.turns}
    found = []
    for kind, holders, attribute, value, dia_id in _stored(path, conv.name, turns):
        line = by_turn[dia_id]
        found.append(
            Stored(conv.name, kind, holders, attribute, value, dia_id, line.speaker, line.text)
        )
    return found


def read(data: Path, limit: int | None) -> tuple[list[Conversation], list[Labels]]:
    """The first ``limit`` conversations of the LoCoMo file and their annotations."""
    samples = json.loads(data.read_text(encoding="utf-8"))[:limit]
    return load(data, limit), [labels_of(s) for s in samples]


async def evaluate(conversations: list[Conversation], all_labels: list[Labels]) -> Result:
    embedder = load_embedder(OrmaConfig())
    result = Result()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-sleep-locomo-") as tmp:
        for conv, labels in zip(conversations, all_labels, strict=True):
            facts = await _consolidate(conv, embedder, Path(tmp))
            good_turns: dict[str, set[str]] = {"state": set(), "event": set()}
            for fact in facts:
                ok, loose = supported(fact, labels)
                result.total.add(ok, loose)
                result.by_kind.setdefault(fact.kind, Tally()).add(ok, loose)
                key = fact.attribute if fact.kind == "state" else "(event)"
                result.by_attribute.setdefault(key, Tally()).add(ok, loose)
                result.facts.append((fact, ok, labels.at(fact.turn)))
                if ok:
                    good_turns[fact.kind].add(fact.turn)
            result.observations += len(labels.observations)
            every = good_turns["state"] | good_turns["event"]
            result.covered += sum(1 for o in labels.observations if o.turns & every)
            for kind, turns in good_turns.items():
                hit = sum(1 for o in labels.observations if o.turns & turns)
                result.covered_by[kind] = result.covered_by.get(kind, 0) + hit
            print(f"  {conv.name}: {len(conv.turns)} turns, {len(facts)} facts", file=sys.stderr)
    result.seconds = time.monotonic() - started
    return result


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def report(result: Result, show: int) -> str:
    t = result.total
    lines = [
        f"facts stored          {t.stored}",
        f"supported             {t.supported} ({_pct(t.supported, t.stored)})",
        f"unsupported           {t.stored - t.supported}",
        f"loose (any word)      {t.loose} ({_pct(t.loose, t.stored)})",
        f"observation coverage  {result.covered}/{result.observations} "
        f"({_pct(result.covered, result.observations)})",
    ]
    for kind in ("state", "event"):
        k = result.by_kind.get(kind, Tally())
        lines.append(
            f"  {kind + 's':<8} {k.stored:>4} stored, supported {_pct(k.supported, k.stored)}, "
            f"loose {_pct(k.loose, k.stored)}, coverage "
            f"{_pct(result.covered_by.get(kind, 0), result.observations)}"
        )
    lines += [
        f"run                   {result.seconds:.0f} s",
        "",
        f"{'attribute':<32}{'stored':>7}{'supported':>11}{'loose':>7}",
    ]
    rows = sorted(result.by_attribute.items(), key=lambda kv: (-kv[1].stored, kv[0]))
    for name, tally in rows:
        lines.append(f"{name[:31]:<32}{tally.stored:>7}{tally.supported:>11}{tally.loose:>7}")
    if show:
        lines += ["", f"unsupported facts (first {show})"]
        misses = [(f, notes) for f, ok, notes in result.facts if not ok][:show]
        for fact, notes in misses:
            lines.append(f"- [{fact.conversation} {fact.turn}] {fact.shown()}")
            lines.append(f"    line: {fact.speaker}: {fact.line}")
            lines += [f"    obs:  {o.person}: {o.text}" for o in notes]
    return "\n".join(lines)


def audit_sample(result: Result, n: int, seed: int, out: Path) -> int:
    """Write ``n`` stored facts drawn at random, without any label; how many were written."""
    facts = [f for f, _, _ in result.facts]
    picked = random.Random(seed).sample(facts, min(n, len(facts)))
    with out.open("w", encoding="utf-8") as fh:
        for i, fact in enumerate(picked, start=1):
            row = {
                "n": i,
                "conversation": fact.conversation,
                "turn": fact.turn,
                "speaker": fact.speaker,
                "line": fact.line,
                "kind": fact.kind,
                "holder": list(fact.holders),
                "attribute": fact.attribute,
                "value": fact.value,
            }
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(picked)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options ``bench.sleep --locomo`` takes."""
    add = parser.add_argument
    add("--data", type=Path, default=DEFAULT_DATA, help="LoCoMo file (with --locomo)")
    add("--conversations", type=int, default=None, help="only the first N (with --locomo)")
    add("--audit-sample", type=int, default=0, help="write N random facts, unlabelled")
    add("--seed", type=int, default=27, help="the audit sample's seed")
    add("--audit-out", type=Path, default=None, help="where the audit sample goes (JSONL)")


def run(data: Path, limit: int | None, show: int, audit: int, seed: int, out: Path | None) -> int:
    if not data.exists():
        print(f"LoCoMo data not found at {data}: pass --data PATH", file=sys.stderr)
        return 2
    if audit and out is None:
        print("--audit-sample needs --audit-out FILE", file=sys.stderr)
        return 2
    result = asyncio.run(evaluate(*read(data, limit)))
    print(f"LoCoMo dev, sleep without an LLM: {len({f.conversation for f, _, _ in result.facts})}"
          " conversations")  # fmt: skip
    print(report(result, show))
    if audit and out is not None:
        written = audit_sample(result, audit, seed, out)
        print(f"\naudit sample: {written} facts (seed {seed}) written to {out}")
    return 0
