"""What ``bench.block`` prints: the tally of judged block lines and its tables."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from bench.block_cases import Conversation

CATEGORIES = (
    "chatter",
    "question",
    "assistant",
    "echo",
    "outdated",
    "unrelated-fact",
    "wrongly-outdated",
    "unmapped",
)


@dataclass
class Tally:
    """What one configuration and mode showed, over all queries."""

    lines: int = 0
    good: int = 0
    false: Counter[str] = field(default_factory=Counter)
    should: Counter[str] = field(default_factory=Counter)  # core / rule / topic / asked
    shown: Counter[str] = field(default_factory=Counter)
    tokens: list[int] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> good, lines, hit, should
    outdated_shown: int = 0
    outdated_marked: int = 0
    rules_shown: int = 0
    rules_forbidden: int = 0  # shown as a [FORBIDDEN: ...] line
    swallowed: int = 0  # a FORBIDDEN line that forbids the alternative too
    by_words: int = 0  # lines no item of the block claimed, mapped by their words
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "-"


def report(rows: list[tuple[str, str, Tally]], show: int) -> None:
    first: dict[str, float] = {}  # mode -> the first configuration's mean tokens
    for _, mode, t in rows:
        first.setdefault(mode, float(np.mean(t.tokens)) if t.tokens else 0.0)
    print("Targets (issue 19): precision >= 0.8, recall >= 0.95, mean tokens <= 0.70 of today's.\n")
    print(
        "| configuration | mode | precision | recall | core | rules | topic | asked "
        "| mean tokens | vs first | lines/block | query s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, mode, t in rows:
        recall = ratio(sum(t.shown.values()), sum(t.should.values()))
        groups = [ratio(t.shown[g], t.should[g]) for g in ("core", "rule", "topic", "question")]
        mean = float(np.mean(t.tokens)) if t.tokens else 0.0
        versus = f"{mean / first[mode]:.2f}" if first[mode] else "-"
        print(
            f"| {name} | {mode} | {ratio(t.good, t.lines)} | {recall} | {' | '.join(groups)} "
            f"| {mean:.0f} | {versus} | {t.lines / max(len(t.tokens), 1):.1f} "
            f"| {t.seconds:.1f} |"
        )
    print("\nFalse positives by what the line is (count, share of all lines shown):\n")
    print("| configuration | mode | lines | " + " | ".join(CATEGORIES) + " |")
    print("|---|---|---|" + "---|" * len(CATEGORIES))
    for name, mode, t in rows:
        cells = [f"{t.false[c]} ({t.false[c] / max(t.lines, 1):.0%})" for c in CATEGORIES]
        print(f"| {name} | {mode} | {t.lines} | " + " | ".join(cells) + " |")
    print("\nBy query kind (precision / recall):\n")
    kinds = ("topic", "rule", "asked", "unrelated")
    print("| configuration | mode | " + " | ".join(kinds) + " |")
    print("|---|---|" + "---|" * len(kinds))
    for name, mode, t in rows:
        cells = []
        for k in kinds:
            good, lines, hit, should = t.by_kind.get(k, [0, 0, 0, 0])
            cells.append(f"{ratio(good, lines)} / {ratio(hit, should)}")
        print(f"| {name} | {mode} | " + " | ".join(cells) + " |")
    print(
        "\nOutdated lines marked; rules shown as [FORBIDDEN]; FORBIDDEN lines that forbid "
        "the alternative too; lines no block item claimed, mapped by their words:\n"
    )
    print(
        "| configuration | mode | outdated marked | rules as FORBIDDEN | alternative forbidden "
        "| mapped by words |"
    )
    print("|---|---|---|---|---|---|")
    for name, mode, t in rows:
        print(
            f"| {name} | {mode} | {t.outdated_marked}/{t.outdated_shown} "
            f"| {t.rules_forbidden}/{t.rules_shown} | {t.swallowed} | {t.by_words} |"
        )
    for name, mode, t in rows:
        if show and t.failures:
            print(f"\n{name}, {mode}: {len(t.failures)} blocks off their labels; {show} of them:")
            step = max(len(t.failures) // show, 1)
            for failure in t.failures[::step][:show]:
                print(failure)


def print_case(conv: Conversation) -> None:
    for pid, part in conv.parts():
        role = conv.turns[pid[0]].role
        mark = " (outdated)" if pid in conv.outdated else ""
        print(f"{pid[0]:>2}.{pid[1]} {role:<9} {part.kind:<8} {part.slot:<7}{mark} {part.text}")
    for query in conv.queries:
        should = ", ".join(f"{t}.{i}" for t, i in sorted(query.should))
        maybe = ", ".join(f"{t}.{i}" for t, i in sorted(query.on_topic))
        print(f"Q {query.kind:<9} {query.text}\n  should: {should}\n  on topic: {maybe}")
