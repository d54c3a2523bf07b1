"""BM25 over FTS5, with user text turned into terms, never into FTS5 syntax.

Quotes, ``*``, ``NEAR(``, ``AND``, ``-`` or ``:`` in a question are words or
nothing: every term is a quoted string of word characters, OR-ed together.
"""

from __future__ import annotations

import re

import aiosqlite

_WORD = re.compile(r"\w+", re.UNICODE)

# Words that match almost every sentence; dropped unless the query has nothing else.
STOPWORDS = frozenset(
    """a an and are as at be but by do does did for from had has have i if in into is it its
    me my of on or so than that the their them then there these they this to was we were
    what when where which who whom why will with you your""".split()  # noqa: SIM905
)


def match_expression(query: str, space_tag: str, max_terms: int = 32) -> str | None:
    """An FTS5 MATCH string for ``query`` inside one space, or None if it has no words."""
    words = [w.lower() for w in _WORD.findall(query)]
    terms = list(dict.fromkeys(w for w in words if w not in STOPWORDS)) or list(
        dict.fromkeys(words)
    )
    if not terms:
        return None
    quoted = " OR ".join(f'"{term}"' for term in terms[:max_terms])
    return f"space_tag:{space_tag} AND ({quoted})"


async def bm25_search(
    conn: aiosqlite.Connection, query: str, space_tag: str, k: int
) -> list[tuple[int, float]]:
    """Best ``k`` sentence ids for ``query`` by BM25 (higher score is better)."""
    expression = match_expression(query, space_tag)
    if expression is None:
        return []
    cursor = await conn.execute(
        "SELECT rowid, bm25(sentence_fts) FROM sentence_fts WHERE sentence_fts MATCH ? "
        "ORDER BY bm25(sentence_fts) LIMIT ?",
        (expression, k),
    )
    return [(int(r[0]), -float(r[1])) for r in await cursor.fetchall()]
