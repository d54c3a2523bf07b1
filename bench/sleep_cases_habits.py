"""``bench.sleep``'s labelled conversations: diets, habits, conditions (exceptions)."""

from __future__ import annotations

from bench.sleep_labels import A, Case, E, S, always, case, ev, once, st

CASES: tuple[Case, ...] = (
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
)
