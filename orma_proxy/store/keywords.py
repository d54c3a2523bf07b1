"""The keyword indexes' statements: BM25 over FTS5 and over CJK character pairs.

A query reaches them as plain text and is turned into terms here, never into
FTS5 syntax: quotes, ``*``, ``NEAR(``, ``AND``, ``-`` or ``:`` in a question are
words or nothing; every term is a quoted string of word characters, OR-ed
together. ``store/passages.py`` joins their hits to what a passage shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from orma_proxy.store.episodes import space_tag
from orma_proxy.text.grams import query_grams
from orma_proxy.text.stopwords import STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)

MAX_TERMS = 32


def query_terms(query: str, max_terms: int = MAX_TERMS, dates: Sequence[str] = ()) -> list[str]:
    """The query's search terms: ``dates`` (``text/dates.py``) first, then its words.

    Stop words are left out unless the query has nothing else. Each term is a run
    of word characters, never syntax.
    """
    words = [w.lower() for w in _WORD.findall(query)]
    terms = list(dict.fromkeys(w for w in words if w not in STOPWORDS))
    if not terms and not dates:
        terms = list(dict.fromkeys(words))
    return [*dict.fromkeys(dates), *terms][:max_terms]


def match_terms(query: str, max_terms: int = MAX_TERMS, dates: Sequence[str] = ()) -> str | None:
    """The query's terms OR-ed as an FTS5 expression, or None if it has no words."""
    terms = query_terms(query, max_terms, dates)
    if not terms:
        return None
    return "(" + " OR ".join(f'"{term}"' for term in terms) + ")"


def match_expression(query: str, space_tag: str, max_terms: int = MAX_TERMS) -> str | None:
    """An FTS5 MATCH string for ``query`` inside one space, or None if it has no words."""
    terms = match_terms(query, max_terms)
    return None if terms is None else f"space_tag:{space_tag} AND {terms}"


# Best ``:k`` sentence ids of ``:space`` for ``:terms`` with a higher-is-better score.
#
# The space's tag is only added to the MATCH when another space exists (an index
# probe): bm25() counts every row of every phrase for its IDF, so the tag alone
# costs a walk over all the space's rows, about 2/3 of the whole BM25 time in a
# 10,000-note space. With a single space it filters nothing, and the ranking is
# the same (the tag's IDF is ~0 when every row carries it). ``ORDER BY bm25()``
# rather than ``ORDER BY rank``: FTS5 runs ``rank`` through an extra statement per
# query, ~1.5x slower here.
BM25_SQL = (
    "SELECT rowid AS id, -bm25(sentence_fts) AS score FROM sentence_fts "
    "WHERE sentence_fts MATCH CASE WHEN EXISTS "
    "(SELECT 1 FROM sentences WHERE space < :space OR space > :space) "
    "THEN :in_space ELSE :terms END "
    "ORDER BY bm25(sentence_fts) LIMIT :k"
)


def bm25_params(
    query: str, space: str, k: int, dates: Sequence[str] = ()
) -> dict[str, object] | None:
    """The named parameters of ``BM25_SQL``; None when the query has no words."""
    terms = match_terms(query, dates=dates)
    if terms is None:
        return None
    return {
        "terms": terms,
        "in_space": f"space_tag:{space_tag(space)} AND {terms}",
        "space": space,
        "k": k,
    }


# Best ``:k`` sentence ids of ``:space`` sharing CJK character pairs with the query
# (``text/grams.py``, migration 0008), by BM25 over the pairs alone (the space tag
# column weighs nothing). Only queries with CJK text run it.
GRAMS_SQL = (
    "SELECT rowid AS id, -bm25(sentence_grams, 1.0, 0.0) AS score FROM sentence_grams "
    "WHERE sentence_grams MATCH :grams ORDER BY bm25(sentence_grams, 1.0, 0.0) LIMIT :k"
)


def grams_params(query: str, space: str, k: int) -> dict[str, object] | None:
    """The named parameters of ``GRAMS_SQL``; None when the query has no CJK text."""
    grams = query_grams(query, MAX_TERMS)
    if not grams:
        return None
    terms = " OR ".join(f'"{gram}"' for gram in grams)  # CJK characters only: no quotes
    return {"grams": f"space_tag:{space_tag(space)} AND ({terms})", "space": space, "k": k}
