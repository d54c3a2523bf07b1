"""Sleep quality: are the facts sleep stores right, and are the facts worth storing stored?

``python -m bench.sleep [--modes rules,recorded] [--upstream URL [--model NAME]
[--cache DIR]] [--cases PREFIX] [--show N] [--json PATH]``

Each labelled conversation of ``bench/data/sleep.jsonl`` (73 of them, 5-20 turns)
is recorded in a space of its own, one episode a turn, then consolidated by
``AsyncMemory.sleep(space)`` with:

- ``rules``: no LLM; the rule-based extractor proposes;
- ``recorded``: the answers a 3B model gave, written once per conversation
  (errors included), served by ``bench/sleep_llm.py`` on a loopback port;
- ``upstream``: ``--upstream URL`` (any OpenAI-compatible server; ``--model``,
  else its first model), e.g. SmolLM2-135M under llama-cpp-python (40 to 90
  minutes on two cores: ``--modes ""`` runs it alone). ``--cache DIR`` keeps
  its answers (``bench/answer_cache.py``: keyed by the sha256 of the exact
  request body; sleep asks at temperature 0, greedy, so a replay is exactly
  the run that stored them): a rerun on changed verification code takes
  seconds, and only prompts that changed are asked live (the count is printed).

Everything else is the default configuration, except the timezone (the
conversations' own, Asia/Kolkata) and ``sleep_backoff_seconds = 0`` (a broken
answer is retried at once: the bench measures facts, not waiting).

**Matching.** A stored state is *right* when one label of its conversation
agrees on all of:

- entity: the same name, case and a leading title (Mr., Dr., ...) aside
  ("user" is the user, "user's mom" an unnamed relation);
- attribute: the labels' core attributes (name, age, home_city, birthplace,
  hometown, job_title, employer, diet, allergy, birthday, rule) each take a
  list of synonyms (``city``, ``lives_in``... are ``home_city``; every
  ``forbidden_*`` state is a ``rule``); when either side is a core attribute
  both must be the same one, otherwise any attribute matches (``morning_drink``
  or ``habit`` for black coffee: the value decides);
- value: the *value key* is the set of content words (lowercase, a few
  suffixes stripped, articles and prepositions dropped; negations kept). Keys
  match when the stored one holds at least half the label's words (one at
  least) and at most two words the label lacks: "34 years old" for "34",
  "Celsius" for "temperatures in Celsius", not "vegan" for "vegetarian";
- condition: both empty, or keys that match as values do;
- status: active, or replaced/ended, as labelled.

A stored event is right when its date label (``2026-10-17``, ``week of
2026-10-12``, ``2026-09``, ``2025``, or "" undated) equals the label's and
the two share at least half the words of the shorter (one at least).

**Measures**, per mode, over all conversations: precision = right stored
facts (states and events) / stored facts; recall = labels with a right stored
fact / labels. Each wrong fact is counted once, first that applies: *junk*
(it cites a turn marked as a question, request, guess, hypothetical or
reported speech), *stale* (a label agrees on everything but the status),
*wrong entity* (a label of someone else has its value, or its entity is
nobody the labels name: neither a holder nor the value of a relation such as
``sister``), *wrong date* (an event whose words match a label but not its
date) and *other*. LLM seconds are the sleep reports' totals.
Not part of pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import sqlean

from bench.answer_cache import CacheStats, cached_upstream
from bench.sleep_labels import CASES, Case
from bench.sleep_llm import PREFIX, recorded_llm
from bench.sleep_match import StoredEvent, Verdicts, date_label, judge
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder

ZONE = "Asia/Kolkata"
START = datetime(2026, 10, 21, 10, 0, tzinfo=ZoneInfo(ZONE))  # a Wednesday
TURN_GAP = timedelta(minutes=1)
MODES = ("rules", "recorded")
DEFAULT_SHOW = 0


def stored_events(path: Path, space: str) -> list[StoredEvent]:
    """The events sleep stored for ``space``, read from the file (the SDK lists none).

    Through ``sqlean``, the SQLite Orma's own connections use: a second SQLite
    library in the process would not see their locks, and closing its
    connection could reset the WAL index under them (a bus error).
    """
    conn = sqlean.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT v.what, v.date, v.precision, t.text FROM events v "
            "JOIN sentences t ON t.id = v.sentence_id WHERE v.space = ? ORDER BY v.id",
            (space,),
        ).fetchall()
    finally:
        conn.close()
    return [StoredEvent(date_label(day, p), str(w), str(q)) for w, day, p, q in rows]


@dataclass
class ModeResult:
    mode: str
    verdicts: Verdicts = field(default_factory=Verdicts)
    by_topic: dict[str, Verdicts] = field(default_factory=dict)
    llm_seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    tries_failed: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        v = self.verdicts
        return v.right / v.stored if v.stored else 1.0

    @property
    def recall(self) -> float:
        v = self.verdicts
        return v.found / v.labels if v.labels else 1.0


async def record(mem: AsyncMemory, case: Case) -> None:
    for index, turn in enumerate(case.turns):
        at = (START + index * TURN_GAP).isoformat()
        await mem.add(turn.text, space=case.name, role=turn.role, at=at)


async def run_mode(
    mode: str,
    cases: Sequence[Case],
    embedder: Embedder,
    upstream: str,
    model: str | None,
) -> ModeResult:
    result = ModeResult(mode)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"bench-sleep-{mode}-") as tmp:
        config = OrmaConfig(
            home=Path(tmp),
            db_path=Path(tmp) / "sleep.db",
            upstream=upstream,
            timezone=ZONE,
            sleep_backoff_seconds=0,
        )
        async with AsyncMemory(config=config, embedder=embedder) as mem:
            for case in cases:
                await record(mem, case)
                which = f"{PREFIX}{case.name}" if mode == "recorded" else model
                report = await mem.sleep(case.name, model=which)
                result.llm_seconds += report.llm_seconds
                result.outcomes.update(report.outcomes)
                result.tries_failed += report.tries_failed
                result.errors += report.errors
                result.rejected += [f"{case.name}: {r}" for r in report.rejected]
                states = await mem.facts(case.name, include_history=True)
                verdict = judge(case, states, stored_events(mem.path, case.name))
                result.verdicts.add(verdict)
                result.by_topic.setdefault(case.topic, Verdicts()).add(verdict)
    result.seconds = time.monotonic() - started
    return result


def _row(cells: Iterable[object], widths: Sequence[int]) -> str:
    return "  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in
                     enumerate(zip(cells, widths, strict=True)))  # fmt: skip


def report(results: Sequence[ModeResult], show: int) -> str:
    kinds = ("junk", "wrong entity", "stale", "wrong date", "other")
    head = ["mode", "stored", "right", "precision", "labels", "found", "recall", *kinds,
            "LLM s", "run s"]  # fmt: skip
    widths = [9, 6, 5, 9, 6, 5, 6, 4, 12, 5, 10, 5, 7, 6]
    lines = [_row(head, widths)]
    for r in results:
        v = r.verdicts
        cells = [r.mode, v.stored, v.right, f"{r.precision:.3f}", v.labels, v.found,
                 f"{r.recall:.3f}", *(v.wrong[k] for k in kinds), f"{r.llm_seconds:.1f}",
                 f"{r.seconds:.0f}"]  # fmt: skip
        lines.append(_row(cells, widths))
    lines.append("")
    for r in results:
        outcomes = ", ".join(f"{k} {n}" for k, n in r.outcomes.most_common())
        lines.append(f"{r.mode}: batches {outcomes or 'none'}; failed LLM tries {r.tries_failed}")
        for e in r.errors:
            lines.append(f"  error: {e}")
    lines.append("")
    topics = sorted({t for r in results for t in r.by_topic})
    lines.append(_row(["topic", *(f"{r.mode} P/R" for r in results)], [14] + [15] * len(results)))
    for topic in topics:
        row: list[object] = [topic]
        for r in results:
            v = r.by_topic.get(topic, Verdicts())
            p = v.right / v.stored if v.stored else 1.0
            rec = v.found / v.labels if v.labels else 1.0
            row.append(f"{p:.2f}/{rec:.2f}")
        lines.append(_row(row, [14] + [15] * len(results)))
    if show:
        for r in results:
            lines += ["", f"{r.mode}: wrong facts (first {show})"]
            lines += [f"  {x}" for x in r.verdicts.examples[:show]]
            lines += [f"{r.mode}: labels not found (first {show})"]
            lines += [f"  {x}" for x in r.verdicts.missed[:show]]
            lines += [f"{r.mode}: rejected by verification (first {show})"]
            lines += [f"  {x}" for x in r.rejected[:show]]
    return "\n".join(lines)


def as_json(results: Sequence[ModeResult]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in results:
        v = r.verdicts
        out[r.mode] = {
            "precision": round(r.precision, 4),
            "recall": round(r.recall, 4),
            "stored": v.stored,
            "right": v.right,
            "labels": v.labels,
            "found": v.found,
            "wrong": dict(v.wrong),
            "llm_seconds": round(r.llm_seconds, 2),
            "outcomes": dict(r.outcomes),
            "tries_failed": r.tries_failed,
            "by_topic": {t: asdict(x) | {"wrong": dict(x.wrong)} for t, x in r.by_topic.items()},
            "wrong_facts": v.examples,
            "missed": v.missed,
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.sleep", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--modes", default=",".join(MODES), help="rules, recorded (comma-separated)"
    )
    parser.add_argument("--upstream", default="", help="also consolidate with this server (/v1)")
    parser.add_argument("--model", default=None, help="the --upstream model (default: its first)")
    parser.add_argument(
        "--cache", type=Path, default=None, help="replay/store --upstream's answers in this dir"
    )
    parser.add_argument("--cases", default="", help="only conversations whose name starts so")
    parser.add_argument("--show", type=int, default=DEFAULT_SHOW, help="list wrong and missed")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if c.name.startswith(args.cases)]
    if not cases:
        sys.exit(f"no conversation starts with {args.cases!r}")
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        sys.exit(f"unknown modes {unknown}: use {', '.join(MODES)} (and --upstream)")
    embedder = load_embedder(OrmaConfig())
    answers = {c.name: list(c.answers) for c in cases}
    cache_stats = CacheStats()

    async def run_all() -> list[ModeResult]:
        results = []
        for mode in modes:
            if mode == "recorded":
                with recorded_llm(answers) as url:
                    results.append(await run_mode(mode, cases, embedder, url, None))
            else:
                results.append(await run_mode(mode, cases, embedder, "", None))
        if args.upstream and args.cache is not None:
            with cached_upstream(args.upstream, args.cache, cache_stats) as url:
                results.append(await run_mode("upstream", cases, embedder, url, args.model))
        elif args.upstream:
            results.append(await run_mode("upstream", cases, embedder, args.upstream, args.model))
        return results

    labels = sum(len(c.states) + len(c.events) for c in cases)
    turns = sum(len(c.turns) for c in cases)
    print(f"{len(cases)} conversations, {turns} turns, {labels} labelled facts", flush=True)
    results = asyncio.run(run_all())
    print(report(results, args.show))
    if args.upstream and args.cache is not None:
        s = cache_stats
        print(f"\nanswer cache {args.cache}: {s.hits} replayed, {s.misses} asked upstream "
              f"({s.not_stored} of them no answer, not stored)")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(as_json(results), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
