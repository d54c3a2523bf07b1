"""Hybrid search through the SDK: read-your-writes, isolation, and hostile queries."""

from __future__ import annotations

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.recall.search import rrf_fuse
from orma_proxy.store.keywords import match_expression

pytestmark = pytest.mark.both_backends

DENTIST = "My dentist is Dr. Rao in Kothrud."
NOTES = [
    DENTIST,
    "I work as a backend engineer and I live in Pune.",
    "The spare key is under the blue flowerpot.",
    "We adopted a grey cat called Biscuit in March.",
]


async def test_a_search_right_after_add_finds_it_by_words_and_after_flush_by_meaning(
    amem: AsyncMemory,
) -> None:
    ids = [await amem.add(note) for note in NOTES]
    hybrid = await amem.search("dentist")  # vectors may or may not exist yet
    assert ids[0] in {p.episode_id for p in hybrid.passages}
    amem.config.enable_semantic = False
    by_words = await amem.search("dentist")
    assert [(p.text, p.episode_id) for p in by_words.passages] == [(DENTIST, ids[0])]

    await amem.flush()
    meaning = "who looks after my teeth?"  # not one word in common with the note
    assert (await amem.search(meaning)).passages == []  # so BM25 alone finds nothing
    amem.config.enable_semantic = True
    assert (await amem.search(meaning)).passages[0].text == DENTIST


async def test_spaces_never_see_each_other_by_words_or_by_meaning(amem: AsyncMemory) -> None:
    shared = "I keep my passport in the blue drawer."
    mine = {await amem.add(shared, space="alice"), await amem.add(NOTES[0], space="alice")}
    theirs = {await amem.add(shared, space="bob"), await amem.add(NOTES[2], space="bob")}
    await amem.flush()

    for query in ["passport blue drawer", "where are my travel documents?", "dentist", "key"]:
        alice = await amem.search(query, space="alice", k=10)
        bob = await amem.search(query, space="bob", k=10)
        assert {p.episode_id for p in alice.passages} <= mine
        assert {p.episode_id for p in bob.passages} <= theirs
        assert (await amem.search(query, space="carol")).passages == []
    # The identical sentence is found in each space, as that space's own row.
    alice = await amem.search("where are my travel documents?", space="alice")
    bob = await amem.search("where are my travel documents?", space="bob")
    assert alice.passages[0].text == bob.passages[0].text == shared
    assert alice.passages[0].episode_id in mine and bob.passages[0].episode_id in theirs


HOSTILE = [
    '"',
    '"dentist',
    "dentist*",
    "*",
    "NEAR(dentist Rao)",
    "NEAR(",
    "dentist AND",
    "AND",
    "OR",
    "NOT",
    "NOT dentist",
    "-dentist",
    "dentist:",
    "text:dentist",
    "space_tag:dentist",
    "^dentist",
    "(dentist",
    ")",
    "dentist OR OR NOT (",
    "🦷🦷",
    "牙医",
    "我的牙医是谁？",
    "?!.,;:-",
    "''",
    'dentist"; DROP TABLE episodes; --',
    "\x00dentist",
    "dentist " * 200,
    "x" * 50_000,
]


async def test_user_text_never_reaches_fts5_as_syntax(amem: AsyncMemory) -> None:
    for note in NOTES:
        await amem.add(note)
    for query in HOSTILE:
        result = await amem.search(query, k=5)  # never raises
        assert len(result.passages) <= 5
        if "dentist" in query:
            assert result.passages[0].text == DENTIST, query
    assert (await amem.stats()).episodes == len(NOTES)


def test_match_expressions_are_quoted_words_only() -> None:
    prefix = "space_tag:spTAGx AND ("
    for query in HOSTILE:
        expression = match_expression(query, "spTAGx")
        if expression is None:
            assert not any(c.isalnum() for c in query), query  # no words: BM25 is skipped
            continue
        assert expression.startswith(prefix) and expression.endswith(")"), query
        terms = expression[len(prefix) : -1].split(" OR ")
        assert all(t[0] == t[-1] == '"' and '"' not in t[1:-1] for t in terms), query


def test_reciprocal_rank_fusion() -> None:
    fused = rrf_fuse([[1, 2, 3], [3, 4]], rrf_k=60)
    assert fused[3] == pytest.approx(1 / 63 + 1 / 61)  # in both lists
    assert fused[1] == pytest.approx(1 / 61)
    assert fused[4] == pytest.approx(1 / 62)
    assert max(fused, key=fused.__getitem__) == 3
    assert rrf_fuse([], rrf_k=60) == {}


def test_score_aware_fusion_weighs_a_weak_second_place_by_its_score() -> None:
    rankings = [[1, 2], [2, 1]]
    scores = [{1: 8.0, 2: 0.5}, {2: 0.80, 1: 0.78}]
    plain = rrf_fuse(rankings, rrf_k=60, scores=scores, power=0.0)
    assert plain[1] == pytest.approx(plain[2])  # by rank alone: a tie
    fused = rrf_fuse(rankings, rrf_k=60, scores=scores, power=0.5)
    # The keyword list's second place has 1/16 of the first's score: a quarter of its share.
    assert fused[2] == pytest.approx(0.25 / 62 + 1 / 61)
    assert fused[1] == pytest.approx(1 / 61 + (0.78 / 0.80) ** 0.5 / 62)
    assert fused[1] > fused[2]
    # A list without positive scores is fused by rank alone.
    flat = rrf_fuse([[5, 6]], rrf_k=60, scores=[{5: 0.0, 6: 0.0}], power=0.5)
    assert flat == pytest.approx({5: 1 / 61, 6: 1 / 62})


async def test_diacritics_fold_as_fts5_folds_them_and_the_text_stays_whole(
    amem: AsyncMemory,
) -> None:
    amem.config.enable_semantic = False  # words only: what matched is the folding
    cafe = await amem.add("We met at the Café Müller in Zürich.")
    plain = await amem.add("The cafe on the corner sells naive art.")
    decomposed = await amem.add("Her re\u0301sume\u0301 lists a cafe\u0301 job.")  # marks apart
    for query, expected in (
        ("cafe", {cafe, plain, decomposed}),
        ("CAFÉ", {cafe, plain, decomposed}),
        ("mueller muller", {cafe}),
        ("zurich", {cafe}),
        ("naïve", {plain}),
        ("résumé", {decomposed}),
    ):
        found = {p.episode_id for p in (await amem.search(query)).passages}
        assert found == expected, query
    texts = [p.text for p in (await amem.search("zurich")).passages]
    assert texts == ["We met at the Café Müller in Zürich."]  # stored as said
