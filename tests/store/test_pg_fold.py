"""PostgreSQL's ``orma_fold`` (migration 0003) folds exactly the letters FTS5 folds, as FTS5 does.

FTS5's ``unicode61 remove_diacritics 2`` is asked about every letter and mark
past ASCII in planes 0 and 1, each alone between two ``q``; a letter it turns into other ASCII
letters must come out of ``lower(orma_fold(...))`` the same, and every other
character must come out of ``orma_fold`` untouched.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict

import sqlean

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.rawdb import raw


def _fts5_tokens(texts: list[str]) -> list[list[str]]:
    """Each text's tokens as SQLite's FTS5 makes them (an in-memory database of its own)."""
    conn = sqlean.connect(":memory:")
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61 remove_diacritics 2')"
        )
        conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        conn.executemany("INSERT INTO t (rowid, x) VALUES (?, ?)", enumerate(texts, start=1))
        found: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for term, doc, offset in conn.execute("SELECT term, doc, offset FROM v"):
            found[int(doc)].append((int(offset), str(term)))
        return [[term for _, term in sorted(found[n])] for n in range(1, len(texts) + 1)]
    finally:
        conn.close()


async def test_orma_fold_is_fts5_s_diacritics_folding(
    pg_url: str, config: OrmaConfig, embedder: OnnxEmbedder
) -> None:
    async with AsyncMemory(config=config.with_db(pg_url), embedder=embedder):
        pass  # the migrations ran
    chars = [
        chr(cp)
        for cp in range(0x80, 0x20000)  # planes 2-3 hold CJK only: nothing folds
        if unicodedata.category(chr(cp)).startswith(("L", "M"))
    ]
    texts = [f"q{c}q" for c in chars]
    expected = {}
    for c, tokens in zip(chars, _fts5_tokens(texts), strict=True):
        if len(tokens) == 1 and tokens[0].isascii() and tokens[0] != f"q{c.lower()}q":
            expected[f"q{c}q"] = tokens[0]
    assert len(expected) > 500 and expected["qéq"] == "qeq" and expected["q\u0301q"] == "qq"
    with raw(pg_url) as conn:
        rows = conn.execute(
            "SELECT x, orma_fold(x), lower(orma_fold(x)) FROM unnest(CAST(? AS text[])) AS u(x)",
            (texts,),
        ).fetchall()
    wrong = [
        (text, folded)
        for text, folded, lowered in rows
        if (lowered != expected[text] if text in expected else folded != text)
    ]
    assert len(rows) == len(texts) and wrong == []
