"""The cases of ``bench.block``: seeded conversations whose block lines are labelled.

A conversation is a run of 7-20 exchanges (a user turn, then the assistant's reply:
14-40 turns), recorded the way the proxy records them. Every turn is made of parts
of one sentence each, and every part has a kind:

- ``fact``: the user says something about themselves, in a ``slot`` (name, home,
  job, phone, family, health, allergy, drink, food, hobby, pet). A later fact of
  the same slot ("I moved from Pune to Bangalore last month.") makes the earlier
  one outdated.
- ``rule``: "Never use semicolons in PowerShell, use newlines instead."; ``instead``
  is the alternative, which a ``[FORBIDDEN: ...]`` line must not swallow.
- ``chatter``: greetings, thanks, acknowledgements, and the assistant's filler.
- ``question``: the user asking something; a question is not a fact.
- ``reply``: the assistant informing ("Warm water with salt is a good gargle.").
- ``echo``: the assistant repeating memory: a ``[LOG: ...]`` line copied from the
  block, or a user fact restated ("You live in Pune.").

Each conversation has 5-11 queries (never recorded), labelled in ``_labelled``:
``should`` is the current core facts (name, home, job), every rule (hoisted
whatever the query) and the current facts on the query's topics (plus the user's
questions on them for "What did I ask you about ...?"); ``on_topic`` is what may
be shown without being needed: the assistant's replies on the query's topics, and
outdated facts on them when marked ``[outdated]``. Everything else should not be
in the block.

The names, places, values and sentences (``bench/data/block_words.json``) are this project's
own; nothing here comes from a dataset.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from bench.cases import DATA, read_json

Kind = Literal["fact", "rule", "chatter", "question", "reply", "echo"]
PartId = tuple[int, int]  # (turn index, part index)
QueryKind = Literal["topic", "rule", "asked", "unrelated"]
CORE_SLOTS = ("name", "home", "job")


_WORDS = read_json(DATA / "block_words.json")  # the pools drawn from; "|" separates ways to say it
FIRST: tuple[str, ...] = tuple(_WORDS["first"])
CITIES: tuple[str, ...] = tuple(_WORDS["cities"])
COMPANIES: tuple[str, ...] = tuple(_WORDS["companies"])
JOBS: tuple[str, ...] = tuple(_WORDS["jobs"])
RELATIVES: tuple[str, ...] = tuple(_WORDS["relatives"])
ALLERGENS: tuple[str, ...] = tuple(_WORDS["allergens"])
DRINKS: tuple[str, ...] = tuple(_WORDS["drinks"])
FOODS: tuple[str, ...] = tuple(_WORDS["foods"])
HOBBIES: tuple[str, ...] = tuple(_WORDS["hobbies"])
PETS: tuple[str, ...] = tuple(_WORDS["pets"])
# fact, query, the user's question, the assistant's reply, what "What did I ask about" names
CONDITIONS: tuple[tuple[str, str, str, str], ...] = tuple(
    (a, b, c, d) for a, b, c, d in _WORDS["conditions"]
)
# the rule as said, its alternative ("" for none), a query it should bind
RULES: tuple[tuple[str, str, str], ...] = tuple((a, b, c) for a, b, c in _WORDS["rules"])
UNRELATED: tuple[str, ...] = tuple(_WORDS["unrelated"])
# the user's off-topic requests and the assistant's answers
MISC: tuple[tuple[str, str], ...] = tuple((a, b) for a, b in _WORDS["misc"])
# slot: the ways to say it (|), the assistant saying it back, and about it; its topics
FACTS: dict[str, tuple[str, str, str, str]] = {
    slot: (a, b, c, d) for slot, (a, b, c, d) in _WORDS["facts"].items()
}
# slot: the ways to say it changed, the assistant saying it back
CORRECTIONS: dict[str, tuple[str, str]] = {
    slot: (a, b) for slot, (a, b) in _WORDS["corrections"].items()
}
# slot: the user's question, what "What did I ask you about ...?" names, the assistant's answer
QUESTIONS: dict[str, tuple[str, str, str]] = {
    slot: (a, b, c) for slot, (a, b, c) in _WORDS["questions"].items()
}
USER_OPEN: tuple[str, ...] = tuple(_WORDS["user_open"])
USER_ACK: tuple[str, ...] = tuple(_WORDS["user_ack"])
USER_CLOSE: tuple[str, ...] = tuple(_WORDS["user_close"])
BOT_OPEN: tuple[str, ...] = tuple(_WORDS["bot_open"])
BOT_ACK: tuple[str, ...] = tuple(_WORDS["bot_ack"])
BOT_WELCOME: tuple[str, ...] = tuple(_WORDS["bot_welcome"])
BOT_CLOSE: tuple[str, ...] = tuple(_WORDS["bot_close"])
BOT_RULE: tuple[str, ...] = tuple(_WORDS["bot_rule"])


@dataclass(frozen=True)
class Part:
    """One sentence of a turn, and what it is."""

    text: str
    kind: Kind
    slot: str = ""  # a fact's slot: a later fact of the same slot replaces it
    topics: frozenset[str] = frozenset()
    instead: str = ""  # a rule's alternative


@dataclass(frozen=True)
class Turn:
    role: Literal["user", "assistant"]
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.parts)


@dataclass(frozen=True)
class Query:
    """A question asked after the conversation, with the parts its block should hold."""

    text: str
    kind: QueryKind
    should: frozenset[PartId]
    on_topic: frozenset[PartId]  # may be shown: replies on its topics, marked outdated facts


@dataclass(frozen=True)
class Conversation:
    index: int
    turns: tuple[Turn, ...]
    queries: tuple[Query, ...]
    outdated: frozenset[PartId]  # facts a later fact of the same slot replaced
    core: frozenset[PartId]  # the current name, home and job
    rules: frozenset[PartId]

    def part(self, pid: PartId) -> Part:
        return self.turns[pid[0]].parts[pid[1]]

    def parts(self) -> list[tuple[PartId, Part]]:
        return [((t, i), p) for t, turn in enumerate(self.turns) for i, p in enumerate(turn.parts)]


@dataclass
class _Fact:
    slot: str
    text: str
    restate: str  # the assistant saying it back
    reply: str  # the assistant saying something about it
    topics: frozenset[str]

    def part(self) -> Part:
        return Part(self.text, "fact", self.slot, self.topics)


Exchange = tuple[list[Part], list[Part]]


@dataclass
class _Item:
    """An exchange to place: ``after`` names what must come before it."""

    exchange: Exchange
    after: str = ""
    name: str = ""
    position: float = 0.0


@dataclass
class _Persona:
    rng: random.Random
    used: set[str] = field(default_factory=set)

    def one(self, pool: tuple[str, ...] | list[str]) -> str:
        value = self.rng.choice([v for v in pool if v not in self.used])
        self.used.add(value)
        return value


def _t(*topics: str) -> frozenset[str]:
    return frozenset(topics)


class _Builder:
    """Facts, questions and queries of one persona."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        p = _Persona(rng)
        c = rng.choice(CONDITIONS)
        one, pick, number = p.one, rng.choice, rng.randrange
        self.v = dict(name=one(FIRST), sib=one(FIRST), pet_name=one(FIRST), rel=pick(RELATIVES))
        self.v.update(home=one(CITIES), new_home=one(CITIES), sib_city=one(CITIES))
        self.v.update(company=one(COMPANIES), new_company=one(COMPANIES))
        self.v.update(job=one(JOBS), new_job=one(JOBS), drink=one(DRINKS), new_drink=one(DRINKS))
        self.v.update(pet=pick(PETS), allergen=pick(ALLERGENS), food=pick(FOODS))
        self.v.update(phone=f"9{number(1000, 9999)} 4{number(1000, 9999)}", hobby=pick(HOBBIES))
        self.v.update(new_phone=f"8{number(1000, 9999)} 5{number(1000, 9999)}")
        self.v.update(condition=c[0], health_query=c[1], health_reply=c[2], health_asked=c[3])
        self.sore_throat = c is CONDITIONS[0]  # drinks help with it
        self.facts: dict[str, list[_Fact]] = {}  # slot -> its facts in the order said

    def say(self, template: str, sentence: bool = True) -> str:
        """One of the ``|``-separated ways of ``template``, filled in (a sentence: capitalised)."""
        text = self.rng.choice(template.split("|")).format(**self.v)
        return text[:1].upper() + text[1:] if sentence else text

    def fact(self, slot: str) -> _Fact:
        said, restate, reply, topics = FACTS[slot]
        found = _Fact(slot, self.say(said), self.say(restate), self.say(reply), _t(*topics.split()))
        self.facts.setdefault(slot, []).append(found)
        return found

    def correction(self, slot: str) -> _Fact:
        self.v["old"] = self.v["company" if slot == "job" else slot]
        for key in ("home", "company", "job", "phone", "drink"):
            if slot == key or (slot == "job" and key == "company"):
                self.v[key] = self.v[f"new_{key}"]
        said, restate = CORRECTIONS[slot]
        found = _Fact(slot, self.say(said), self.say(restate), "", self.facts[slot][0].topics)
        self.facts[slot].append(found)
        return found

    def after_fact(self, fact: _Fact) -> list[Part]:
        roll = self.rng.random()
        if roll < 0.3 or (not fact.reply and roll < 0.6):
            return [Part(fact.restate, "echo")]
        if roll < 0.5 and fact.reply:
            return [Part(fact.reply, "reply", topics=fact.topics)]
        return [Part(self.rng.choice(BOT_ACK), "chatter")]

    def echo_of(self, slot: str) -> list[Part]:
        """A small model's reply copying memory: a [LOG: ...] line, a restatement, or both."""
        fact = self.rng.choice(self.facts[slot])  # a stale line as often as the current one
        day = f"2026-0{self.rng.randrange(1, 10)}-1{self.rng.randrange(0, 10)}"
        log = f"[LOG: {day} user: {fact.text}]"
        if self.rng.random() < 0.15:
            log = f"[LOG: {day} assistant: {log}]"
        roll = self.rng.random()
        restate = Part(self.facts[slot][-1].restate, "echo")
        if roll < 0.4:
            return [Part(log, "echo"), restate]
        return [Part(log, "echo")] if roll < 0.7 else [restate]

    def question(self, slot: str) -> tuple[Exchange, str]:
        """The user asking about ``slot`` ("misc": off-topic); what "What did I ask about" names."""
        if slot == "misc":
            request, said = self.rng.choice(MISC)
            return ([Part(request, "question", topics=_t("misc"))], [Part(said, "reply")]), ""
        question, asked, reply = QUESTIONS[slot]
        topics = _t(slot, "drink") if slot == "health" and self.sore_throat else _t(slot)
        if self.rng.random() < 0.5 and slot in self.facts:
            answer = self.echo_of(slot)
        else:
            answer = [Part(self.say(reply), "reply", topics=topics)]
        user = [Part(self.say(question), "question", topics=topics)]
        return (user, answer), self.say(asked, sentence=False)


def _chatter(rng: random.Random) -> Exchange:
    if rng.random() < 0.3:
        return [Part("How are you?", "chatter")], [Part("I'm doing well, thanks!", "chatter")]
    return [Part(rng.choice(USER_ACK), "chatter")], [Part(rng.choice(BOT_WELCOME), "chatter")]


def conversation(index: int, rng: random.Random) -> Conversation:
    """One seeded conversation of 7-20 exchanges, and its labelled queries."""
    b = _Builder(rng)
    size = rng.randint(7, 20)
    opening = Part(rng.choice(USER_OPEN), "chatter")
    items: list[_Item] = []
    asked: dict[str, frozenset[str]] = {}  # what a question asked about -> its topics

    def add_fact(slot: str, after: str = "") -> None:
        fact = b.correction(slot) if after else b.fact(slot)
        user = [fact.part()]
        if rng.random() < 0.2:
            user.insert(0, Part(rng.choice(USER_ACK), "chatter"))
        items.append(_Item((user, b.after_fact(fact)), after=after, name=slot if not after else ""))

    first_name = rng.random() < 0.4  # "Hi! I'm Sahil." as the opening
    name_fact = b.fact("name") if first_name else None
    for slot in ("home", "job") if first_name else ("name", "home", "job"):
        add_fact(slot)
    optional = rng.sample(["family", "health", "allergy", "drink", "food", "hobby", "pet"], 7)
    optional.insert(rng.randrange(0, 3), "phone")
    fixable = rng.sample(["home", "job", "phone", "drink"], 4)
    rules = rng.sample(RULES, 2)
    closing = False

    def add_rule() -> None:
        text, instead, _ = rules[sum(1 for i in items if i.name == "rule")]
        part = Part(text, "rule", instead=instead)
        items.append(_Item(([part], [Part(rng.choice(BOT_RULE), "chatter")]), name="rule"))

    def add_question() -> None:
        present = [s for s in ("home", "job", "health", "family", "food", "hobby") if s in b.facts]
        slot = rng.choice([*present, "misc"])
        exchange, phrase = b.question(slot)
        if phrase:
            asked[phrase] = exchange[0][0].topics
        items.append(_Item(exchange, after=slot if slot != "misc" else ""))

    def add_correction() -> None:
        slot = next(s for s in fixable if s in b.facts)
        fixable.remove(slot)
        add_fact(slot, after=slot)

    add_rule()
    add_question()
    add_correction()
    while 1 + len(items) + closing < size:  # the opening and the closing count
        roll = rng.random()
        if roll < 0.4 and optional:
            add_fact(optional.pop(0))
        elif roll < 0.6:
            add_question()
        elif roll < 0.75:
            items.append(_Item(_chatter(rng)))
        elif roll < 0.85 and sum(1 for i in items if i.name == "rule") < 2:
            add_rule()
        elif roll < 0.92 and len(fixable) > 2:
            add_correction()
        elif not closing:
            closing = True
        else:
            items.append(_Item(_chatter(rng)))
    # Place: a correction or a question after the fact it needs, else anywhere.
    for item in items:
        item.position = rng.random()
    placed = {i.name: i.position for i in items if i.name}
    for item in items:
        if item.after:
            floor = placed.get(item.after, 0.0)
            item.position = floor + (1.0 - floor) * rng.uniform(0.05, 1.0)
    items.sort(key=lambda i: i.position)
    if name_fact is not None:
        first: Exchange = ([opening, name_fact.part()], [Part(name_fact.restate, "echo")])
    else:
        first = ([opening], [Part(rng.choice(BOT_OPEN), "chatter")])
    exchanges = [first, *(i.exchange for i in items)]
    if closing:
        end = [Part(rng.choice(BOT_CLOSE), "chatter")]
        exchanges.append(([Part(rng.choice(USER_CLOSE), "chatter")], end))
    turns = tuple(
        turn
        for user, bot in exchanges
        for turn in (Turn("user", tuple(user)), Turn("assistant", tuple(bot)))
    )
    kept = rules[: sum(1 for i in items if i.name == "rule")]
    return _labelled(index, turns, b, asked, kept, rng)


def _labelled(
    index: int,
    turns: tuple[Turn, ...],
    b: _Builder,
    asked: dict[str, frozenset[str]],
    rules: list[tuple[str, str, str]],
    rng: random.Random,
) -> Conversation:
    parts = [((t, i), p) for t, turn in enumerate(turns) for i, p in enumerate(turn.parts)]
    current: dict[str, PartId] = {}
    for pid, part in parts:
        if part.kind == "fact":
            current[part.slot] = pid
    outdated = frozenset(pid for pid, p in parts if p.kind == "fact" and current[p.slot] != pid)
    core = frozenset(current[s] for s in CORE_SLOTS)
    rule_ids = frozenset(pid for pid, p in parts if p.kind == "rule")

    def query(text: str, kind: QueryKind, topics: frozenset[str]) -> Query:
        should = set(core | rule_ids)
        should |= {pid for s, pid in current.items() if topics & b.facts[s][-1].topics}
        if kind == "asked":
            should |= {pid for pid, p in parts if p.kind == "question" and p.topics & topics}
        on_topic = {pid for pid, p in parts if p.kind == "reply" and p.topics & topics}
        on_topic |= {pid for pid in outdated if parts_of[pid].topics & topics}
        return Query(text, kind, frozenset(should), frozenset(on_topic))

    parts_of = dict(parts)
    home = rng.choice(["Where do I live now?", "Which city am I based in?"])
    wanted = [query(home, "topic", _t("home"))]
    options = {
        "job": (rng.choice(["Where do I work these days?", "What do I do for a living?"]), "job"),
        "name": (rng.choice(["What's my name?", "How should you address me?"]), "name"),
        "phone": ("What's my phone number?", "phone"),
        "family": (b.say("Where does my {rel} live?"), "family"),
        "health": (b.say("{health_query}"), "health"),
        "allergy": ("What should I cook for dinner tonight?", "food"),
        "food": ("Suggest a restaurant for tonight.", "food"),
        "drink": ("What should I drink this morning?", "drink"),
        "hobby": ("What could I do this weekend?", "hobby"),
        "pet": (b.say("What should I feed my {pet}?"), "pet"),
    }
    for slot, (text, topic) in options.items():
        chance = 0.8 if slot == "job" else 0.3 if slot == "name" else 0.5
        if slot in b.facts and rng.random() < chance:
            topics = _t(topic, "drink") if slot == "health" and b.sore_throat else _t(topic)
            wanted.append(query(text, "topic", topics))
    for _, _, text in rules:
        wanted.append(query(text, "rule", frozenset()))
    if asked:
        phrase = rng.choice(sorted(asked))
        wanted.append(query(f"What did I ask you about {phrase}?", "asked", asked[phrase]))
    for text in rng.sample(UNRELATED, rng.randint(1, 2)):
        wanted.append(query(text, "unrelated", frozenset()))
    return Conversation(index, turns, tuple(wanted), outdated, core, rule_ids)


def generate(seed: int, count: int) -> list[Conversation]:
    """``count`` conversations from ``seed`` (the same seed gives the same cases)."""
    rng = random.Random(seed)
    return [conversation(i, random.Random(rng.getrandbits(64))) for i in range(count)]
