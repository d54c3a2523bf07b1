"""The labelled conversations of ``bench.sleep``, and a 3B model's recorded answers to them.

Every conversation, name, place and value here is this file's own; nothing
comes from a benchmark or a dataset. Each conversation is said on Wednesday
21 October 2026 from 10:00 in Asia/Kolkata, one turn a minute, one episode a
turn, in a space of its own. Its labels are what a careful reader would
record: the states (entity, attribute, value, condition, still true or
replaced) and the events (date, what happened). A date label is the day
("2026-10-17"), the week ("week of 2026-10-12"), the month ("2026-09") or the
year ("2025") the phrase names ("two weeks ago" names a day: 14 days back);
"" is an event with no date.

Turns are written one a line: ``u:`` the user, ``a:`` the assistant, ``n:`` a
note; ``u?:`` a user turn no fact should come from (a question, a request, a
guess, a hypothetical, reported speech): a stored fact citing it is junk.

``llm`` is what a 3B model answered to sleep's prompt for the conversation,
written once, errors included (each marked in a comment): a wrong ``about``
(the user, a place), paraphrased values, missing or wrong citations, facts
from questions and hypotheticals, dates it computed itself, and now and then
no JSON at all (``broken``: cut off, a Python literal, prose), once or every
time. Citations are written as the words of the line (``"@moved to Pune"``);
``bench/sleep_llm.py`` numbers them against each prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

USER = "user"


@dataclass(frozen=True)
class Turn:
    role: str  # user, assistant or note
    text: str
    junk: bool = False  # no fact should come from it


@dataclass(frozen=True)
class Fact:
    """A labelled state."""

    entity: str
    attribute: str
    value: str
    condition: str = ""
    active: bool = True


@dataclass(frozen=True)
class Happening:
    """A labelled event."""

    date: str
    what: str


@dataclass(frozen=True)
class Answer:
    """One answer of the recorded model (``broken``: '', 'cut', 'python' or 'prose')."""

    states: tuple[dict[str, Any], ...] = ()
    events: tuple[dict[str, Any], ...] = ()
    user_name: str = ""
    broken: str = ""


@dataclass(frozen=True)
class Case:
    name: str
    topic: str
    turns: tuple[Turn, ...]
    states: tuple[Fact, ...] = ()
    events: tuple[Happening, ...] = ()
    answers: tuple[Answer, ...] = field(default_factory=tuple)


_ROLES = {"u": "user", "a": "assistant", "n": "note"}


def talk(text: str) -> tuple[Turn, ...]:
    turns = []
    for raw in text.strip().splitlines():
        head, _, said = raw.strip().partition(":")
        junk = head.endswith("?")
        turns.append(Turn(_ROLES[head.rstrip("?")], said.strip(), junk))
    return tuple(turns)


def S(attribute: str, value: str, who: str = USER, when: str = "", old: bool = False) -> Fact:
    return Fact(who, attribute, value, when, not old)


def E(date: str, what: str) -> Happening:
    return Happening(date, what)


def st(
    line: str | int | None,
    attribute: str,
    value: str,
    about: str = USER,
    condition: str = "",
    *,
    prohibited: bool = False,
    since: str = "",
    ended: bool = False,
) -> dict[str, Any]:
    item: dict[str, Any] = {"about": about, "attribute": attribute, "value": value}
    if line is not None:
        item["line"] = line
    if condition:
        item["condition"] = condition
    if prohibited:
        item["prohibited"] = True
    if since:
        item["since"] = since
    if ended:
        item["ended"] = True
    return item


def ev(
    line: str | int | None, what: str, when: str = "", who: Sequence[str] = (USER,)
) -> dict[str, Any]:
    item: dict[str, Any] = {"what": what, "when": when, "who": list(who)}
    if line is not None:
        item["line"] = line
    return item


def A(*items: dict[str, Any], name: str = "", broken: str = "") -> Answer:
    states = tuple(i for i in items if "what" not in i)
    events = tuple(i for i in items if "what" in i)
    return Answer(states, events, name, broken)


def case(
    name: str,
    topic: str,
    turns: str,
    states: Sequence[Fact] = (),
    events: Sequence[Happening] = (),
    llm: Sequence[Answer] = (),
) -> Case:
    return Case(name, topic, talk(turns), tuple(states), tuple(events), tuple(llm) or (A(),))


def once(answer: Answer, broken: str) -> tuple[Answer, Answer]:
    """The first answer broken, the retry whole."""
    return (Answer(answer.states, answer.events, answer.user_name, broken), answer)


def always(answer: Answer, broken: str) -> tuple[Answer]:
    return (Answer(answer.states, answer.events, answer.user_name, broken),)


CASES: tuple[Case, ...] = (
    # --- identity ---------------------------------------------------------------
    case(
        "id-sahil-intro",
        "identity",
        """
        u: Hi! I'm Sahil, by the way.
        a: Nice to meet you, Sahil. How can I help today?
        u: I need help planning a weekend trip.
        a: Happy to help. Any region in mind?
        u?: What's the best time to visit Kerala?
        a: October to March is the most pleasant.
        u: Great, thanks a lot.
        """,
        [S("name", "Sahil")],
        llm=[
            A(
                st("@best time to visit", "interest", "visit Kerala"),  # from a question
                name="Sahil",
            )
        ],
    ),
    case(
        "id-meera-born",
        "identity",
        """
        u: My name is Meera and I'm 34.
        a: Hi Meera, good to meet you.
        u: I was born in Jaipur but grew up in Delhi.
        a: Two very different cities!
        u: These days I live in Hyderabad.
        a: How long have you been there?
        u: About three years now.
        """,
        [
            S("name", "Meera"),
            S("age", "34"),
            S("birthplace", "Jaipur"),
            S("hometown", "Delhi"),
            S("home_city", "Hyderabad"),
        ],
        llm=[
            A(
                st("@born in Jaipur", "birthplace", "Jaipur"),
                st("@grew up in Delhi", "grew_up_in", "Delhi"),
                st("@live in Hyderabad", "city", "Hyderabad"),
                st("@I'm 34", "age", "34 years old"),  # paraphrased
                st("@three years", "duration", "three years in Hyderabad"),  # a name unsaid
                name="Meera",
            )
        ],
    ),
    case(
        "id-tovah-nurse",
        "identity",
        """
        u: Call me Tovah.
        a: Hello Tovah! What brings you here?
        u: I'm a nurse and I mostly work night shifts.
        a: That sounds demanding.
        u: It is, but I love the team.
        """,
        [S("name", "Tovah"), S("job_title", "nurse"), S("work_schedule", "night shifts")],
        llm=[
            A(
                st("@I'm a nurse", "occupation", "nurse"),
                st("@night shifts", "shift", "night shifts"),
                name="Tovah",
            )
        ],
    ),
    case(
        "id-languages",
        "identity",
        """
        u: I speak Tamil and English at home.
        a: Nice, a bilingual household.
        u: I'm also learning German for work.
        a: Viel Glück! How is it going?
        u: Slowly, the grammar is tough.
        """,
        [S("language", "Tamil"), S("language", "English"), S("learning", "German")],
        llm=[
            A(
                st("@speak Tamil", "language", "Tamil and English"),
                st("@learning German", "learning", "German"),
                st("@grammar is tough", "opinion", "German grammar is tough"),  # unsaid name
            )
        ],
    ),
    case(
        "id-noor-dubai",
        "identity",
        """
        u: I'm Noor, a graphic designer from Lahore.
        a: Welcome, Noor!
        u: I moved to Dubai in 2019 for work.
        a: How do you like Dubai?
        u: I like it, though summers are brutal.
        """,
        [
            S("name", "Noor"),
            S("job_title", "graphic designer"),
            S("hometown", "Lahore"),
            S("home_city", "Dubai"),
        ],
        [E("2019", "moved to Dubai")],
        llm=[
            A(
                st("@graphic designer", "job_title", "graphic designer"),
                st("@from Lahore", "home_city", "Lahore"),  # origin read as home
                st("@moved to Dubai", "home_city", "Dubai", since="in 2019"),
                ev("@moved to Dubai", "moved to Dubai", "2019"),
                name="Noor",
            )
        ],
    ),
    # --- moves -------------------------------------------------------------------
    case(
        "move-pune-bangalore",
        "moves",
        """
        u: I'm Sahil and I live in Pune.
        a: Hi Sahil! Pune is lovely.
        u: Well, I moved to Bangalore last week.
        a: Oh nice, a big change! How is it?
        u: Traffic is bad but the weather is great.
        a: Bangalore weather is famous.
        """,
        [S("name", "Sahil"), S("home_city", "Pune", old=True), S("home_city", "Bangalore")],
        [E("week of 2026-10-12", "moved to Bangalore")],
        llm=[
            A(
                st("@live in Pune", "home_city", "Pune"),
                st("@moved to Bangalore", "home_city", "Bangalore", since="last week"),
                ev("@moved to Bangalore", "moved to Bangalore", "last week"),
                st("@weather is great", "weather", "great"),  # small talk as a fact
                name="Sahil",
            )
        ],
    ),
    case(
        "move-lisbon-porto",
        "moves",
        """
        u: I relocated from Lisbon to Porto in March.
        a: Porto is beautiful. What made you move?
        u: My partner got a job at the university there.
        a: That's great news for both of you.
        u: We rent a flat near the river.
        """,
        [
            S("home_city", "Lisbon", old=True),
            S("home_city", "Porto"),
            S("employer", "university", who="user's partner"),
            S("housing", "rented flat near the river"),
        ],
        [E("2026-03", "relocated from Lisbon to Porto")],
        llm=[
            A(
                st("@relocated from Lisbon", "home_city", "Porto", since="in March"),
                st("@relocated from Lisbon", "home_city", "Lisbon", ended=True),
                ev("@relocated from Lisbon", "relocated from Lisbon to Porto", "in March"),
                st("@partner got a job", "employer", "university"),  # about the user
                st("@rent a flat", "housing", "flat near the river"),
            )
        ],
    ),
    case(
        "move-hypothetical",
        "hypotheticals",
        """
        u: I live in Leipzig right now.
        a: How do you like it?
        u?: If I move to Berlin next year, would my rent double?
        a: Rents in Berlin are higher, yes.
        u?: My friend thinks I should move to Munich instead.
        a: Munich is even pricier.
        u: I'll probably stay put for now.
        """,
        [S("home_city", "Leipzig")],
        llm=[
            A(
                st("@live in Leipzig", "home_city", "Leipzig"),
                st("@If I move to Berlin", "home_city", "Berlin", since="next year"),  # if
                st("@move to Munich", "plan", "move to Munich"),  # someone else's idea
            )
        ],
    ),
    case(
        "move-mysore-kochi",
        "moves",
        """
        u: I grew up in Mysore.
        a: Mysore is a lovely city.
        u: After college I lived in Chennai for five years.
        a: Long time! Where are you now?
        u: I moved to Kochi last month.
        a: How is Kochi treating you?
        u: The food is amazing.
        """,
        [
            S("hometown", "Mysore"),
            S("home_city", "Chennai", old=True),
            S("home_city", "Kochi"),
        ],
        [E("2026-09", "moved to Kochi")],
        llm=[
            A(
                st("@grew up in Mysore", "hometown", "Mysore"),
                st("@lived in Chennai", "home_city", "Chennai"),
                st("@moved to Kochi", "home_city", "Kochi", since="last month"),
                ev("@moved to Kochi", "moved to Kochi", "last month"),
                st("@food is amazing", "likes", "the food in Kochi"),  # unsaid name
            )
        ],
    ),
    case(
        "move-ghent-plan",
        "moves",
        """
        u: We're moving to Ghent next month.
        a: Exciting! Have you found a place?
        u: Yes, a small house near the station.
        a: Nice. Where are you living now?
        u: In Antwerp, near the zoo.
        """,
        [S("home_city", "Antwerp")],
        [E("2026-11", "moving to Ghent")],
        llm=[
            A(
                st("@moving to Ghent", "home_city", "Ghent", since="next month"),  # not yet
                st("@In Antwerp", "home_city", "Antwerp"),
                ev("@moving to Ghent", "moving to Ghent", "next month"),
            )
        ],
    ),
    case(
        "move-tartu-tallinn",
        "moves",
        """
        u: I used to live in Tartu.
        a: Estonia! Where are you now?
        u: Now I'm based in Tallinn.
        a: The old town there is gorgeous.
        u?: Do you know any good cafes in Tallinn?
        a: Try one near the town hall square.
        """,
        [S("home_city", "Tartu", old=True), S("home_city", "Tallinn")],
        llm=[
            A(
                st("@used to live in Tartu", "home_city", "Tartu", ended=True),
                st("@based in Tallinn", "home_city", "Tallinn"),
                st("@good cafes", "interest", "cafes in Tallinn"),  # from a question
            )
        ],
    ),
    # --- jobs --------------------------------------------------------------------
    case(
        "job-flipkart",
        "jobs",
        """
        u: I work at Flipkart as a data engineer.
        a: Cool! What does your team do?
        u: We build the pricing pipelines.
        a: Sounds like a lot of Spark.
        u: Mostly Spark and Airflow, yes.
        """,
        [
            S("employer", "Flipkart"),
            S("job_title", "data engineer"),
            S("works_on", "pricing pipelines"),
            S("tools", "Spark"),
            S("tools", "Airflow"),
        ],
        llm=once(
            A(
                st("@work at Flipkart", "employer", "Flipkart"),
                st("@work at Flipkart", "job_title", "data engineer"),
                st("@pricing pipelines", "team", "pricing pipelines"),
                st("@Mostly Spark", "tools", "Spark and Airflow"),
            ),
            "cut",
        ),
    ),
    case(
        "job-zerodha-razorpay",
        "jobs",
        """
        u: I'm a backend engineer at Zerodha.
        a: Nice, fintech!
        u: Actually I just switched jobs.
        a: Oh! Where to?
        u: I joined Razorpay two weeks ago as a platform engineer.
        a: Congratulations on the new role!
        """,
        [
            S("employer", "Zerodha", old=True),
            S("job_title", "backend engineer", old=True),
            S("employer", "Razorpay"),
            S("job_title", "platform engineer"),
        ],
        [E("2026-10-07", "joined Razorpay as a platform engineer")],
        llm=[
            A(
                st("@backend engineer at Zerodha", "employer", "Zerodha"),
                st("@backend engineer at Zerodha", "job_title", "backend engineer"),
                st("@joined Razorpay", "employer", "Razorpay", since="two weeks ago"),
                st("@joined Razorpay", "job_title", "platform engineer"),
                ev("@joined Razorpay", "joined Razorpay as a platform engineer", "two weeks ago"),
            )
        ],
    ),
    case(
        "job-photographer",
        "jobs",
        """
        u: I'm a freelance photographer.
        a: What do you usually shoot?
        u: Mostly weddings, some product shoots.
        a: Weddings must keep you busy in winter.
        u?: Do you think I should raise my rates?
        a: If you're booked out months ahead, probably.
        """,
        [
            S("job_title", "freelance photographer"),
            S("specialty", "weddings"),
            S("specialty", "product shoots"),
        ],
        llm=[
            A(
                st("@freelance photographer", "occupation", "freelance photographer"),
                st("@Mostly weddings", "specialty", "weddings"),
                st("@raise my rates", "plan", "raise my rates"),  # from a question
            )
        ],
    ),
    case(
        "job-teacher",
        "jobs",
        """
        u: I teach maths at a government school in Nagpur.
        a: That's a meaningful job.
        u: Grade nine and ten, mostly.
        a: Board exam years, tough ones.
        u: Yes, and the classes are huge.
        """,
        [
            S("job_title", "maths teacher"),
            S("employer", "government school"),
            S("work_city", "Nagpur"),
            S("teaches", "grade nine and ten"),
        ],
        llm=[
            A(
                st("@I teach maths", "job_title", "maths teacher"),
                st("@I teach maths", "workplace", "government school in Nagpur"),
                st("@Grade nine", "grades", "nine and ten"),
            )
        ],
    ),
    case(
        "job-laid-off",
        "jobs",
        """
        u: I was laid off from Hexfield last month.
        a: I'm sorry to hear that.
        u: I'm looking for product manager roles now.
        a: Want help with your resume?
        u: Yes please, later this week.
        """,
        [S("employer", "Hexfield", old=True), S("job_search", "product manager roles")],
        [E("2026-09", "laid off from Hexfield")],
        llm=[
            A(
                st("@laid off from Hexfield", "employer", "Hexfield", ended=True),
                ev("@laid off from Hexfield", "laid off from Hexfield", "last month"),
                st("@looking for product manager", "job_title", "product manager"),  # wrong
            )
        ],
    ),
    case(
        "job-accountant-keyboards",
        "jobs",
        """
        u: By day I'm an accountant at Copperleaf Bank.
        a: And by night?
        u: By night I build mechanical keyboards.
        a: Fun hobby! Do you sell them?
        u: A few, on Etsy.
        """,
        [
            S("job_title", "accountant"),
            S("employer", "Copperleaf Bank"),
            S("hobby", "building mechanical keyboards"),
            S("sells_on", "Etsy"),
        ],
        llm=[
            A(
                st("@accountant at Copperleaf", "job_title", "accountant"),
                st("@accountant at Copperleaf", "employer", "Copperleaf Bank"),
                st("@build mechanical keyboards", "hobby", "building mechanical keyboards"),
                st("@on Etsy", "sells", "keyboards on Etsy"),
            )
        ],
    ),
    # --- diets -------------------------------------------------------------------
    case(
        "diet-vegetarian",
        "diets",
        """
        u: I'm vegetarian, so no meat please.
        a: Noted! Any other restrictions?
        u: I do eat eggs though.
        a: Great, that opens up a lot of recipes.
        u?: Can you suggest a quick dinner?
        a: How about a paneer bhurji?
        """,
        [S("diet", "vegetarian"), S("eats", "eggs")],
        llm=[
            A(
                st("@I'm vegetarian", "diet", "vegetarian"),
                st("@eat eggs", "diet", "eggs"),  # an exception read as a new diet
                st("@quick dinner", "wants", "a quick dinner"),  # from a request
            )
        ],
    ),
    case(
        "diet-vegan",
        "diets",
        """
        u: I've been vegan for six years.
        a: Impressive commitment!
        u: Before that I was pescatarian.
        a: Was the switch hard?
        u: Not really, I missed cheese for a while.
        """,
        [S("diet", "vegan"), S("diet", "pescatarian", old=True)],
        llm=[
            A(
                st("@been vegan", "diet", "vegan", since="six years"),
                st("@was pescatarian", "diet", "pescatarian", ended=True),
            )
        ],
    ),
    case(
        "diet-lactose",
        "diets",
        """
        u: I'm lactose intolerant.
        a: Good to know. Do you use plant milk?
        u: Oat milk, every day.
        a: Oat milk works well in coffee too.
        u: I'm also allergic to cashews.
        """,
        [S("intolerance", "lactose"), S("drinks", "oat milk"), S("allergy", "cashews")],
        llm=always(
            A(
                st("@lactose intolerant", "condition", "lactose intolerant"),
                st("@Oat milk", "milk", "oat milk"),
                st("@allergic to cashews", "allergy", "cashews"),
            ),
            "python",
        ),
    ),
    case(
        "diet-keto",
        "diets",
        """
        u: I tried keto for a month.
        a: How did it go?
        u: I quit, it made me tired all the time.
        a: That's common at the start.
        u: Now I just try to eat less sugar.
        """,
        [S("diet", "keto", old=True), S("diet_goal", "eat less sugar")],
        llm=[
            A(
                st("@tried keto", "diet", "keto"),
                st("@I quit", "diet", "keto", ended=True),
                st("@eat less sugar", "goal", "eat less sugar"),
            )
        ],
    ),
    case(
        "diet-husband-halal",
        "third persons",
        """
        u: My husband Karim only eats halal food.
        a: I'll keep that in mind for recipes.
        u: He also can't stand cilantro.
        a: Noted, no cilantro.
        u: I eat everything myself.
        """,
        [
            S("husband", "Karim"),
            S("diet", "halal", who="Karim"),
            S("dislikes", "cilantro", who="Karim"),
            S("diet", "eats everything"),
        ],
        llm=[
            A(
                st("@husband Karim", "diet", "halal food", about="Karim"),
                st("@can't stand cilantro", "dislikes", "cilantro"),  # about the user
                st("@I eat everything", "diet", "everything"),
            )
        ],
    ),
    # --- habits ------------------------------------------------------------------
    case(
        "habit-coffee-run",
        "habits",
        """
        u: Every morning I drink black coffee.
        a: Classic. Any sugar?
        u: No sugar, just a splash of oat milk sometimes.
        a: Simple and strong.
        u: I also run 5k every Sunday.
        """,
        [S("morning_drink", "black coffee"), S("exercise", "run 5k every Sunday")],
        llm=[
            A(
                st("@Every morning", "morning_drink", "black coffee"),
                st("@run 5k", "exercise", "running 5k on Sundays"),  # paraphrased
            )
        ],
    ),
    case(
        "habit-meditate",
        "habits",
        """
        u: I meditate for twenty minutes before bed.
        a: That's a great habit.
        u: I started it during the pandemic.
        a: Has it helped your sleep?
        u: A lot, I fall asleep much faster now.
        """,
        [S("habit", "meditate twenty minutes before bed"), S("sleep", "falls asleep faster")],
        llm=[
            A(
                st("@meditate for twenty", "habit", "meditation before bed"),
                st("@fall asleep", "sleep", "falls asleep faster"),
            )
        ],
    ),
    case(
        "habit-gym",
        "habits",
        """
        u: I go to the gym on Mondays, Wednesdays and Fridays.
        a: Solid routine!
        u: Usually at 6 am before work.
        a: Early bird.
        u?: Should I add a rest day?
        a: Two rest days a week is common.
        """,
        [S("gym", "Mondays, Wednesdays and Fridays"), S("gym_time", "6 am before work")],
        llm=[
            A(
                st("@go to the gym", "gym_days", "Mondays, Wednesdays and Fridays"),
                st("@6 am", "gym_time", "6 am"),
                st("@rest day", "plan", "add a rest day"),  # from a question
            )
        ],
    ),
    case(
        "habit-reading",
        "habits",
        """
        u: I read about a book a week, mostly sci-fi.
        a: Any favourite authors?
        u: Ursula Le Guin, without a doubt.
        a: The Dispossessed is a masterpiece.
        u: I reread it every few years.
        """,
        [
            S("reading", "a book a week"),
            S("genre", "sci-fi"),
            S("favourite_author", "Ursula Le Guin"),
        ],
        llm=once(
            A(
                st("@read about a book", "reading_habit", "one book a week"),
                st("@mostly sci-fi", "favorite_genre", "sci-fi"),
                st("@Ursula Le Guin", "favorite_author", "Ursula Le Guin"),
                st("@reread it", "rereads", "The Dispossessed"),  # a name from the assistant
            ),
            "cut",
        ),
    ),
    case(
        "habit-smoking",
        "habits",
        """
        u: I quit smoking in 2022.
        a: Congratulations, that's hard.
        u: I still chew nicotine gum sometimes.
        a: That's a common step.
        u: Trying to stop that too.
        """,
        [S("habit", "chews nicotine gum")],
        [E("2022", "quit smoking")],
        llm=[
            A(
                ev("@quit smoking", "quit smoking", "in 2022"),
                st("@nicotine gum", "habit", "chewing nicotine gum"),
                st("@quit smoking", "smoker", "no"),
            )
        ],
    ),
    # --- conditions (defeasible exceptions) --------------------------------------
    case(
        "cond-ginger-tea",
        "conditions",
        """
        u: I drink black coffee every morning.
        a: Nice ritual.
        u: When I have a sore throat, I drink ginger tea with honey instead.
        a: Ginger tea is soothing.
        u: Works every time.
        """,
        [
            S("morning_drink", "black coffee"),
            S("morning_drink", "ginger tea with honey", when="sore throat"),
        ],
        llm=[
            A(
                st("@black coffee", "morning_drink", "black coffee"),
                st("@sore throat", "drink", "ginger tea with honey", condition="sore throat"),
            )
        ],
    ),
    case(
        "cond-cycle-rain",
        "conditions",
        """
        u: I cycle to work most days.
        a: Great exercise!
        u: If it rains, I take the metro instead.
        a: Sensible.
        u: The metro is packed though.
        """,
        [S("commute", "cycle"), S("commute", "metro", when="rains")],
        llm=always(
            A(
                st("@cycle to work", "commute", "cycling"),
                st("@If it rains", "commute", "metro"),  # the condition missed
            ),
            "prose",
        ),
    ),
    case(
        "cond-caffeine",
        "conditions",
        """
        u: I don't drink caffeine after 4 pm.
        a: Good for sleep.
        u: Unless I have a deadline, then I make an espresso.
        a: Deadlines justify it!
        u: Sadly they happen a lot.
        """,
        [
            S("caffeine", "no caffeine after 4 pm"),
            S("caffeine", "espresso", when="deadline"),
        ],
        llm=[
            A(
                st("@don't drink caffeine", "caffeine", "no caffeine after 4 pm"),
                st("@Unless I have a deadline", "drink", "espresso", condition="deadline"),
            )
        ],
    ),
    case(
        "cond-migraine",
        "conditions",
        """
        u: I get migraines sometimes.
        a: Sorry to hear. Any triggers?
        u: Red wine is a trigger, so I avoid it.
        a: Noted.
        u: When a migraine starts, I take sumatriptan and lie down in the dark.
        """,
        [
            S("health", "migraines"),
            S("migraine_trigger", "red wine"),
            S("avoids", "red wine"),
            S("medication", "sumatriptan", when="migraine"),
        ],
        llm=[
            A(
                st("@get migraines", "condition", "migraines"),
                st("@Red wine is a trigger", "trigger", "red wine"),
                st("@When a migraine", "medication", "sumatriptan", condition="migraine starts"),
            )
        ],
    ),
    case(
        "cond-wfh-fridays",
        "conditions",
        """
        u: I work from home on Fridays.
        a: Nice flexibility.
        u: Otherwise I'm at the office in Whitefield.
        a: Whitefield traffic can be rough.
        u: It is, that's why Fridays are precious.
        """,
        [
            S("work_location", "home", when="Fridays"),
            S("work_location", "office in Whitefield"),
        ],
        llm=[
            A(
                st("@work from home", "work_location", "home on Fridays"),  # no condition
                st("@office in Whitefield", "work_location", "office in Whitefield"),
            )
        ],
    ),
    # --- corrections -------------------------------------------------------------
    case(
        "corr-birthday",
        "corrections",
        """
        u: My birthday is on 14 March.
        a: Noted, 14 March!
        u: Sorry, I mistyped. It's 14 May.
        a: Updated to 14 May.
        u: Thanks.
        """,
        [S("birthday", "14 May"), S("birthday", "14 March", old=True)],
        llm=[
            A(
                st("@birthday is on 14 March", "birthday", "14 March"),
                st("@It's 14 May", "birthday", "14 May"),
            )
        ],
    ),
    case(
        "corr-city",
        "corrections",
        """
        u: I live in Indore.
        a: Indore, the cleanest city!
        u: Oops, no, I meant Bhopal. I live in Bhopal.
        a: Got it, Bhopal.
        u: Indore is where my parents live.
        """,
        [
            S("home_city", "Indore", old=True),
            S("home_city", "Bhopal"),
            S("home_city", "Indore", who="user's parents"),
        ],
        llm=[
            A(
                st("@I live in Indore", "home_city", "Indore"),
                st("@I live in Bhopal", "home_city", "Bhopal"),
                st("@my parents live", "home_city", "Indore"),  # the parents', as the user's
            )
        ],
    ),
    case(
        "corr-name-spelling",
        "corrections",
        """
        u: I'm Jovana, by the way.
        a: Nice to meet you, Jovanna.
        u: It's Jovana, with one n.
        a: Sorry, Jovana!
        u: No worries, it happens a lot.
        """,
        [S("name", "Jovana")],
        llm=[A(name="Jovanna")],  # the assistant's misspelling
    ),
    case(
        "corr-promotion",
        "corrections",
        """
        u: I'm a senior designer at Lumora.
        a: Senior designer, noted.
        u: Actually it's lead designer now, I got promoted last month.
        a: Congratulations on the promotion!
        u: Thank you!
        """,
        [
            S("job_title", "senior designer", old=True),
            S("job_title", "lead designer"),
            S("employer", "Lumora"),
        ],
        [E("2026-09", "got promoted to lead designer")],
        llm=once(
            A(
                st("@senior designer at Lumora", "job_title", "senior designer"),
                st("@senior designer at Lumora", "employer", "Lumora"),
                st("@lead designer", "job_title", "lead designer", since="last month"),
                ev("@got promoted", "got promoted", "last month"),
            ),
            "prose",
        ),
    ),
    case(
        "corr-kids",
        "corrections",
        """
        u: I have two kids.
        a: How old are they?
        u: Wait, three kids, I forgot the baby! Sorry.
        a: Three kids, noted.
        u: The baby is four months old.
        """,
        [S("children", "three"), S("children", "two", old=True), S("baby_age", "four months")],
        llm=[
            A(
                st("@I have two kids", "kids", "2"),  # a digit for a word
                st("@three kids", "kids", "three"),
                st("@four months old", "baby_age", "four months"),
            )
        ],
    ),
    # --- rules -------------------------------------------------------------------
    case(
        "rule-powershell",
        "rules",
        """
        u: Never chain PowerShell commands with semicolons.
        a: Understood, I'll use separate lines.
        u: And always use full parameter names in scripts.
        a: Will do.
        u?: How do I list running services?
        a: Get-Service | Where-Object Status -eq Running
        """,
        [
            S("rule", "chain PowerShell commands with semicolons"),
            S("preference", "use full parameter names in scripts"),
        ],
        llm=[
            A(
                st(
                    "@Never chain",
                    "powershell",
                    "chain PowerShell commands with semicolons",
                    prohibited=True,
                ),
                st("@full parameter names", "scripts", "always use full parameter names"),
                st("@list running services", "question", "how to list running services"),
            )
        ],
    ),
    case(
        "rule-no-emoji",
        "rules",
        """
        u: Please don't use emojis in your replies.
        a: Got it, no emojis.
        u: Also keep answers short unless I ask for detail.
        a: Okay.
        u: Thanks, that's all.
        """,
        [S("rule", "use emojis in replies"), S("answer_style", "short answers")],
        llm=[
            A(
                st("@don't use emojis", "emojis", "use emojis in replies", prohibited=True),
                st("@keep answers short", "answer_style", "short"),
            )
        ],
    ),
    case(
        "rule-git",
        "rules",
        """
        u: Never force-push to main.
        a: Noted.
        u: Use rebase instead of merge for feature branches.
        a: Rebase it is.
        u: And never commit secrets, obviously.
        """,
        [
            S("rule", "force-push to main"),
            S("rule", "commit secrets"),
            S("preference", "rebase instead of merge for feature branches"),
        ],
        llm=once(
            A(
                st("@force-push", "git", "force-push to main", prohibited=True),
                st("@Use rebase", "git_workflow", "rebase instead of merge"),
                st("@commit secrets", "git", "commit secrets", prohibited=True),
            ),
            "python",
        ),
    ),
    case(
        "rule-units",
        "rules",
        """
        u: Always give me temperatures in Celsius.
        a: Celsius it is.
        u: And distances in kilometres, never miles.
        a: Noted.
        u?: What's 70 Fahrenheit in Celsius, by the way?
        a: About 21 degrees Celsius.
        """,
        [
            S("temperature_unit", "Celsius"),
            S("distance_unit", "kilometres"),
            S("rule", "miles"),
        ],
        llm=[
            A(
                st("@temperatures in Celsius", "temperature_unit", "Celsius"),
                st("@distances in kilometres", "distance_unit", "kilometres"),
                st("@70 Fahrenheit", "temperature", "70 Fahrenheit"),  # from a question
            )
        ],
    ),
    case(
        "rule-tabs-sql",
        "rules",
        """
        u: I prefer tabs over spaces.
        a: Tabs, got it.
        u: And please never auto-format my SQL.
        a: Understood.
        u: Thanks.
        """,
        [S("prefers", "tabs over spaces"), S("rule", "auto-format my SQL")],
        llm=[
            A(
                st("@prefer tabs", "indentation", "tabs"),
                st("@never auto-format", "sql_formatting", "auto-format SQL", prohibited=True),
            )
        ],
    ),
    # --- events with relative dates ----------------------------------------------
    case(
        "ev-swiss-knife",
        "events",
        """
        u: My manager gave me a Swiss knife yesterday.
        a: What a thoughtful gift!
        u: It was for finishing the migration project.
        a: Well deserved.
        u: I'll keep it on my desk.
        """,
        events=[E("2026-10-20", "manager gave me a Swiss knife")],
        llm=[
            A(
                ev(  # a date it worked out itself
                    "@Swiss knife",
                    "manager gave user a Swiss knife",
                    "2026-10-20",
                    ["manager", "user"],
                ),
            )
        ],
    ),
    case(
        "ev-trek",
        "events",
        """
        u: I went trekking at Rajmachi last Saturday.
        a: Lovely! How was the weather?
        u: Misty and cold, perfect for it.
        a: Sounds beautiful.
        u: Next I want to try Harishchandragad.
        """,
        [S("plan", "trek Harishchandragad")],
        [E("2026-10-17", "went trekking at Rajmachi")],
        llm=[
            A(
                ev("@trekking at Rajmachi", "went trekking at Rajmachi", "last Saturday"),
                st("@Harishchandragad", "next_trek", "Harishchandragad"),
            )
        ],
    ),
    case(
        "ev-dentist",
        "events",
        """
        u: I have a dentist appointment on Friday.
        a: Good luck! Is it a checkup?
        u: A root canal, unfortunately.
        a: Ouch. Hope it goes smoothly.
        u: Me too.
        """,
        events=[E("2026-10-23", "dentist appointment for a root canal")],
        llm=[
            A(
                ev("@dentist appointment", "dentist appointment", "on Friday"),
                ev("@root canal", "root canal"),
            )
        ],
    ),
    case(
        "ev-cousin-wedding",
        "events",
        """
        u: My cousin Priya got married last month in Udaipur.
        a: Congratulations to her!
        u: I gave a speech at the reception.
        a: How did it go?
        u: People laughed at the right places, so well.
        """,
        [S("cousin", "Priya"), S("marital_status", "married", who="Priya")],
        [
            E("2026-09", "Priya got married in Udaipur"),
            E("2026-09", "gave a speech at the reception"),
        ],
        llm=always(
            A(
                ev("@got married", "cousin Priya got married in Udaipur", "last month", ["Priya"]),
                ev("@gave a speech", "gave a speech at the reception"),
                st("@got married", "marital_status", "married", about="Priya"),
                st("@cousin Priya", "cousin", "Priya"),
            ),
            "cut",
        ),
    ),
    case(
        "ev-bike-fall",
        "events",
        """
        u: Two weeks ago I fell off my bike.
        a: Oh no! Are you okay?
        u: I broke my left wrist.
        a: Ouch. Is it in a cast?
        u: Yes, for another month.
        """,
        [S("injury", "broken left wrist")],
        [E("2026-10-07", "fell off my bike")],
        llm=[
            A(
                ev("@fell off my bike", "fell off bike", "two weeks ago"),
                st("@broke my left wrist", "injury", "broken left wrist"),
            )
        ],
    ),
    case(
        "ev-concert",
        "events",
        """
        u: I'm going to a Coldplay concert tomorrow.
        a: Fun! Where is it?
        u: At the DY Patil stadium.
        a: Enjoy the show!
        u?: Do you know if they allow water bottles?
        a: Usually only sealed ones, check the rules.
        """,
        events=[E("2026-10-22", "Coldplay concert at the DY Patil stadium")],
        llm=[
            A(
                ev("@Coldplay concert", "going to a Coldplay concert", "tomorrow"),
                ev("@DY Patil", "concert at DY Patil stadium"),
                st("@water bottles", "question", "water bottles allowed"),  # from a question
            )
        ],
    ),
    # --- third persons with pronouns ---------------------------------------------
    case(
        "third-asha",
        "third persons",
        """
        u: My sister Asha moved to Mumbai last year.
        a: How is she finding it?
        u: She loves it. She is allergic to peanuts though, and street food is tricky.
        a: That must be hard in Mumbai.
        u: She carries an EpiPen everywhere.
        """,
        [
            S("sister", "Asha"),
            S("home_city", "Mumbai", who="Asha"),
            S("allergy", "peanuts", who="Asha"),
            S("carries", "EpiPen", who="Asha"),
        ],
        [E("2025", "Asha moved to Mumbai")],
        llm=[
            A(
                st("@sister Asha moved", "home_city", "Mumbai", about="Asha"),
                st("@allergic to peanuts", "allergy", "peanuts", about="Mumbai"),  # a place
                st("@allergic to peanuts", "allergy", "peanuts"),  # about the user
                st("@EpiPen", "carries", "EpiPen", about="Asha"),
                ev("@sister Asha moved", "Asha moved to Mumbai", "last year", ["Asha"]),
            )
        ],
    ),
    case(
        "third-colleague-ravi",
        "third persons",
        """
        u: My colleague Ravi just became a father.
        a: Congratulations to him!
        u: He's taking three months of paternity leave.
        a: That's generous of the company.
        u: I'm covering his projects while he's away.
        """,
        [
            S("colleague", "Ravi"),
            S("leave", "three months of paternity leave", who="Ravi"),
            S("task", "covering Ravi's projects"),
        ],
        llm=[
            A(
                st("@colleague Ravi", "colleague", "Ravi"),
                st("@paternity leave", "leave", "three months of paternity leave", about="Ravi"),
                st("@covering his projects", "responsibility", "covering Ravi's projects"),
            )
        ],
    ),
    case(
        "third-mom-diabetes",
        "third persons",
        """
        u: My mom has type 2 diabetes.
        a: I'm sorry. Is it well managed?
        u: Yes, she walks every evening and avoids sugar.
        a: That's great discipline.
        u: My dad cooks for her, low-carb stuff mostly.
        """,
        [
            S("condition", "type 2 diabetes", who="user's mom"),
            S("exercise", "walks every evening", who="user's mom"),
            S("avoids", "sugar", who="user's mom"),
            S("cooks", "low-carb food", who="user's dad"),
        ],
        llm=[
            A(
                st("@My mom has", "condition", "type 2 diabetes", about="mom"),
                st("@walks every evening", "exercise", "walks every evening", about="mom"),
                st("@avoids sugar", "diet", "avoids sugar"),  # about the user
                st("@My dad cooks", "cooks", "low-carb", about="dad"),
            )
        ],
    ),
    case(
        "third-friend-bergen",
        "third persons",
        """
        u: My friend Dagny lives in Bergen, where it rains constantly.
        a: Bergen is famously wet.
        u: She works as a marine biologist there.
        a: What a fitting place for that.
        u: I visited her in June.
        """,
        [
            S("friend", "Dagny"),
            S("home_city", "Bergen", who="Dagny"),
            S("job_title", "marine biologist", who="Dagny"),
        ],
        [E("2026-06", "visited Dagny")],
        llm=[
            A(
                st("@Dagny lives in Bergen", "home_city", "Bergen", about="Dagny"),
                st("@marine biologist", "job_title", "marine biologist", about="Bergen"),
                ev("@visited her", "visited Dagny", "in June", ["Dagny"]),  # unsaid name
            )
        ],
    ),
    case(
        "third-boss-helen",
        "third persons",
        """
        u: My boss Helen hates long emails.
        a: Short and sweet, then.
        u: She wants a summary in the first line.
        a: Good practice.
        u?: Can you help me shorten this one later?
        """,
        [
            S("boss", "Helen"),
            S("dislikes", "long emails", who="Helen"),
            S("wants", "summary in the first line", who="Helen"),
        ],
        llm=[
            A(
                st("@boss Helen", "dislikes", "long emails", about="Helen"),
                st("@summary in the first line", "email_preference", "summary in the first line"),
            )
        ],
    ),
    case(
        "third-neighbour-dog",
        "third persons",
        """
        u: Our neighbour Mr. Fernandes has a huge dog named Bruno.
        a: What breed?
        u?: A Great Dane, I think.
        a: They're gentle giants.
        u: He walks Bruno at 6 every morning.
        """,
        [
            S("neighbour", "Mr. Fernandes"),
            S("dog", "Bruno", who="Fernandes"),
            S("routine", "walks Bruno at 6 every morning", who="Fernandes"),
        ],
        llm=[
            A(
                st("@neighbour Mr. Fernandes", "dog", "Bruno", about="Mr. Fernandes"),
                st("@Great Dane", "breed", "Great Dane", about="Bruno"),  # a guess
                st("@walks Bruno", "routine", "walks Bruno at 6 every morning", "Fernandes"),
            )
        ],
    ),
    case(
        "third-brother-tariq",
        "third persons",
        """
        u: My brother Tariq and I both work in Pune.
        a: Do you work together?
        u: No, he's at Infosys and I'm at a startup called Zenbridge.
        a: Startup life must be intense.
        u: It is, but I like it.
        """,
        [
            S("brother", "Tariq"),
            S("work_city", "Pune"),
            S("work_city", "Pune", who="Tariq"),
            S("employer", "Infosys", who="Tariq"),
            S("employer", "Zenbridge"),
        ],
        llm=[
            A(
                st("@Tariq and I", "work_city", "Pune"),
                st("@he's at Infosys", "employer", "Infosys"),  # about the user
                st("@startup called Zenbridge", "employer", "Zenbridge"),
            )
        ],
    ),
    case(
        "third-daughter-anya",
        "third persons",
        """
        u: My daughter Anya started kindergarten this month.
        a: A big milestone!
        u: She cried on the first day but loves it now.
        a: That's very common.
        u: Her teacher is Ms. Kapoor.
        """,
        [
            S("daughter", "Anya"),
            S("school", "kindergarten", who="Anya"),
            S("teacher", "Ms. Kapoor", who="Anya"),
        ],
        [E("2026-10", "Anya started kindergarten")],
        llm=once(
            A(
                st("@daughter Anya", "daughter", "Anya"),
                ev("@started kindergarten", "Anya started kindergarten", "this month", ["Anya"]),
                st("@Her teacher", "teacher", "Ms. Kapoor", about="Anya"),
            ),
            "cut",
        ),
    ),
    case(
        "third-leela-arjun",
        "third persons",
        """
        u: My sister Leela and her husband Arjun visited last weekend.
        a: That's lovely. Where do they live?
        u: They live in Chennai.
        a: Nice. What do they do?
        u: Leela is a cardiologist and he teaches history.
        """,
        [
            S("sister", "Leela"),
            S("home_city", "Chennai", who="Leela"),
            S("home_city", "Chennai", who="Arjun"),
            S("job_title", "cardiologist", who="Leela"),
            S("job_title", "history teacher", who="Arjun"),
        ],
        [E("week of 2026-10-12", "Leela and Arjun visited")],
        llm=[
            A(
                st("@sister Leela", "sister", "Leela"),
                st("@They live in Chennai", "home_city", "Chennai", about="Leela"),
                st("@They live in Chennai", "home_city", "Chennai", about="Arjun"),
                st("@Leela is a cardiologist", "job_title", "cardiologist", about="Leela"),
                st("@he teaches history", "job_title", "history teacher", about="Leela"),  # she
                ev("@visited last weekend", "Leela and Arjun visited", "last weekend"),
            )
        ],
    ),
    # --- chatter -----------------------------------------------------------------
    case(
        "chat-weather",
        "chatter",
        """
        u: Hi! How are you today?
        a: I'm doing well, thanks for asking. How about you?
        u: Pretty good. Nice weather today.
        a: Sunny days are the best.
        u: Yeah. Okay, talk later!
        """,
        llm=[A(st("@Pretty good", "mood", "pretty good"))],  # small talk as a fact
    ),
    case(
        "chat-resume",
        "chatter",
        """
        u: Thanks for the help yesterday with the resume!
        a: You're welcome! Did you send it out?
        u: Yes, to three companies.
        a: Fingers crossed!
        u: Thanks, I'll keep you posted.
        """,
        events=[E("", "sent the resume to three companies")],
        llm=[A(ev("@to three companies", "sent resume to three companies"))],
    ),
    case(
        "chat-joke",
        "chatter",
        """
        u?: Tell me a joke about programmers.
        a: Why do programmers prefer dark mode? Because light attracts bugs.
        u: Haha, that's terrible.
        a: I have more where that came from.
        u: Please no.
        """,
        llm=[
            A(
                st("@joke about programmers", "interest", "programmer jokes"),  # a request
                st("@that's terrible", "opinion", "jokes are terrible"),
            )
        ],
    ),
    case(
        "chat-hungry",
        "chatter",
        """
        u: I'm so hungry right now.
        a: Time for a snack?
        u: Yeah, thinking of ordering biryani.
        a: Biryani is always a good idea.
        u: Done, ordered. Thanks for the push!
        """,
        llm=[
            A(
                st("@so hungry", "state", "hungry"),  # of the moment
                ev("@ordered", "ordered biryani"),
            )
        ],
    ),
    case(
        "chat-movie-night",
        "chatter",
        """
        u: Just watched Inception again.
        a: A classic! What did you think this time?
        u: Still confusing, in a good way.
        a: The ending is famously ambiguous.
        u?: Do you think the top falls?
        a: Nolan left it open on purpose.
        u: Ha, typical.
        a: Did you watch it alone?
        u: With my roommate Kiri.
        a: Did Kiri like it?
        u: She fell asleep halfway.
        a: That happens with long films.
        u: I've seen every Nolan film, so I'm used to it.
        a: Which one is your favourite?
        u: The Prestige, by far.
        a: Great choice, the twists are superb.
        u: We're watching Interstellar next weekend.
        a: Bring tissues!
        u: Will do. Anyway, good night.
        a: Good night!
        """,
        [
            S("roommate", "Kiri"),
            S("watched", "every Nolan film"),
            S("favourite_film", "The Prestige"),
        ],
        [E("week of 2026-10-26", "watching Interstellar")],
        llm=[
            A(
                st("@roommate Kiri", "roommate", "Kiri"),
                st("@every Nolan film", "watched", "every Nolan film"),
                st("@The Prestige", "favorite_movie", "The Prestige"),
                st("@fell asleep", "fell_asleep", "halfway", about="Kiri"),
                st("@top falls", "opinion", "the top falls"),  # from a question
                ev("@Interstellar", "watching Interstellar", "next weekend"),
            )
        ],
    ),
    # --- questions, guesses and reported speech ----------------------------------
    case(
        "q-python-venv",
        "questions",
        """
        u?: How do I set up a Python venv?
        a: Run python -m venv .venv, then activate it.
        u?: And on Windows?
        a: Run the activate script in .venv\\Scripts.
        u: Got it, thanks. I'm on Windows 11 at work.
        """,
        [S("work_os", "Windows 11")],
        llm=[
            A(
                st("@set up a Python venv", "question", "how to set up a Python venv"),
                st("@Windows 11", "os", "Windows 11"),
            )
        ],
    ),
    case(
        "q-guess-bug",
        "questions",
        """
        u?: I guess the bug is in the parser.
        a: Could be. What's the error?
        u: A KeyError on user_id when the payload is empty.
        a: Then check the empty-payload branch.
        u?: Maybe the schema changed upstream?
        a: Possible, worth checking the changelog.
        """,
        llm=[
            A(
                st("@the bug is in the parser", "guess", "the bug is in the parser"),
                st("@KeyError", "error", "KeyError on user_id"),  # of the moment
            )
        ],
    ),
    case(
        "q-laptop",
        "questions",
        """
        u?: Can you recommend a good laptop for programming?
        a: A ThinkPad T14 or a MacBook Air are solid.
        u?: Which is better for Linux?
        a: The ThinkPad, generally.
        u: Okay. My budget is around 80k rupees.
        """,
        [S("laptop_budget", "80k rupees")],
        llm=[
            A(
                st("@good laptop", "wants", "a good laptop for programming"),  # a request
                st("@My budget", "budget", "80k rupees"),
            )
        ],
    ),
    case(
        "q-quit-travel",
        "hypotheticals",
        """
        u?: What if I quit my job and travel for a year?
        a: It depends on your savings and plans.
        u?: Would it hurt my career?
        a: A planned gap with a story is usually fine.
        u: I have about a year of savings.
        """,
        [S("savings", "about a year")],
        llm=[
            A(
                st("@quit my job", "plan", "quit job and travel for a year"),  # what if
                st("@year of savings", "savings", "a year of savings"),
            )
        ],
    ),
    case(
        "q-reported-doctor",
        "questions",
        """
        u?: My doctor says I should cut down on salt.
        a: That's common advice for blood pressure.
        u: My blood pressure is a bit high, yes.
        a: Regular monitoring helps.
        u?: My wife thinks I should try yoga.
        a: Yoga can help with stress and blood pressure.
        """,
        [S("blood_pressure", "a bit high")],
        llm=[
            A(
                st("@cut down on salt", "diet", "cut down on salt"),  # reported advice
                st("@blood pressure is", "blood_pressure", "high"),
                st("@try yoga", "plan", "try yoga"),  # someone else's idea
            )
        ],
    ),
    case(
        "q-hypothetical-dog",
        "hypotheticals",
        """
        u?: If I got a dog, which breed would suit a small flat?
        a: A French bulldog or a pug is a common choice.
        u?: Would a beagle be too loud?
        a: Beagles do bark a lot.
        u: I live alone in a studio, so space is tight.
        """,
        [S("living_situation", "lives alone in a studio")],
        llm=[
            A(
                st("@If I got a dog", "pet", "dog"),  # a hypothetical
                st("@beagle", "pet", "beagle"),  # from a question
                st("@live alone", "housing", "studio"),
            )
        ],
    ),
    case(
        "q-guess-allergy",
        "hypotheticals",
        """
        u?: I might be allergic to dust, not sure.
        a: A simple allergy test can confirm it.
        u: I sneeze every morning when I clean my room.
        a: That does sound like a dust allergy.
        u?: Should I see a doctor for that?
        a: If it bothers you, an allergist can help.
        """,
        [S("symptom", "sneezes when cleaning the room")],
        llm=[
            A(
                st("@allergic to dust", "allergy", "dust"),  # a guess
                st("@sneeze every morning", "symptom", "sneezing every morning"),
            )
        ],
    ),
    # --- longer conversations mixing topics ---------------------------------------
    case(
        "mix-onboarding",
        "identity",
        """
        u: Hey, I'm Ishaan.
        a: Hi Ishaan! Tell me a bit about yourself.
        u: I'm 29 and I live in Gurgaon.
        a: Got it. What do you do?
        u: I work as a product analyst at Zomato.
        a: Interesting work. Do you enjoy it?
        u: Mostly, the data is messy though.
        a: It usually is.
        u: I'm pescatarian, by the way, in case you suggest recipes.
        a: Noted, fish is fine then.
        u: Yes, but I'm allergic to shrimp.
        a: No shrimp, got it.
        u?: What's a quick fish curry I could make tonight?
        a: A simple Goan fish curry with coconut milk takes 30 minutes.
        u: Sounds good. Never suggest anything with mayonnaise though.
        a: Understood, no mayonnaise.
        u: I play badminton on weekends with my cousin Rhea.
        a: Nice way to stay active.
        u: She's much better than me.
        a: Practice will close the gap!
        """,
        [
            S("name", "Ishaan"),
            S("age", "29"),
            S("home_city", "Gurgaon"),
            S("job_title", "product analyst"),
            S("employer", "Zomato"),
            S("diet", "pescatarian"),
            S("allergy", "shrimp"),
            S("rule", "anything with mayonnaise"),
            S("sport", "badminton on weekends"),
            S("cousin", "Rhea"),
        ],
        llm=[
            A(
                st("@I'm 29", "age", "29"),
                st("@live in Gurgaon", "home_city", "Gurgaon"),
                st("@product analyst", "job", "product analyst"),
                st("@product analyst", "company", "Zomato"),
                st("@pescatarian", "diet", "pescatarian"),
                st("@allergic to shrimp", "allergy", "shrimp"),
                st("@mayonnaise", "food_rule", "mayonnaise", prohibited=True),
                st("@badminton", "hobby", "badminton"),
                st("@quick fish curry", "dinner_plan", "fish curry"),  # from a question
                st("@much better than me", "badminton_level", "worse than Rhea"),  # unsaid
                name="Ishaan",
            )
        ],
    ),
    case(
        "mix-week-recap",
        "events",
        """
        u: Busy week! On Monday I had my performance review.
        a: How did it go?
        u: Really well, I got a raise.
        a: Congratulations!
        u: Then yesterday I adopted a cat from the shelter.
        a: Aww! What's its name?
        u: Her name is Miso.
        a: Cute name.
        u: She's three years old and very shy.
        a: She'll warm up soon.
        u: Tomorrow I'm flying to Goa for a friend's wedding.
        a: Have a great trip!
        u?: Should I pack a raincoat?
        a: It's past the monsoon, so probably not.
        u: Cool, thanks.
        a: Enjoy Goa!
        """,
        [
            S("pet", "Miso"),
            S("age", "three years", who="Miso"),
            S("temperament", "shy", who="Miso"),
        ],
        [
            E("2026-10-19", "had my performance review"),
            E("2026-10-19", "got a raise"),
            E("2026-10-20", "adopted a cat from the shelter"),
            E("2026-10-22", "flying to Goa for a friend's wedding"),
        ],
        llm=[
            A(
                ev("@performance review", "had my performance review", "on Monday"),
                ev("@got a raise", "got a raise", "Monday"),  # a time the line doesn't say
                ev("@adopted a cat", "adopted a cat from the shelter", "yesterday"),
                st("@Her name is Miso", "cat_name", "Miso"),
                st("@three years old", "age", "three years old", about="Miso"),
                ev("@flying to Goa", "flying to Goa for a friend's wedding", "tomorrow"),
            )
        ],
    ),
    case(
        "mix-health-checkup",
        "conditions",
        """
        n: Annual checkup notes, October.
        u: My doctor is Dr. Menon at Apollo.
        a: Good to have a regular doctor.
        u: My vitamin D was low, so I take a supplement every day now.
        a: That's common, especially with indoor jobs.
        u: During winter I take a double dose.
        a: Makes sense with less sun.
        u: I'm also asthmatic, mild though.
        a: Do you carry an inhaler?
        u: Only when I travel.
        """,
        [
            S("doctor", "Dr. Menon at Apollo"),
            S("supplement", "vitamin D every day"),
            S("supplement", "double dose of vitamin D", when="winter"),
            S("health", "mild asthma"),
            S("carries", "inhaler", when="travel"),
        ],
        llm=[
            A(
                st("@My doctor is", "doctor", "Dr. Menon"),
                st("@vitamin D was low", "supplement", "vitamin D supplement daily"),
                st("@During winter", "supplement", "double dose", condition="winter"),
                st("@asthmatic", "condition", "asthma"),
                st("@Only when I travel", "inhaler", "carries an inhaler", condition="travel"),
            )
        ],
    ),
    case(
        "mix-moving-house",
        "moves",
        """
        u: Big news, I finally bought a flat!
        a: Congratulations! Where?
        u: In Baner, Pune, close to my office.
        a: Great location. When do you move in?
        u: We shifted last Sunday, boxes everywhere.
        a: Unpacking takes forever.
        u: My old place in Kothrud was rented anyway.
        a: Owning feels different, right?
        u: Totally. My wife Sana already painted the balcony blue.
        a: That sounds lovely.
        u?: Any tips for keeping balcony plants alive in Pune heat?
        a: Water early morning and pick hardy plants.
        """,
        [
            S("home", "flat in Baner, Pune"),
            S("home", "rented place in Kothrud", old=True),
            S("wife", "Sana"),
        ],
        [E("2026-10-18", "shifted to the new flat in Baner")],
        llm=[
            A(
                st("@In Baner", "home_city", "Baner, Pune"),
                st("@old place in Kothrud", "home_city", "Kothrud", ended=True),
                ev("@shifted last Sunday", "shifted to new flat", "last Sunday"),
                st("@wife Sana", "wife", "Sana"),
                st("@painted the balcony", "balcony_color", "blue"),  # Sana's doing, as user's
                st("@balcony plants", "hobby", "balcony plants"),  # from a question
            )
        ],
    ),
)
