"""The memory block: what the model is told, inside a hard token budget.

Forbidden rules come first, with a header sentence framing them as strict
negative constraints: a small model obeys a prohibition it reads first and is
told is absolute far more reliably than one buried among facts. What a rule
says to do instead follows it on its own line (``[PREFER: ...]``), never inside
the prohibition. What the
rules leave of the budget is split between states, events and passages
(``budget_share_*``); entries are taken best first, each section within its
share (its first line may pass it, so a share smaller than a line never
starves the best match of a kind), then what the shares left goes to the best
entries still out, whatever their kind. A passage is left out only when the
states and events drawn from it are all in the block and say all of it
(``text/stand_in``: every content word of the line is a word of theirs or names
the kind of one of their attributes): "I live in Pune." folds into
``[user.home city: Pune]``, but "My brother Kabir plays the violin." stays beside
``[user.brother: Kabir]``, whose fact says only part of it. The other way round,
an event its own candidate line says all of rides on that line: one place, at the
better of their ranks, so a line and its event never take two places for one thing
said. A fact adds to its line, never subtracts from it. A passage one of whose
facts has changed since is shown, marked ``[outdated: now X]``. Tokens are
counted with a real tokenizer when one is given, and the whole text is recounted
at the end: the block never exceeds its budget.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date

from orma_proxy.context_window import estimate_tokens
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.layout import FORBIDDEN_NOTE, HEADER, SECTIONS, Layout
from orma_proxy.recall.search import Passage
from orma_proxy.recall.states import Event, State
from orma_proxy.text import unsaid

__all__ = [
    "FORBIDDEN_NOTE",
    "HEADER",
    "Entry",
    "MemoryBlock",
    "Shares",
    "TokenCounter",
    "estimate_tokens",
    "pack_block",
]

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class MemoryBlock:
    """The packed block, its size in tokens, and the rules, states, events and passages in it.

    ``preferred``: what the rules shown say to do instead, in their order.
    """

    text: str
    tokens: int
    passages: list[Passage] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    states: list[State] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    preferred: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.passages or self.forbidden or self.states or self.events)

    def keys(self) -> list[ItemKey]:
        """The items in the block, as the access log names them."""
        return [
            *(("state", s.id) for s in self.states),
            *(("event", e.id) for e in self.events),
            *(("passage", p.sentence_id) for p in self.passages),
        ]


@dataclass(frozen=True)
class Entry:
    """One ranked item for the block: exactly one of state, event or passage.

    For a passage, ``backs`` are the states and events drawn from it and
    ``replaced_by`` what replaced the facts it stated (``""`` for one that ended).
    """

    score: float
    state: State | None = None
    event: Event | None = None
    passage: Passage | None = None
    backs: frozenset[ItemKey] = frozenset()
    replaced_by: tuple[str, ...] = ()

    @property
    def section(self) -> str:
        return "states" if self.state else "events" if self.event else "passages"

    @property
    def key(self) -> ItemKey:
        if self.state is not None:
            return ("state", self.state.id)
        if self.event is not None:
            return ("event", self.event.id)
        assert self.passage is not None
        return ("passage", self.passage.sentence_id)


@dataclass(frozen=True)
class Shares:
    """Shares of the budget left after the rules."""

    states: float = 0.4
    events: float = 0.2
    passages: float = 0.4


class _Tally:
    """Token counts of lines, each counted once, and of the block they make.

    Tokenizers split at line breaks, so a block costs its header, its lines and
    its line breaks counted apart; recounting a 4,000-token text after every
    change would cost more than the whole search. The whole text is counted
    once, at the end, only when the sum comes within ``exact_above`` of the
    budget, where a merge across a line break could matter.
    """

    def __init__(self, count: TokenCounter) -> None:
        self._count = count
        self._known: dict[str, int] = {}
        self.newline = count("\n")
        self.gap = count("\n\n")

    def __call__(self, text: str) -> int:
        found = self._known.get(text)
        if found is None:
            found = self._known[text] = self._count(text)
        return found

    def exact(self, text: str) -> int:
        return self._count(text)


def _normal(text: str) -> str:
    return " ".join(text.split())


def _sort_key(entry: Entry) -> tuple[object, ...]:
    """Reading order within a section: the user's states first, events by date, passages by time."""
    if entry.state is not None:
        s = entry.state
        return (s.entity != "user", s.entity, s.attribute, s.condition != "", s.condition, s.id)
    if entry.event is not None:
        return (entry.event.date is None, entry.event.date or "", entry.event.id)
    assert entry.passage is not None
    return (entry.passage.said_at, entry.passage.sentence_id)


def pack_block(
    passages: Iterable[Passage] = (),
    *,
    budget_tokens: int,
    today: date,
    count_tokens: TokenCounter = estimate_tokens,
    exclude_texts: Iterable[str] = (),
    forbidden: Iterable[str | tuple[str, str]] = (),
    entries: Sequence[Entry] = (),
    sutra: bool = True,
    compact_header: bool = True,
    shares: Shares | None = None,
    exact_above: float = 0.9,
) -> MemoryBlock:
    """Pack the rules, then the best entries (``passages`` alone: best first), within budget.

    ``forbidden`` holds rules, or (rule, what to do instead) pairs.

    Passages whose text the conversation already holds (``exclude_texts``) or
    that repeat one already packed are skipped: the model sees them anyway.
    ``tokens`` is exact once the block passes ``exact_above`` of the budget.
    """
    layout = Layout(sutra, compact_header)
    tally = _Tally(count_tokens)
    shares = shares or Shares()
    ranked = sorted(entries, key=lambda e: -e.score) or [
        Entry(score=-float(i), passage=p) for i, p in enumerate(passages)
    ]
    rules = _rules(forbidden)
    # Budgeted with the [outdated] note if any candidate could show the mark (and the
    # [PREFER] note if a rule has an alternative); _finish leaves out what is not shown.
    outdated = any(e.passage is not None and e.replaced_by for e in ranked)
    instead = any(rules.values())
    header = layout.header(today, rules=bool(rules), outdated=outdated, instead=instead)
    used = tally(header) + tally.gap
    if used > budget_tokens:
        return MemoryBlock("", 0)
    lines: dict[str, list[str]] = {name: [] for name in SECTIONS}
    cost: dict[str, int] = dict.fromkeys(SECTIONS, 0)

    def take(section: str, line: str, limit: float) -> bool:
        nonlocal used
        title = layout.title(section)
        extra = tally(title) + tally.newline if title and not lines[section] else 0
        spent = tally(line) + tally.newline + extra
        if used + spent > budget_tokens or cost[section] + spent > limit:
            return False
        lines[section].append(line)
        cost[section] += spent
        used += spent
        return True

    kept_rules: dict[str, str] = {}
    for rule, alternative in rules.items():
        if take("rules", layout.rule(rule), budget_tokens):
            shown = alternative and take("rules", layout.prefer(alternative), budget_tokens)
            kept_rules[rule] = alternative if shown else ""
    if rules and not kept_rules:  # no rule fits: no framing for rules that are not there
        header = layout.header(today, rules=False, outdated=outdated)
        used = tally(header) + tally.gap
    left = budget_tokens - used
    limits = {
        "states": left * shares.states,
        "events": left * shares.events,
        "passages": left * shares.passages,
    }
    seen = {_normal(t) for t in exclude_texts}
    chosen: list[Entry] = []
    packed: set[ItemKey] = set()

    facts = {entry.key: entry for entry in ranked if entry.passage is None}
    folding = {entry.key for entry in ranked if _said_by_facts(entry, facts)}
    ranked = _onto_lines(ranked, folding)
    candidates = {entry.key for entry in ranked}

    def consider(entry: Entry, limit: float) -> None:
        line = _line(layout, entry, seen, packed, folding)
        if line is not None and take(entry.section, line, limit):
            chosen.append(entry)
            packed.add(entry.key)
            if entry.passage is not None:
                seen.add(_normal(entry.passage.text))

    # Best first, each section within its share; a section's first line may pass its
    # share (a share smaller than one line must not starve the best match of a kind).
    for entry in ranked:
        if _backed(entry, candidates, folding):
            continue  # its states/events will say all of it; see the second pass
        first = not lines[entry.section]
        consider(entry, budget_tokens if first else limits[entry.section])
    for entry in ranked:  # what the shares left, to the best entries still out
        if entry.key not in packed:
            consider(entry, budget_tokens)
    return _finish(layout, today, kept_rules, chosen, budget_tokens, tally, exact_above)


def _rules(forbidden: Iterable[str | tuple[str, str]]) -> dict[str, str]:
    """Each rule once (whitespace aside), with its alternative ("" for none)."""
    rules: dict[str, str] = {}
    for item in forbidden:
        rule, alternative = (item, "") if isinstance(item, str) else item
        if rule.strip():
            key = _normal(rule)
            rules[key] = rules.get(key) or _normal(alternative)
    return rules


def _rule_lines(layout: Layout, rules: dict[str, str]) -> list[str]:
    """Each rule's line, then its alternative's."""
    lines = []
    for rule, alternative in rules.items():
        lines.append(layout.rule(rule))
        if alternative:
            lines.append(layout.prefer(alternative))
    return lines


def _said_by_facts(entry: Entry, facts: dict[ItemKey, Entry]) -> bool:
    """Whether a passage's states and events, all current candidates, say all of it."""
    passage = entry.passage
    if passage is None or not entry.backs or entry.replaced_by:
        return False
    words: list[str] = []
    attributes: list[str] = []
    dated = current = False
    for key in entry.backs:
        fact = facts.get(key)
        if fact is None:
            return False
        if fact.state is not None:
            s = fact.state
            words += [s.entity, s.attribute, s.value, s.condition, s.since or ""]
            attributes.append(s.attribute)
            dated, current = dated or bool(s.since), current or s.active
        elif fact.event is not None:
            e = fact.event
            words += [*e.who, e.what, e.date or ""]
            dated = dated or e.date is not None
    return not unsaid(passage.text, " ".join(words), attributes, dated=dated, current=current)


def _onto_lines(ranked: list[Entry], folding: set[ItemKey]) -> list[Entry]:
    """Each event its own line says all of, merged into that line: one place, the better rank.

    The line shown beside an event it wholly says would take two places for one
    thing said, and push out another line; the line, ranked where the better of the
    two was, carries the event (its date is the line's day and words). A line that
    folds into its facts (``_said_by_facts``) keeps them instead.
    """
    lines = {
        e.passage.sentence_id: e
        for e in ranked
        if e.passage is not None and e.key not in folding and not e.replaced_by
    }
    lifted: dict[int, float] = {}
    kept = []
    for entry in ranked:
        event = entry.event
        line = lines.get(event.sentence_id) if event is not None else None
        text = line.passage.text if line is not None and line.passage is not None else None
        if event is not None and text is not None and not unsaid(event.what, text):
            lifted[event.sentence_id] = max(lifted.get(event.sentence_id, 0.0), entry.score)
            continue
        kept.append(entry)
    merged = [
        replace(e, score=max(e.score, lifted[e.passage.sentence_id]))
        if e.passage is not None and e.passage.sentence_id in lifted
        else e
        for e in kept
    ]
    return sorted(merged, key=lambda e: -e.score)


def _backed(entry: Entry, items: set[ItemKey], folding: set[ItemKey]) -> bool:
    """Whether a passage may be left out: its facts say all of it and are all among ``items``."""
    return entry.key in folding and entry.backs <= items


def _line(
    layout: Layout, entry: Entry, seen: set[str], packed: set[ItemKey], folding: set[ItemKey]
) -> str | None:
    """The entry's line, or None when the model would learn nothing new from it."""
    passage = entry.passage
    if passage is not None:
        normal = _normal(passage.text)
        if normal in seen or any(normal in t for t in seen if len(t) > len(normal)):
            return None
        if _backed(entry, packed, folding):
            return None
    return _render(layout, entry)


def _finish(
    layout: Layout,
    today: date,
    rules: dict[str, str],
    chosen: list[Entry],
    budget_tokens: int,
    tally: _Tally,
    exact_above: float,
) -> MemoryBlock:
    """Assemble in reading order; while the block is over budget, drop the weakest entry."""
    entries = sorted(chosen, key=lambda e: -e.score)
    while True:
        outdated = any(e.passage is not None and e.replaced_by for e in entries)
        instead = any(rules.values())
        header = layout.header(today, rules=bool(rules), outdated=outdated, instead=instead)
        sections: dict[str, list[str]] = {"rules": _rule_lines(layout, rules)}
        for name in SECTIONS[1:]:
            mine = sorted((e for e in entries if e.section == name), key=_sort_key)
            sections[name] = [_render(layout, e) for e in mine]
        text = layout.join(header, sections)
        shown = [line for name in SECTIONS for line in layout.titled(name, sections[name])]
        tokens = tally(header) + tally.gap + sum(tally(line) for line in shown)
        tokens += tally.newline * max(len(shown) - 1, 0)
        if tokens > budget_tokens * exact_above:
            tokens = tally.exact(text)
        if tokens <= budget_tokens and (rules or entries):
            return MemoryBlock(
                text,
                tokens,
                passages=[e.passage for e in entries if e.passage is not None],
                forbidden=list(rules),
                states=[e.state for e in entries if e.state is not None],
                events=[e.event for e in entries if e.event is not None],
                preferred=[alternative for alternative in rules.values() if alternative],
            )
        if entries:
            entries.pop()  # tokens at line joins can differ from the sum of the parts
        elif rules:
            rules = dict(list(rules.items())[:-1])
        else:
            return MemoryBlock("", 0)


def _render(layout: Layout, entry: Entry) -> str:
    if entry.state is not None:
        return layout.state(entry.state)
    if entry.event is not None:
        return layout.event(entry.event)
    assert entry.passage is not None
    return layout.passage(entry.passage, entry.replaced_by)
