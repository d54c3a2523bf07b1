"""``bench.sleep``'s labelled conversations: corrections, rules and events with relative dates."""

from __future__ import annotations

from bench.sleep_labels import A, Case, E, S, always, case, ev, once, st

CASES: tuple[Case, ...] = (
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
)
