"""PostgreSQL's terms for the held keyword postings (``store/keyword_index.py``): its lexemes.

The held postings are the ones the keyword channel ranks (``search.KEYWORD_HITS``):
``sentence_terms`` (migration 0004), a lexeme's sentences with its count in each,
so held BM25 scores what PostgreSQL's would. A changed sentence's terms are its rows
there, read by the catch-up's one statement (no tokenizer in Python); a query's are
the lexemes ``to_tsvector('orma', orma_fold(...))`` makes of each of its terms, all
of them OR-ed as the channel does, each once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from orma_proxy.store.postgres.connection import PgConnection

# Each lexeme of the space with its sentences' ids, one per occurrence, in id order: the
# primary key's order, so an index-only scan with no sort.
_POSTINGS_SQL = (
    "SELECT lexeme, string_agg(repeat(sentence_id::text || ' ', f), '' ORDER BY sentence_id) "
    "FROM sentence_terms WHERE space = ? GROUP BY lexeme"
)
_LEXEMES_SQL = (
    "SELECT w, tsvector_to_array(to_tsvector('orma', orma_fold(w))) "
    "FROM unnest(CAST(? AS text[])) AS w"
)


class PgTerms:
    """``keyword_index.Terms`` on PostgreSQL."""

    # Each change with its sentence's postings now (none when it is gone): the primary key
    # (space, lexeme, sentence_id) sought with the lexemes of the sentence's own tsvector.
    changes_sql = (
        "SELECT c.seq, c.sentence_id, s.space, p.lexemes, p.counts FROM "
        "(SELECT seq, sentence_id FROM keyword_changes WHERE seq > ? ORDER BY seq LIMIT ?) c "
        "LEFT JOIN sentences s ON s.id = c.sentence_id "
        "LEFT JOIN LATERAL (SELECT array_agg(t.lexeme) AS lexemes, array_agg(t.f) AS counts "
        "FROM sentence_terms t WHERE t.space = s.space "
        "AND t.lexeme = ANY(tsvector_to_array(s.tsv)) AND t.sentence_id = s.id) p ON TRUE "
        "ORDER BY c.seq"
    )
    changes_width = 5

    def postings(self, conn: PgConnection, space: str) -> Iterator[tuple[str, str]]:
        for lexeme, docs in conn.execute(_POSTINGS_SQL, (space,)):
            yield str(lexeme), str(docs)

    def counted(self, rows: Sequence[tuple[Any, ...]]) -> list[Counter[str]]:
        """Each row's (lexemes, counts) as a count of each lexeme."""
        return [Counter(dict(zip(r[0] or (), r[1] or (), strict=True))) for r in rows]

    def split(self, conn: PgConnection, terms: list[str]) -> list[tuple[str, ...]]:
        found = {str(r[0]): tuple(r[1]) for r in conn.execute(_LEXEMES_SQL, (terms,))}
        return [found[t] for t in terms]

    def searched(self, tokens: list[tuple[str, ...]]) -> list[str] | None:
        """Every lexeme of every term, once: ``lexeme = ANY(...)``, as the channel matches."""
        return list(dict.fromkeys(t for each in tokens for t in each))

    def close(self) -> None:
        """Nothing of its own to close: its statements run on the caller's connections."""
