"""The cases of ``bench.forgetting``: facts among distractors, forgetting by description.

Every case is generated from a seed: a few facts said in one space among 8-12
distractors (other people, other topics, some on the same attribute), then one or
more operations given as a short description, the way a person would say it
("Tanvi's employer", "my address before the current one", "the phone 90031 44728"),
then one query whose top 10 must hold every ``must`` text and none of the
``must_not`` texts. An ``ambiguous`` case names a person the space holds two of:
the operation must answer with candidates and change nothing.

The names, places and values (``bench/data/forgetting_words.json``) are this project's own;
nothing here comes from a dataset.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from bench.cases import DATA, read_json

_WORDS = read_json(DATA / "forgetting_words.json")  # the people, places and values drawn from
FIRST: tuple[str, ...] = tuple(_WORDS["first"])
LAST: tuple[str, ...] = tuple(_WORDS["last"])
CITIES: tuple[str, ...] = tuple(_WORDS["cities"])
COMPANIES: tuple[str, ...] = tuple(_WORDS["companies"])
STREETS: tuple[str, ...] = tuple(_WORDS["streets"])
DRINKS: tuple[str, ...] = tuple(_WORDS["drinks"])
FOODS: tuple[str, ...] = tuple(_WORDS["foods"])
HOBBIES: tuple[str, ...] = tuple(_WORDS["hobbies"])
CONDITIONS: tuple[str, ...] = tuple(_WORDS["conditions"])
PETS: tuple[str, ...] = tuple(_WORDS["pets"])
LOOKALIKES: dict[str, str] = dict(_WORDS["lookalikes"])  # a pet -> a word it is a prefix of

Kind = Literal["supersede", "release", "purge"]

FAMILIES = ("supersession", "drift", "purge", "amnesia", "decay")
ADVERSARIAL = (
    "compound",
    "identifier",
    "negation",
    "paraphrase",
    "prefix",
    "shared",
    "substring",
    "temporal",
    "ambiguous",
)


@dataclass(frozen=True)
class Note:
    text: str
    days_ago: float = 1.0


@dataclass(frozen=True)
class Operation:
    kind: Kind
    about: str
    new: str | None = None  # supersede: the correction, stored as a note


@dataclass(frozen=True)
class Case:
    family: str
    notes: tuple[Note, ...]
    operations: tuple[Operation, ...]
    query: str
    must: tuple[str, ...]
    must_not: tuple[str, ...]
    ambiguous: bool = False  # the (only) operation must answer with candidates


@dataclass
class Draw:
    """Picks values for one case without repeating any inside it."""

    rng: random.Random
    used: set[str] = field(default_factory=set)

    def one(self, pool: tuple[str, ...] | list[str]) -> str:
        free = [v for v in pool if v not in self.used]
        value = self.rng.choice(free)
        self.used.add(value)
        return value

    def phone(self) -> str:
        return f"9{self.rng.randrange(1000, 9999)}{self.rng.randrange(10000, 99999)}"

    def key(self) -> str:
        alphabet = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        return "sk-" + "".join(self.rng.choice(alphabet) for _ in range(24))


def distractors(draw: Draw, n: int) -> list[Note]:
    """Facts about other people and other topics, some on the attributes the cases use."""
    templates = (
        lambda p: f"{p} works at {draw.one(COMPANIES)} as an analyst.",
        lambda p: f"{p} lives in {draw.one(CITIES)}.",
        lambda p: f"{p} enjoys {draw.one(HOBBIES)} on weekends.",
        lambda p: f"{p} loves {draw.one(FOODS)}.",
        lambda p: f"{p} drinks {draw.one(DRINKS)} in the afternoon.",
        lambda p: f"{p} is planning a trip to {draw.one(CITIES)} in spring.",
        lambda p: f"The quarterly report for {draw.one(COMPANIES)} is due on Friday.",
        lambda p: f"{p} recommended a novel about lighthouse keepers.",
        lambda p: f"{p} has a {draw.one(PETS)} called {draw.one(FIRST)}.",
    )
    notes = []
    for i in range(n):
        person = draw.one(FIRST)
        notes.append(Note(templates[i % len(templates)](person), days_ago=draw.rng.uniform(1, 60)))
    draw.rng.shuffle(notes)
    return notes


def with_distractors(draw: Draw, facts: list[Note]) -> tuple[Note, ...]:
    notes = distractors(draw, draw.rng.randint(8, 12))
    for fact in facts:
        notes.insert(draw.rng.randrange(len(notes) + 1), fact)
    return tuple(notes)


# --- the five families ----------------------------------------------------------------

JOB_LINES = (
    "{p} works at {c}.",
    "{p} has a job at {c} in the design team.",
    "{p} is employed by {c}.",
    "{p} joined {c} as a product manager.",
)
JOB_ABOUT = ("{p} employer", "{p}'s employer", "where {p} works", "{p}'s job", "{p} company")
HOME_LINES = ("{p} lives in {c}.", "{p} moved to {c} last spring.", "{p}'s home is in {c}.")
HOME_ABOUT = ("{p}'s city", "where {p} lives", "{p} home city", "{p}'s address")


def supersession(draw: Draw, corrections: int) -> Case:
    person = draw.one(FIRST)
    lines: tuple[str, ...]
    abouts: tuple[str, ...]
    if draw.rng.random() < 0.5:
        lines, abouts, pool = JOB_LINES, JOB_ABOUT, COMPANIES
        news = ("{p} is at {c} as of this year.", "{p} now works for {c}.", "{p} switched to {c}.")
        query = f"Where does {person} work?"
    else:
        lines, abouts, pool = HOME_LINES, HOME_ABOUT, CITIES
        news = ("{p} is in {c} now.", "{p} relocated to {c}.", "{p} now lives in {c}.")
        query = f"Where does {person} live?"
    values = [draw.one(pool) for _ in range(corrections + 1)]
    fact = Note(draw.rng.choice(lines).format(p=person, c=values[0]), days_ago=90)
    operations = tuple(
        Operation(
            "supersede",
            draw.rng.choice(abouts).format(p=person),
            draw.rng.choice(news).format(p=person, c=value),
        )
        for value in values[1:]
    )
    family = "supersession" if corrections == 1 else "drift"
    notes = with_distractors(draw, [fact])
    return Case(family, notes, operations, query, (values[-1],), tuple(values[:-1]))


def purge(draw: Draw) -> Case:
    person = draw.one(FIRST)
    hobby = draw.one(HOBBIES)
    kept = Note(f"{person} spends Sundays on {hobby}.")
    choice = draw.rng.randrange(3)
    if choice == 0:
        secret = draw.key()
        facts = [Note(f"My API key for the billing service is {secret}, keep it handy."), kept]
        about = draw.rng.choice((f"the API key {secret}", "my API key", f"key {secret}"))
        query = f"What is my API key? What does {person} do on Sundays?"
        gone = (secret,)
    elif choice == 1:
        number = draw.phone()
        spaced = f"{number[:5]} {number[5:]}"
        facts = [Note(f"{person}'s phone number is +91 {spaced}."), kept]
        about = draw.rng.choice(
            (f"phone {number}", f"{person}'s phone number", f"the number {spaced}")
        )
        query = f"What is {person}'s phone number? What does {person} do on Sundays?"
        gone = (number[5:],)
    else:
        condition = draw.one(CONDITIONS)
        facts = [Note(f"{person} was diagnosed with {condition} in March."), kept]
        about = draw.rng.choice((f"{person}'s medical record", f"{person}'s diagnosis"))
        query = f"What do I know about {person}'s health and hobbies?"
        gone = (condition,)
    return Case(
        "purge", with_distractors(draw, facts), (Operation("purge", about),), query, (hobby,), gone
    )


def amnesia(draw: Draw) -> Case:
    other = draw.one(FIRST)
    food = draw.one(FOODS)
    hobby = draw.one(HOBBIES)
    gone: tuple[str, ...]
    if draw.rng.random() < 0.5:
        facts = [
            Note("I am vegetarian and avoid eggs too."),
            Note("My diet has no refined sugar since January."),
            Note(f"{other} loves {food}."),
            Note(f"I practise {hobby} every Thursday."),
        ]
        about = draw.rng.choice(("my diet", "what I eat", "my food habits"))
        query = f"What food do I eat, what does {other} love, and what do I practise?"
        gone = ("vegetarian", "refined sugar")
    else:
        ex = draw.one(FIRST)
        city = draw.one(CITIES)
        facts = [
            Note(f"{ex} and I broke up in {city} after four years."),
            Note(f"{ex} still has my bicycle."),
            Note(f"{other} loves {food}."),
            Note(f"I practise {hobby} every Thursday."),
        ]
        about = draw.rng.choice((f"{ex}", f"everything about {ex}", f"my ex {ex}"))
        query = f"Who has my bicycle, what does {other} love, and what do I practise?"
        gone = (ex,)
    return Case(
        "amnesia",
        with_distractors(draw, facts),
        (Operation("release", about),),
        query,
        (food, hobby),
        gone,
    )


def decay(draw: Draw) -> Case:
    person = draw.one(FIRST)
    company = draw.one(COMPANIES)
    city = draw.one(CITIES)
    facts = [
        Note(f"{person} works at {company}.", days_ago=700),
        Note(f"{person} lives in {city}.", days_ago=650),
    ]
    notes = with_distractors(draw, facts)
    forgotten = draw.one(FIRST)
    hobby = draw.one(HOBBIES)
    notes = (*notes, Note(f"{forgotten} took up {hobby}.", days_ago=30))
    op = Operation("release", f"{forgotten}'s hobby")
    return Case(
        "decay", notes, (op,), f"Where does {person} work and live?", (company, city), (hobby,)
    )


# --- the adversarial kinds --------------------------------------------------------------


def compound(draw: Draw) -> Case:
    person, drink, city = draw.one(FIRST), draw.one(DRINKS), draw.one(CITIES)
    line = draw.rng.choice(
        (
            f"{person} likes {drink} and lives in {city}.",
            f"{person} lives in {city} and likes {drink}.",
        )
    )
    kind: Kind = draw.rng.choice(("release", "supersede"))
    new_city = draw.one(CITIES)
    op = Operation(
        kind,
        f"where {person} lives",
        f"{person} lives in {new_city} now." if kind == "supersede" else None,
    )
    must = (drink, new_city) if kind == "supersede" else (drink,)
    query = f"What does {person} like to drink, and where does {person} live?"
    return Case("compound", with_distractors(draw, [Note(line)]), (op,), query, must, (city,))


def identifier(draw: Draw) -> Case:
    first, last = draw.one(FIRST).lower(), draw.one(LAST).lower()
    domain = draw.rng.choice(("mailbox.org", "example.net", "fastpost.in"))
    kept_person = draw.one(FIRST)
    kept = f"{kept_person.lower()}@{domain}"
    if draw.rng.random() < 0.6:
        host, tld = domain.split(".")
        spellings: tuple[str, ...] = (
            f'"{first}.{last}"@{domain}',
            f"{first} dot {last} at {host} dot {tld}",
            f"{first}.{last} [at] {host} [dot] {tld}",
            f"{first}.{last}(at){domain}",
            f"{first.capitalize()}.{last.capitalize()}@{domain.upper()}",
        )
        facts = [
            Note(f"Write to {draw.rng.choice(spellings)} for the invoices."),
            Note(f"The old contact was {draw.rng.choice(spellings)}."),
            Note(f"{kept_person} reads mail at {kept}."),
        ]
        about = f"{first}.{last}@{domain}"
        gone: tuple[str, ...] = (last,)
        query = "Which email addresses do I have for invoices and for contacts?"
    else:
        number = draw.phone()
        spellings = (
            f"+91 {number[:5]} {number[5:]}",
            f"{number[:5]}-{number[5:]}",
            f"({number[:3]}) {number[3:6]}-{number[6:]}",
            f"0{number}",
        )
        facts = [
            Note(f"Call the plumber on {draw.rng.choice(spellings)}."),
            Note(f"The plumber's backup line is {draw.rng.choice(spellings)}."),
            Note(f"{kept_person} reads mail at {kept}."),
        ]
        about = draw.rng.choice((number, f"+91{number}", f"{number[:5]} {number[5:]}"))
        gone = (number[-4:],)
        query = "What is the plumber's number, and where does anyone read mail?"
    op = Operation("purge", about)
    return Case("identifier", with_distractors(draw, facts), (op,), query, (kept,), gone)


def negation(draw: Draw) -> Case:
    kept_drink, dropped = draw.rng.sample(("green tea", "lemonade", "kombucha", "hot chocolate"), 2)
    facts = [
        Note(f"I do not drink {dropped} anymore."),
        Note(f"I drink {kept_drink} every morning."),
    ]
    about = draw.rng.choice((f"user does not drink {dropped}", f"that I don't drink {dropped}"))
    return Case(
        "negation",
        with_distractors(draw, facts),
        (Operation("release", about),),
        "What do I drink?",
        (kept_drink,),
        (dropped,),
    )


def paraphrase(draw: Draw) -> Case:
    person, old, new = draw.one(FIRST), draw.one(COMPANIES), draw.one(COMPANIES)
    line = draw.rng.choice(
        (
            f"{person}'s job is at {old}.",
            f"{person} is employed at {old}.",
            f"{person} got hired by {old}.",
        )
    )
    about = draw.rng.choice(
        (f"where {person} works", f"{person}'s workplace", f"{person}'s employer")
    )
    op = Operation("supersede", about, f"{person} works at {new} now.")
    return Case(
        "paraphrase",
        with_distractors(draw, [Note(line)]),
        (op,),
        f"Where is {person} working?",
        (new,),
        (old,),
    )


def prefix(draw: Draw) -> Case:
    short = draw.one(("Ann", "Jo", "Mari", "Dan", "Chris", "Ali"))
    long = {
        "Ann": "Anna",
        "Jo": "Joanna",
        "Mari": "Marianne",
        "Dan": "Daniel",
        "Chris": "Christa",
        "Ali": "Alina",
    }[short]
    gone_street, kept_street = draw.one(STREETS), draw.one(STREETS)
    facts = [
        Note(f"{short} lives at {draw.rng.randint(2, 90)} {gone_street} Street."),
        Note(f"{long} lives at {draw.rng.randint(2, 90)} {kept_street} Street."),
    ]
    kind: Kind = draw.rng.choice(("release", "purge"))
    op = Operation(kind, draw.rng.choice((f"{short}'s address", f"where {short} lives")))
    return Case(
        "prefix",
        with_distractors(draw, facts),
        (op,),
        f"Where do {short} and {long} live?",
        (kept_street,),
        (gone_street,),
    )


def shared(draw: Draw) -> Case:
    gone, kept, city = draw.one(FIRST), draw.one(FIRST), draw.one(CITIES)
    facts = [Note(f"{gone} lives in {city}."), Note(f"{kept} lives in {city} too.")]
    kind: Kind = draw.rng.choice(("release", "purge"))
    op = Operation(kind, draw.rng.choice((f"{gone}'s city", f"where {gone} lives")))
    return Case(
        "shared", with_distractors(draw, facts), (op,), f"Who lives in {city}?", (kept,), (gone,)
    )


def substring(draw: Draw) -> Case:
    pet = draw.one(tuple(LOOKALIKES))
    name = draw.one(FIRST)
    lookalike = LOOKALIKES[pet]
    facts = [
        Note(f"We adopted a {pet} named {name} in June."),
        Note(f"The {lookalike} came up twice in the budget meeting."),
    ]
    return Case(
        "substring",
        with_distractors(draw, facts),
        (Operation("purge", pet),),
        f"What came up in the budget meeting, and did we adopt a {pet}?",
        (lookalike,),
        (name,),
    )


def temporal(draw: Draw) -> Case:
    old_street, current_street, fixed_street = (draw.one(STREETS) for _ in range(3))
    old_no, new_no = draw.rng.randint(2, 60), draw.rng.randint(61, 99)
    facts = [
        Note(f"I lived at {old_no} {old_street} Road for three years.", days_ago=800),
        Note(f"I live at {new_no} {current_street} Lane now.", days_ago=20),
    ]
    about = draw.rng.choice(
        ("my address before the current one", "my previous address", "my old address")
    )
    op = Operation(
        "supersede", about, f"Before {current_street} Lane I lived at {old_no} {fixed_street} Road."
    )
    return Case(
        "temporal",
        with_distractors(draw, facts),
        (op,),
        "Where have I lived?",
        (current_street, fixed_street),
        (old_street,),
    )


def ambiguous(draw: Draw) -> Case:
    first = draw.one(FIRST)
    last_a, last_b = draw.one(LAST), draw.one(LAST)
    co_a, co_b = draw.one(COMPANIES), draw.one(COMPANIES)
    facts = [Note(f"{first} {last_a} works at {co_a}."), Note(f"{first} {last_b} works at {co_b}.")]
    op = Operation(
        "supersede", f"{first}'s employer", f"{first} works at {draw.one(COMPANIES)} now."
    )
    return Case(
        "ambiguous",
        with_distractors(draw, facts),
        (op,),
        f"Where does {first} work?",
        (co_a, co_b),
        (),
        ambiguous=True,
    )


def generate(seed: int, per_family: int, per_kind: int) -> list[Case]:
    """``per_family`` cases of each family, ``per_kind`` of each adversarial kind."""
    rng = random.Random(seed)
    makers = {
        "supersession": lambda d: supersession(d, 1),
        "drift": lambda d: supersession(d, 2),
        "purge": purge,
        "amnesia": amnesia,
        "decay": decay,
    }
    kinds = {
        "compound": compound,
        "identifier": identifier,
        "negation": negation,
        "paraphrase": paraphrase,
        "prefix": prefix,
        "shared": shared,
        "substring": substring,
        "temporal": temporal,
        "ambiguous": ambiguous,
    }
    cases = [makers[f](Draw(rng)) for f in FAMILIES for _ in range(per_family)]
    cases += [kinds[k](Draw(rng)) for k in ADVERSARIAL for _ in range(per_kind)]
    return cases
