"""``bench.sleep``'s labelled conversations: third persons, with pronouns."""

from __future__ import annotations

from bench.sleep_labels import A, Case, E, S, case, ev, once, st

CASES: tuple[Case, ...] = (
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
)
