"""``bench.sleep``'s labelled conversations: identity, moves and jobs."""

from __future__ import annotations

from bench.sleep_labels import A, Case, E, S, case, ev, once, st

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
)
