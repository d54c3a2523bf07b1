"""Keywords in Chinese, Japanese and Korean: found by their character pairs, never leaked."""

from __future__ import annotations

from pathlib import Path

import pytest

from orma_proxy import AsyncMemory
from orma_proxy.store.connect import open_sync
from orma_proxy.store.migrate import load_migrations, migrate
from orma_proxy.text.grams import cjk_grams, query_grams
from tests.helpers.rawdb import scalar

NOTES = {
    "东京": "我住在东京，离公司很近。",  # noqa: RUF001 (Chinese punctuation on purpose)
    "牙医": "我的牙医是王医生，他的诊所在朝阳区。",  # noqa: RUF001
    "出差": "下周三我要去北京出差。",
    "大阪": "私は大阪に住んでいます。",
    "김치": "나는 김치를 좋아해요.",
    "加班": "我们的新项目计划在下个月底之前上线所以这周每天晚上都要加班到十点以后才能回家休息",
    "passport": "I keep my passport in the blue drawer.",
}


async def keyword_hits(mem: AsyncMemory, query: str, space: str = "default") -> list[str]:
    mem.config.enable_semantic = False  # words alone, no vectors
    return [p.text for p in (await mem.search(query, space=space)).passages]


def test_runs_become_overlapping_pairs_and_a_lone_character_stays() -> None:
    assert cjk_grams("我住在东京。") == "我住 住在 在东 东京"
    assert cjk_grams("猫 and 犬, 東京タワー") == "猫 犬 東京 京タ タワ ワー"
    assert cjk_grams("no CJK here") == "" == cjk_grams(None)
    assert query_grams("东京东京", max_terms=2) == ["东京", "京东"]


@pytest.mark.both_backends
async def test_each_keyword_finds_its_sentence_by_words_alone(amem: AsyncMemory) -> None:
    for text in NOTES.values():
        await amem.add(text)
    for keyword, text in NOTES.items():
        assert (await keyword_hits(amem, keyword))[0] == text, keyword
    assert (await keyword_hits(amem, "我住在哪里？"))[0] == NOTES["东京"]

    amem.config.enable_cjk_keywords = False
    assert await keyword_hits(amem, "牙医") == []  # unicode61 alone sees one long word


@pytest.mark.both_backends
async def test_spaces_never_see_each_other_and_syntax_never_leaks(amem: AsyncMemory) -> None:
    await amem.add(NOTES["牙医"], space="alice")
    await amem.add(NOTES["东京"], space="bob")
    assert await keyword_hits(amem, "牙医 东京", space="alice") == [NOTES["牙医"]]
    assert await keyword_hits(amem, "牙医 东京", space="bob") == [NOTES["东京"]]
    for hostile in ('"东京" AND NEAR(牙医', "东京*", "-牙医 OR", "東京:space_tag"):
        await keyword_hits(amem, hostile, space="alice")  # never raises


async def test_purge_and_rebuild_keep_the_pairs_in_step_with_the_sentences(
    amem: AsyncMemory,
) -> None:
    for text in NOTES.values():
        await amem.add(text)

    def indexed() -> int:
        return int(scalar(amem.path, "SELECT count(*) FROM sentence_grams"))

    assert indexed() == 6  # every sentence with CJK text, not the English one
    await amem.purge("牙医")
    assert indexed() == 5
    assert await keyword_hits(amem, "牙医") == []
    amem.config.max_sentence_chars = 32  # as if the splitter had changed: the long one splits
    await amem.rebuild()
    sentences = scalar(amem.path, "SELECT count(*) FROM sentences WHERE orma_grams(text) != ''")
    assert indexed() == int(sentences) > 5
    assert (await keyword_hits(amem, "大阪"))[0].startswith("私は大阪")
    assert "加班" in (await keyword_hits(amem, "加班"))[0]


def test_the_migration_indexes_sentences_stored_before_it(tmp_path: Path) -> None:
    conn = open_sync(tmp_path / "old.db", busy_timeout_ms=2_000)
    shipped = load_migrations()
    migrate(conn, [m for m in shipped if m.version <= 7])
    conn.execute(
        "INSERT INTO episodes (id, space, role, text, source, said_at, created_at, metadata) "
        "VALUES (1, 'default', 'user', ?, 'test', 0, 0, '{}')",
        (NOTES["东京"],),
    )
    conn.execute(
        "INSERT INTO sentences (episode_id, space, position, start, text, space_tag) "
        "VALUES (1, 'default', 0, 0, ?, 'tag')",
        (NOTES["东京"],),
    )
    migrate(conn, shipped)
    found = conn.execute(
        "SELECT rowid FROM sentence_grams WHERE sentence_grams MATCH '\"东京\"'"
    ).fetchall()
    assert found == [(1,)]
    conn.close()


@pytest.mark.parametrize("query", ["", "   ", "!!!"])
def test_queries_without_cjk_make_no_terms(query: str) -> None:
    assert query_grams(query, max_terms=32) == []
