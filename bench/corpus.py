"""A deterministic corpus of realistic personal notes and chat turns, and queries about them.

Latency depends on what is stored: FTS5 posting-list lengths follow the
vocabulary, k-NN cost follows the sentence count, embedding cost follows the
token count. So the benchmark stores text shaped like a real user's memory
(people, places, work, health, food, travel, dates, projects; names, cities and
numbers; 1-3 sentences a note) rather than lorem ipsum, and asks the questions a
user would. The same seed always yields the same notes, and the first ``n`` notes
of a larger corpus are the ``n``-note corpus.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

DEFAULT_SEED = 20_240_601
# Notes span this many days before ``EPOCH`` (said_at is spread over them).
SPAN_DAYS = 730
EPOCH = 1_735_689_600.0  # 2025-01-01T00:00:00Z
# Share of notes that are chat turns (user / assistant) rather than plain notes.
CHAT_SHARE = 0.3
SECONDS_PER_DAY = 86_400

FIRST_NAMES = (
    "Priya", "Arjun", "Meera", "Rahul", "Ananya", "Vikram", "Sara", "Tom", "Lena", "Jonas",
    "Fatima", "Omar", "Chen", "Mei", "Kenji", "Yuki", "Lucas", "Sofia", "Mateo", "Elena",
    "Noah", "Emma", "Liam", "Olivia", "Aisha", "Kwame", "Zara", "Ivan", "Nadia", "Pedro",
    "Grace", "Daniel", "Hannah", "Samir", "Leila", "Rohan", "Kavya", "Diego", "Camila", "Felix",
    "Ingrid", "Marco", "Giulia", "Tariq", "Amara", "Ben", "Chloe", "Raj", "Nina", "Oscar",
)  # fmt: skip
SURNAMES = (
    "Rao", "Sharma", "Patel", "Iyer", "Gupta", "Khan", "Mehta", "Nair", "Fischer", "Weber",
    "Garcia", "Lopez", "Silva", "Santos", "Nakamura", "Tanaka", "Wang", "Li", "Okafor", "Mensah",
    "Novak", "Kowalski", "Rossi", "Bianchi", "Dubois", "Martin", "Smith", "Brown", "Haddad",
    "Yilmaz", "Petrov", "Andersen", "Kim", "Park", "Costa", "Murphy", "Kelly", "Schmidt",
)  # fmt: skip
CITIES = (
    "Pune", "Mumbai", "Bangalore", "Delhi", "Chennai", "Hyderabad", "Kochi", "Goa", "Berlin",
    "Munich", "Lisbon", "Porto", "Madrid", "Barcelona", "Paris", "Lyon", "Amsterdam", "London",
    "Edinburgh", "Dublin", "Oslo", "Stockholm", "Copenhagen", "Vienna", "Prague", "Kraków",
    "Rome", "Milan", "Istanbul", "Dubai", "Singapore", "Tokyo", "Kyoto", "Osaka", "Seoul",
    "Taipei", "Sydney", "Melbourne", "Auckland", "Toronto", "Vancouver", "Montreal", "Boston",
    "Chicago", "Austin", "Denver", "Seattle", "Nairobi", "Accra", "Cape Town", "Mexico City",
)  # fmt: skip
NEIGHBOURHOODS = (
    "Kothrud", "Baner", "Koregaon Park", "Indiranagar", "Bandra", "Andheri", "Kreuzberg",
    "Neukölln", "Alfama", "Gràcia", "Le Marais", "Jordaan", "Shoreditch", "Södermalm",
    "Shimokitazawa", "Gangnam", "Fitzroy", "Kitsilano", "Back Bay", "Wicker Park",
)  # fmt: skip
RELATIONS = (
    "sister", "brother", "cousin", "aunt", "uncle", "neighbour", "colleague", "manager",
    "best friend", "flatmate", "mentor", "landlord", "daughter's teacher", "old classmate",
    "mother-in-law", "father", "mother", "son", "daughter", "partner",
)  # fmt: skip
JOBS = (
    "backend engineer", "nurse", "architect", "teacher", "data analyst", "chef", "lawyer",
    "product manager", "graphic designer", "pharmacist", "accountant", "physiotherapist",
    "journalist", "electrician", "civil engineer", "research scientist", "dentist", "pilot",
)  # fmt: skip
COMPANIES = (
    "Infosys", "Northwind", "Acme Logistics", "Globex", "Initech", "Hooli", "Stark Analytics",
    "BlueOrbit", "Greenfield Bank", "Tata Motors", "Zenith Health", "Brightside Media",
    "Polaris Labs", "Redwood Insurance", "Kite Robotics", "Harbor Foods",
)  # fmt: skip
PROJECTS = (
    "Atlas", "Nimbus", "Falcon", "Orchid", "Beacon", "Quartz", "Harbor", "Juniper", "Lighthouse",
    "Monsoon", "Pegasus", "Sequoia", "Tundra", "Zephyr", "Cobalt", "Meridian",
)  # fmt: skip
WORK_TASKS = (
    "the billing migration", "the quarterly report", "the onboarding flow", "the API redesign",
    "the database upgrade", "the security audit", "the hiring plan", "the mobile release",
    "the customer survey", "the data pipeline", "the budget review", "the load tests",
)  # fmt: skip
CONDITIONS = (
    "blood pressure", "cholesterol", "back pain", "migraines", "knee injury", "asthma",
    "vitamin D levels", "blood sugar", "allergies", "sleep", "thyroid", "eczema",
)  # fmt: skip
MEDICATIONS = (
    "metformin", "atorvastatin", "ibuprofen", "cetirizine", "levothyroxine", "amlodipine",
    "vitamin D3", "omeprazole", "salbutamol", "melatonin",
)  # fmt: skip
SPECIALISTS = (
    "dentist", "cardiologist", "dermatologist", "physiotherapist", "GP", "eye doctor",
    "orthopaedic surgeon", "nutritionist", "ENT specialist", "paediatrician",
)  # fmt: skip
DISHES = (
    "masala dosa", "paneer tikka", "ramen", "sushi", "pad thai", "margherita pizza", "pho",
    "biryani", "falafel wrap", "bibimbap", "tacos al pastor", "green curry", "dal makhani",
    "shakshuka", "carbonara", "dim sum", "poke bowl", "croissants", "pastel de nata",
)  # fmt: skip
RESTAURANTS = (
    "Vaishali", "Blue Door Café", "Sakura House", "La Piazza", "The Green Table", "Spice Route",
    "Mama Rosa's", "Golden Dragon", "Café Madeleine", "Bombay Canteen", "Noodle Bar 88",
    "Taqueria Luz", "Olive & Thyme", "Curry Leaf",
)  # fmt: skip
DIETARY = (
    "vegetarian", "vegan", "lactose intolerant", "allergic to peanuts", "allergic to shellfish",
    "gluten-free", "avoiding sugar", "off caffeine",
)  # fmt: skip
AIRLINES = (
    "Lufthansa", "IndiGo", "Air India", "KLM", "Emirates", "TAP", "Qatar Airways",
    "Singapore Airlines", "Vistara", "easyJet", "Ryanair", "ANA",
)  # fmt: skip
HOTELS = (
    "the Marriott", "a small guesthouse", "the Hilton", "an Airbnb", "the Ibis", "a ryokan",
    "the Taj", "a hostel", "the Novotel", "a boutique hotel",
)  # fmt: skip
HOBBIES = (
    "bouldering", "the guitar", "watercolour painting", "running", "chess", "salsa dancing",
    "pottery", "birdwatching", "swimming", "photography", "baking sourdough", "yoga",
)  # fmt: skip
PETS = ("dog", "cat", "parrot", "rabbit", "tortoise", "goldfish")
PET_NAMES = ("Biscuit", "Mango", "Luna", "Pepper", "Simba", "Coco", "Bruno", "Kiwi", "Tofu")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
CURRENCIES = ("₹", "€", "$", "£")
ASSISTANT_OPENERS = (
    "Got it, I'll remember that",
    "Noted",
    "Thanks for telling me",
    "Okay, saved",
    "Understood",
)
ASSISTANT_FOLLOW_UPS = (
    "Want a reminder on {day}?",
    "Should I add it to your calendar for {day}?",
    "I can bring it up again on {day} if you like.",
    "Anything else you want me to keep track of?",
    "I'll mention it when you plan your week.",
)


@dataclass(frozen=True)
class Note:
    """One stored episode: its text, role (note / user / assistant) and when it was said."""

    text: str
    role: str
    said_at: float


class _Slots:
    """Random picks from the word pools, drawn from one seeded RNG."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick(self, pool: tuple[str, ...]) -> str:
        return self.rng.choice(pool)

    def person(self) -> str:
        return f"{self.pick(FIRST_NAMES)} {self.pick(SURNAMES)}"

    def time(self) -> str:
        hour = self.rng.randint(7, 20)
        minute = self.rng.choice((0, 15, 30, 45))
        return f"{hour}:{minute:02d}"

    def date(self) -> str:
        return f"{self.pick(MONTHS)} {self.rng.randint(1, 28)}"

    def money(self, low: int, high: int) -> str:
        return f"{self.pick(CURRENCIES)}{self.rng.randint(low, high):,}"


def _people(s: _Slots) -> list[str]:
    name, surname = s.pick(FIRST_NAMES), s.pick(SURNAMES)
    return [
        f"{name} {surname} is my {s.pick(RELATIONS)}.",
        f"{name} lives in {s.pick(NEIGHBOURHOODS)}, {s.pick(CITIES)} and works as a "
        f"{s.pick(JOBS)} at {s.pick(COMPANIES)}.",
        f"{name}'s birthday is on {s.date()}; last year I gave them a book about "
        f"{s.pick(HOBBIES)}.",
        f"{name} has a {s.pick(PETS)} called {s.pick(PET_NAMES)}.",
        f"{name}'s phone number changed to +{s.rng.randint(10, 99)} "
        f"{s.rng.randint(10_000, 99_999)} {s.rng.randint(10_000, 99_999)}.",
        f"{name} and I have been friends since {s.rng.randint(1995, 2023)}.",
    ]


def _places(s: _Slots) -> list[str]:
    city, area = s.pick(CITIES), s.pick(NEIGHBOURHOODS)
    return [
        f"We moved to a flat in {area}, {city} in {s.pick(MONTHS)} {s.rng.randint(2018, 2025)}.",
        f"The rent is {s.money(400, 90_000)} a month, due on the {s.rng.randint(1, 10)}th.",
        f"The landlord, {s.person()}, prefers WhatsApp over email.",
        f"The nearest pharmacy in {area} closes at {s.time()} on {s.pick(WEEKDAYS)}s.",
        f"My gym in {city} is a {s.rng.randint(5, 25)} minute walk from home.",
    ]


def _work(s: _Slots) -> list[str]:
    project, task = s.pick(PROJECTS), s.pick(WORK_TASKS)
    return [
        f"Project {project} at {s.pick(COMPANIES)} is due on {s.date()}.",
        f"{s.person()} is leading {task} for {project}.",
        f"The standup for {project} moved to {s.time()} on {s.pick(WEEKDAYS)}s.",
        f"We agreed to cut the scope of {task} by {s.rng.randint(10, 50)} percent.",
        f"My manager {s.person()} wants a demo of {project} before the offsite in "
        f"{s.pick(CITIES)}.",
        f"The budget for {project} is {s.money(5_000, 500_000)} for this quarter.",
    ]


def _health(s: _Slots) -> list[str]:
    condition, doctor = s.pick(CONDITIONS), s.pick(SURNAMES)
    return [
        f"My {s.pick(SPECIALISTS)} is Dr. {doctor} in {s.pick(NEIGHBOURHOODS)}.",
        f"Dr. {doctor} said my {condition} looks better than in {s.pick(MONTHS)}.",
        f"I take {s.rng.randint(5, 500)} mg of {s.pick(MEDICATIONS)} every morning.",
        f"The next check-up for my {condition} is on {s.date()} at {s.time()}.",
        f"I slept {s.rng.randint(4, 9)} hours and walked {s.rng.randint(2_000, 15_000):,} "
        "steps yesterday.",
    ]


def _food(s: _Slots) -> list[str]:
    dish, place = s.pick(DISHES), s.pick(RESTAURANTS)
    return [
        f"I usually order the {dish} at {place}.",
        f"{s.pick(FIRST_NAMES)} is {s.pick(DIETARY)}, so no {s.pick(DISHES)} when they visit.",
        f"{place} in {s.pick(CITIES)} does the best {dish} I have had.",
        f"Dinner at {place} for {s.rng.randint(2, 8)} people came to {s.money(20, 9_000)}.",
        f"I am trying to cook {dish} at home every {s.pick(WEEKDAYS)}.",
    ]


def _travel(s: _Slots) -> list[str]:
    city = s.pick(CITIES)
    return [
        f"Flight to {city} on {s.date()} with {s.pick(AIRLINES)}, departing {s.time()}.",
        f"Booked {s.pick(HOTELS)} in {city} for {s.rng.randint(2, 14)} nights.",
        f"The booking reference for the {city} trip is "
        f"{s.rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}{s.rng.randint(10_000, 99_999)}.",
        f"{s.person()} recommended visiting the old town in {city}.",
        f"My passport expires in {s.pick(MONTHS)} {s.rng.randint(2026, 2034)}.",
    ]


def _dates(s: _Slots) -> list[str]:
    return [
        f"Our wedding anniversary is on {s.date()}.",
        f"Parent-teacher meeting on {s.pick(WEEKDAYS)} at {s.time()} with {s.person()}.",
        f"The car insurance renews on {s.date()} and costs {s.money(200, 40_000)}.",
        f"Remind me to call {s.pick(FIRST_NAMES)} on {s.pick(WEEKDAYS)} about the "
        f"{s.pick(('visa', 'tickets', 'loan', 'party', 'move', 'contract'))}.",
        f"I started {s.pick(HOBBIES)} classes in {s.pick(MONTHS)}.",
    ]


def _projects(s: _Slots) -> list[str]:
    hobby = s.pick(HOBBIES)
    return [
        f"My side project is a {s.pick(('budget', 'recipe', 'habit', 'reading', 'garden'))} "
        f"tracker written in {s.pick(('Python', 'Rust', 'Go', 'TypeScript', 'Kotlin'))}.",
        f"I want to get better at {hobby} before {s.date()}.",
        f"The {hobby} club meets at {s.time()} every {s.pick(WEEKDAYS)} in {s.pick(CITIES)}.",
        f"I spent {s.money(10, 3_000)} on gear for {hobby} this month.",
        f"{s.person()} offered to teach me {hobby} for {s.money(10, 200)} an hour.",
    ]


TOPICS: tuple[Callable[[_Slots], list[str]], ...] = (
    _people,
    _places,
    _work,
    _health,
    _food,
    _travel,
    _dates,
    _projects,
)


def _question(s: _Slots) -> str:
    """One realistic query: lexical ("Dr. Rao"), semantic ("tooth doctor") or mixed."""
    templates: tuple[Callable[[], str], ...] = (
        lambda: f"where does {s.pick(FIRST_NAMES)} live?",
        lambda: f"when is {s.pick(FIRST_NAMES)}'s birthday?",
        lambda: f"who is my {s.pick(SPECIALISTS)}?",
        lambda: f"what did the doctor say about my {s.pick(CONDITIONS)}?",
        lambda: f"how much medication do I take for my {s.pick(CONDITIONS)}",
        lambda: f"when is project {s.pick(PROJECTS)} due?",
        lambda: f"who is leading {s.pick(WORK_TASKS)}?",
        lambda: f"what do I usually eat at {s.pick(RESTAURANTS)}?",
        lambda: f"is anyone in my family {s.pick(DIETARY)}?",
        lambda: f"when is my flight to {s.pick(CITIES)}?",
        lambda: f"which hotel did I book in {s.pick(CITIES)}?",
        lambda: "how much rent do we pay?",
        lambda: "when does my passport run out?",
        lambda: f"what pet does {s.pick(FIRST_NAMES)} have",
        lambda: f"what time is the {s.pick(HOBBIES)} club?",
        lambda: "tooth doctor appointment",
        lambda: "what meds am I on",
        lambda: "anniversary date",
        lambda: f"budget of {s.pick(PROJECTS)}",
        lambda: f"restaurants in {s.pick(CITIES)} I liked",
        lambda: f"remind me what {s.person()} does for a living",
        lambda: "how well have I been sleeping lately?",
    )
    return s.rng.choice(templates)()


def notes(count: int, seed: int = DEFAULT_SEED) -> list[Note]:
    """The first ``count`` notes of the corpus for ``seed`` (1-3 sentences each)."""
    return [note for note, _ in zip(note_stream(seed), range(count), strict=False)]


def note_stream(seed: int) -> Iterator[Note]:
    rng = random.Random(seed)
    slots = _Slots(rng)
    while True:
        sentences = rng.choice(TOPICS)(slots)
        text = " ".join(rng.sample(sentences, rng.randint(1, 3)))
        said_at = EPOCH - rng.uniform(0, SPAN_DAYS) * SECONDS_PER_DAY
        if rng.random() < CHAT_SHARE:
            yield Note(text, "user", said_at)
            reply = f"{rng.choice(ASSISTANT_OPENERS)}. {rng.choice(ASSISTANT_FOLLOW_UPS)}"
            yield Note(reply.format(day=slots.pick(WEEKDAYS)), "assistant", said_at + 1)
        else:
            yield Note(text, "note", said_at)


def queries(count: int, seed: int = DEFAULT_SEED) -> list[str]:
    """``count`` realistic questions about the corpus (a separate stream from the notes)."""
    slots = _Slots(random.Random(seed + 1))
    return [_question(slots) for _ in range(count)]
