"""``bench.sleep``'s labelled conversations: chatter, questions, longer mixed talks."""

from __future__ import annotations

from bench.sleep_labels import A, Case, E, S, case, ev, st

CASES: tuple[Case, ...] = (
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
