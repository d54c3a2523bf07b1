"""Search on a conversation: speakers, turns and fusion (issue 17), on text of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.recall.search import rrf_fuse
from orma_proxy.recall.turns import (
    addresses,
    asks_when,
    listener_roles,
    named_in,
    says_when,
    turn_scores,
    with_replies,
    without_names,
)

# Two friends talking; every line starts with who said it, as a transcript does.
CHAT = [
    "Asha: Wow!",
    "Ravi: Absolutely!",
    "Asha: Absolutely!",
    "Ravi: How do you unwind after a long week, Asha?",
    "Asha: I paint watercolours by the lake, it calms me down.",
    "Ravi: Glad you agree, Asha.",
    "Asha: Phew!",
    "Ravi: I go running by the lake at dawn.",
    "Asha: Wow!",
    "Ravi: Same here!",
]


@pytest.mark.both_backends
async def test_a_leading_name_is_stored_as_the_speaker_not_indexed_as_a_word(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False
    amem.config.reply_share = 0.0  # the words alone
    ids = [await amem.add(line, space="chat") for line in CHAT]
    found = await amem.search("Asha", space="chat", k=10)
    # Only what is said *about* Asha matches her name, not every line she said.
    assert {p.episode_id for p in found.passages} == {ids[3], ids[5]}
    lake = await amem.search("lake", space="chat", k=10)
    assert {(p.speaker, p.text) for p in lake.passages} == {
        ("Asha", "I paint watercolours by the lake, it calms me down."),
        ("Ravi", "I go running by the lake at dawn."),
    }


@pytest.mark.both_backends
async def test_a_name_in_the_query_favours_what_that_speaker_said(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    ids = [await amem.add(line, space="chat") for line in CHAT]
    for query, said in [("What does Ravi do by the lake?", 7), ("Asha by the lake", 4)]:
        found = await amem.search(query, space="chat", k=3)
        assert found.passages[0].episode_id == ids[said]


@pytest.mark.both_backends
async def test_the_block_says_who_said_a_line(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    await amem.add("Asha: I paint watercolours by the lake.", space="chat")
    block = await amem.recall("watercolours", space="chat")
    assert "Asha: I paint watercolours by the lake." in block.text


@pytest.mark.both_backends
async def test_an_explicit_speaker_is_kept_and_observe_takes_a_name(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    await amem.add("I keep bees on the roof.", space="s", speaker="Mira")
    await amem.observe("user", "I fix old radios.", space="s", name="Tomas")
    bees = (await amem.search("bees", space="s")).passages[0]
    radios = (await amem.search("radios", space="s")).passages[0]
    assert (bees.speaker, radios.speaker, radios.role) == ("Mira", "Tomas", "user")


@pytest.mark.both_backends
async def test_a_turn_is_one_passage_scored_from_all_its_sentences(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    spread = await amem.add(
        "We drove to the coast. The kayak trip was long. Dinner was grilled fish.", space="t"
    )
    single = await amem.add("Kayak rentals open in May.", space="t")
    found = await amem.search("kayak trip to the coast with fish dinner", space="t", k=10)
    assert [p.episode_id for p in found.passages] == [spread, single]


def test_a_turns_other_hits_add_a_share_and_a_named_speaker_a_boost() -> None:
    hits = {1: 0.5, 2: 0.4, 3: 0.6}
    episode_of = {1: 10, 2: 10, 3: 20}
    speakers = {1: "Asha", 2: "Asha", 3: "Ravi"}
    plain = turn_scores(hits, episode_of, speakers, frozenset(), share=0.5, boost=0.0)
    assert plain == [(1, 0.7), (3, 0.6)]
    asked = turn_scores(hits, episode_of, speakers, named_in("Is Ravi ok?"), share=0.0, boost=1.0)
    assert asked == [(3, 1.2), (1, 0.5)]


def test_weighted_fusion_keeps_a_strong_keyword_match_above_a_lone_vector_match() -> None:
    keyword_first, vector_first = [7, 8], [9, 8]
    equal = rrf_fuse([keyword_first, vector_first], 60)
    assert equal[7] == equal[9]  # plain RRF cannot tell them apart
    weighted = rrf_fuse([keyword_first, vector_first], 60, [1.0, 0.5])
    assert weighted[7] > weighted[9]


def test_names_leave_the_words_searched_unless_nothing_else_is_asked() -> None:
    for query, words in [
        ("What does Asha do to relax?", "What does  do to relax?"),
        ("What is Asha's job?", "What is  job?"),
        ("Asha", "Asha"),
        ("Who is Asha?", "Who is Asha?"),
    ]:
        assert without_names(query, named_in(query)) == words


@pytest.mark.both_backends
async def test_thanks_with_a_name_does_not_outrank_what_was_asked(amem: AsyncMemory) -> None:
    ids = [await amem.add(line, space="chat") for line in CHAT]
    await amem.flush()
    found = await amem.search("What does Asha paint?", space="chat", k=3)
    assert found.passages[0].episode_id == ids[4]
    assert ids[5] not in {p.episode_id for p in found.passages}  # "Glad you agree, Asha."


@pytest.mark.both_backends
async def test_the_reply_to_a_matched_question_is_found_with_it(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    lines = [
        "Ravi: What's your dog called?",
        "Asha: Biscuit, after my favourite snack.",
        "Ravi: Lovely.",
        "Asha: The weather is turning cold.",
    ]
    ids = [await amem.add(line, space="pets") for line in lines]
    await amem.add("Unrelated: another space's turn.", space="other")
    found = await amem.search("What is the dog called?", space="pets", k=5)
    assert [p.episode_id for p in found.passages] == [ids[0], ids[1]]
    amem.config.reply_share = 0.0
    found = await amem.search("What is the dog called?", space="pets", k=5)
    assert [p.episode_id for p in found.passages] == [ids[0]]


@pytest.mark.both_backends
async def test_a_short_exclamation_counts_for_less_than_a_real_statement(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False
    short = await amem.add("Asha: Nice dog!", space="s")
    said = await amem.add("Asha: My dog sleeps on the sofa every single afternoon.", space="s")
    amem.config.short_sentence_words = 0
    assert (await amem.search("dog", space="s")).passages[0].episode_id == short
    amem.config.short_sentence_words = 6
    assert [p.episode_id for p in (await amem.search("dog", space="s")).passages] == [said, short]


def test_a_reply_shares_its_questions_score_or_joins_with_that_share() -> None:
    episode_of = {1: 10, 2: 11, 3: 12}
    turns = [(1, 1.0), (3, 0.2)]
    assert with_replies(turns, {1: 2}, episode_of, share=0.5) == [(1, 1.0), (2, 0.5), (3, 0.2)]
    assert with_replies(turns, {1: 3}, episode_of, share=0.5) == [(1, 1.0), (3, 0.7)]


def test_a_question_asking_when_and_a_line_saying_when() -> None:
    assert all(map(asks_when, ["When did Asha move?", "In what year was it?", "what month?"]))
    assert not any(map(asks_when, ["Where did Asha move?", "What did she say when I left?"]))
    dated = ["I went yesterday.", "We met last Saturday", "two weeks ago", "in May 2021"]
    assert all(map(says_when, dated))
    assert not any(map(says_when, ["The class is fun.", "I lastly went home", "maybe"]))


@pytest.mark.both_backends
async def test_when_questions_favour_the_line_that_says_when(amem: AsyncMemory) -> None:
    amem.config.enable_semantic = False
    lines = [
        "Asha: The pottery class is fun, the pottery teacher is kind and patient.",
        "Asha: I went to my first pottery class yesterday.",
    ]
    ids = [await amem.add(line, space="t", at="2024-03-05T10:00:00+00:00") for line in lines]
    amem.config.time_boost = 0.0
    assert (await amem.search("When did Asha go to pottery?", space="t")).passages[
        0
    ].episode_id == ids[0]
    amem.config.time_boost = 1.5
    found = await amem.search("When did Asha go to pottery?", space="t")
    assert found.passages[0].episode_id == ids[1]
    assert found.passages[0].said_at.date().isoformat() == "2024-03-05"  # "yesterday" from here
    other = await amem.search("What does Asha think of pottery?", space="t")
    assert other.passages[0].episode_id == ids[0]


@pytest.mark.both_backends
async def test_a_long_line_keeps_its_speaker_and_a_document_its_heading(
    amem: AsyncMemory, tmp_path: Path
) -> None:
    amem.config.enable_semantic = False
    long_line = "Asha: " + "I keep notes on every heron I see. " * 2_000  # split in a thread
    heard = await amem.add(long_line, space="s")
    (tmp_path / "book.md").write_text("Chapter One: the herons of the marsh\n", "utf-8")
    [book] = await amem.add_file(tmp_path / "book.md", space="s")
    found = {p.episode_id: p for p in (await amem.search("herons", space="s", k=5)).passages}
    assert found[heard].speaker == "Asha"
    assert (found[book].speaker, found[book].text) == (None, "Chapter One: the herons of the marsh")


@pytest.mark.both_backends
async def test_a_place_named_in_the_query_stays_a_word_only_speakers_leave(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False
    for line in CHAT:
        await amem.add(line, space="chat")
    goa = await amem.add("Ravi: I'm flying to Goa next week.", space="chat")
    await amem.add("Asha: My flight to Delhi was late.", space="chat")
    found = await amem.search("Goa flight", space="chat", k=5)
    # "Goa" is no speaker here: it is searched (taken out, only "flight" would be).
    assert goa in [p.episode_id for p in found.passages]
    # The same word as a speaker's name leaves the words and favours what they said.
    asked = await amem.search("What does Ravi do by the lake?", space="chat", k=1)
    assert asked.passages[0].text == "I go running by the lake at dawn."


@pytest.mark.both_backends
async def test_rebuild_splits_a_turn_as_add_did_leaving_its_speaker_out(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False
    for line in CHAT:
        await amem.add(line, space="chat")
    before = await amem.search("Asha", space="chat", k=10)
    report = await amem.rebuild()
    after = await amem.search("Asha", space="chat", k=10)
    assert [p.text for p in after.passages] == [p.text for p in before.passages]
    assert "Asha: Wow!" not in [p.text for p in after.passages]
    assert report.episodes == len(CHAT) and report.resplit == 0


@pytest.mark.both_backends
async def test_a_reply_counts_whatever_k_the_search_asks_for(amem: AsyncMemory) -> None:
    """The first passages are the same for k=2 as for k=6: the reply to a matched
    question joins whether or not the question itself makes the first k."""
    amem.config.enable_semantic = False
    chat = [
        "Asha: My family finally agreed on a breed in the end after weeks of debate.",
        "Ravi: I want a dog too, one day.",
        "Ravi: So which breed did you pick?",
        "Asha: A beagle, we picked her up from the breeder last week.",
        "Ravi: Nice, I bet the kids love her.",
        "Asha: The garden is full of tomatoes.",
    ]
    ids = [await amem.add(line, space="chat") for line in chat]
    query = "Which dog breed was picked in the end?"
    two = [p.episode_id for p in (await amem.search(query, space="chat", k=2)).passages]
    six = [p.episode_id for p in (await amem.search(query, space="chat", k=6)).passages]
    assert two == six[:2] == [ids[0], ids[3]]  # the question itself ranks fourth
    assert six.index(ids[2]) == 3


@pytest.mark.parametrize(
    ("text", "called"),
    [
        ("Thanks, Oriane!", True),
        ("Hey Oriane, how was the ferry?", True),
        ("That's brilliant, Oriane.", True),
        ("Morning Oriane - slept well?", True),
        ("I met Oriane at the market.", False),
        ("Oriane and I baked bread.", False),
        ("Oriane's oven broke.", False),
    ],
)
def test_a_name_set_off_by_a_greeting_or_commas_calls_the_listener(text: str, called: bool) -> None:
    assert addresses(text, "oriane") is called


def test_the_name_the_assistant_calls_its_listener_is_the_users() -> None:
    said = [
        ("assistant", "Congrats, Tobiah!"),
        ("assistant", "Hey Tobiah, how did the exam go?"),
        ("user", "Tobiah here, back from the coast."),
        ("user", "Thanks, Wren!"),
    ]
    assert listener_roles(said, ["tobiah", "wren"]) == {"user": "tobiah", "assistant": "wren"}
    assert listener_roles([("user", "I met Tobiah today.")], ["tobiah"]) == {}


async def test_a_query_naming_the_user_favours_the_users_unnamed_turns(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False
    space = "chat"
    await amem.observe("user", "Our bakery order for the fair is forty loaves.", space)
    await amem.observe("assistant", "Forty loaves, wow Tobiah! My bakery order is ten.", space)
    await amem.observe("user", "Thanks, Wren! Hey, how's the kiln?", space)
    await amem.observe("assistant", "Good, Tobiah. I fired six bowls.", space)
    first = (await amem.search("How big is Tobiah's bakery order?", space)).passages[0]
    assert first.role == "user"
    assert "forty loaves" in first.text
