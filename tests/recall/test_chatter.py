"""The rules that keep chatter, old questions and echoes of memory out of the block."""

from __future__ import annotations

import pytest

from orma_proxy.recall.chatter import (
    Said,
    asks_what_was_asked,
    echoes_memory,
    is_chatter,
    is_courtesy,
    is_question,
    restates,
    screen,
    speaks_of_self,
)


@pytest.mark.parametrize(
    "text",
    [
        "Hi!",
        "Hello there.",
        "Good evening!",
        "OK.",
        "Cool, thanks.",
        "Thank you so much!",
        "Sounds good.",
        "Bye for now.",
        "Noted.",
        "Got it, thanks for sharing.",
        "Thanks for letting me know!",
        "Understood, I will follow that from now on.",
        "How can I help you today?",
        "You're welcome!",
        "Glad I could help.",
        "Have a great day!",
        "Thanks, Oriane!",
        "Nice to meet you, Tobiah!",
        "I'm doing well, thanks!",
    ],
)
def test_greetings_thanks_acknowledgements_and_filler_are_chatter(text: str) -> None:
    assert is_chatter(text)


@pytest.mark.parametrize(
    "text",
    [
        "Pickle, after my favourite sandwich.",  # a short answer is an answer
        "I'm Tobiah.",
        "Oriane.",  # a name alone answers "what's her name?"
        "Thanks to the new boiler, the flat stays warm.",
        "I feel great today.",
        "My locker code is 4417.",
        "Never send me voice notes.",
    ],
)
def test_a_line_with_content_is_not_chatter(text: str) -> None:
    assert not is_chatter(text)


def test_questions_and_queries_about_questions() -> None:
    assert is_question("Where should we eat on Friday?")
    assert is_question('Did she say "why not?"')
    assert not is_question("I wondered where to eat.")
    assert asks_what_was_asked("What did I ask you about the boiler?")
    assert asks_what_was_asked("Which questions did I have about taxes?")
    assert asks_what_was_asked("Have I asked you this before?")
    assert not asks_what_was_asked("Where do I keep the boiler manual?")


@pytest.mark.parametrize(
    "text",
    [
        "[LOG: 2026-03-02 user: I live in Halden.]",
        "[LOG: 2026-03-02 assistant: [LOG: 2026-03-01 user: I live in Halden.]]",
        "As noted in [user.home city: Halden], it rains a lot.",
        "[FORBIDDEN: send voice notes]",
        "[user.drink | cond: cold -> hot lemon]",
        '- 2026-03-02, user: "I live in Halden."',
    ],
)
def test_lines_of_the_memory_block_are_recognised(text: str) -> None:
    assert echoes_memory(text)


def test_plain_brackets_are_not_memory_lines() -> None:
    assert not echoes_memory("Use a list [1, 2, 3] here.")
    assert not echoes_memory("The docs [see section 4] explain it.")


def test_a_reply_restating_the_user_is_an_echo_and_one_adding_to_it_is_not() -> None:
    said = "I moved from Halden to Moss last spring."
    assert restates("So you live in Moss now.", said)
    assert restates("You moved to Moss.", said)
    assert not restates("Moss has a lovely harbour walk along the fjord.", said)
    assert not restates("So you live in Fredrikstad now.", said)  # a name the user never said
    number = "My new locker code is 4417."
    assert restates("Your new code is 4417.", number)
    assert not restates("Your new code is 4471.", number)
    asked = "What is the capital of Norway?"
    assert not restates("The capital of Norway is Oslo.", asked)


def test_screen_keeps_content_and_drops_chatter_echoes_and_stray_questions() -> None:
    found = [
        Said("I live in Halden.", "user", 1),
        Said("You live in Halden.", "assistant", 2),
        Said("Hi!", "user", 3),
        Said("Is it going to rain in Halden tomorrow?", "user", 4),
        Said("Halden gets showers most of October.", "assistant", 5),
        Said("Thanks, Lior!", "note", 6),  # a note is whatever its author wrote down
    ]
    shown = screen(found, "Where do I live?", chat_roles=("user", "assistant"))
    assert shown == [True, False, False, False, True, True]
    asked = screen(found, "What did I ask about Halden?", chat_roles=("user", "assistant"))
    assert asked == [True, False, False, True, True, True]


@pytest.mark.parametrize(
    "text",
    [
        "If you ever want more ideas for your garden, I'm here for you.",
        "Whenever you need a hand with anything at all, just ask.",
        "Do not hesitate to get in touch should you have further doubts.",
        "Should you require any more details, feel free to write again.",
        "I really hope everything works out for you!",
        "Enjoy the rest of your weekend!",
        "Best of luck with everything ahead.",
        "I'm so glad to be of use.",
        "What a thoughtful plan.",
        "That seems like a really smart move!",
    ],
)
def test_offers_wishes_and_reactions_of_a_reply_are_courtesy(text: str) -> None:
    assert is_courtesy(text)
    assert not screen([Said(text, "assistant", 2)], "what did we talk about?", chat_roles=["user"])[
        0
    ]


@pytest.mark.parametrize(
    "text",
    [
        "If you need a plumber, Mr. Okafor on Elm Street is reliable.",  # a name: content
        "If you want to call them, the number is 0412 555 019.",  # a number: content
        "I carved a wooden bowl for my niece last winter.",
        "Yeah, I play the oboe in a brass band!",
        "That was my first marathon, actually.",  # the speaker's own
        "You can soak the beans overnight to cut the cooking time.",
        "Kestrels hover before they dive.",
    ],
)
def test_a_reply_with_content_is_not_courtesy(text: str) -> None:
    assert not is_courtesy(text)


def test_a_reply_in_the_first_person_is_its_own_news_never_an_echo() -> None:
    said = "I joined a 10K fun run for the animal shelter."
    own = "I organised a 10K fun run in our street."
    assert speaks_of_self(own)
    assert not restates(own, said)
    assert not speaks_of_self("I see you joined a fun run.")  # addressed to the user
    found = [Said(said, "user", 1), Said(own, "assistant", 2)]
    assert screen(found, "who organised a fun run?", chat_roles=["user", "assistant"]) == [
        True,
        True,
    ]


def test_a_reply_sharing_one_word_with_a_line_of_the_users_is_not_an_echo() -> None:
    said = "Glad you made new friends at the club."
    assert not restates("Just got new boots, too!", said)
    assert restates("So you live in Moss now.", "I moved from Halden to Moss last spring.")


@pytest.mark.parametrize(
    "text",
    [
        "I'm so sorry to hear about the flooding in your street.",  # sympathy
        "Sorry for the mix-up earlier.",  # apology
        "Hello there, it's my pleasure to keep you company.",
        "As an AI assistant, I try to keep my answers balanced.",  # the assistant on itself
        "I'm Juniper, a friendly assistant, here to help with your plans.",
        "(nodding thoughtfully)",  # a stage direction
        "*waves*",
        "Here are a few ideas to get you started:",  # a list's opener
        "Happy gardening!",
    ],
)
def test_a_small_models_manners_are_courtesy(text: str) -> None:
    assert is_courtesy(text)


def test_a_name_in_lower_case_after_a_comma_is_still_addressed() -> None:
    assert is_chatter("Good evening, tomasz!")
    assert not is_chatter("Good evening, tomasz moved to Gdynia!")


@pytest.mark.parametrize(
    "text",
    [
        "She is quite settled in her new flat now.",  # "quite" is no "quit"
        "I'm sorry but the museum is closed on Mondays, so go on Tuesday.",
        "The assistant manager at the depot is Priya.",  # not the model on itself
        "Your flight leaves at 7:40: check in online.",
    ],
)
def test_content_that_shares_their_words_is_not_courtesy(text: str) -> None:
    assert not is_courtesy(text)
