"""A space's keyword postings held in memory: BM25 top-k that a common word does not slow.

The postings and their MaxScore BM25 are ``keyword_postings.py``'s (loaded with the
first space held: a process that never holds one, ``orma stats``, never imports
numpy for it); this module keeps them for the spaces this process searches often.

The database's own keyword index stays the record; this is a cache of its postings, kept
current from ``keyword_changes`` (``held_index.py``) before each search: a purged sentence
has left it before the next search. What a term is comes from that engine (``Terms``):

- SQLite: FTS5's postings (``sentence_fts_instance``, migration 0014), a changed sentence's
  terms and a query's from a private FTS5 tokenizer of the same spec (``Fts5Terms``);
- PostgreSQL: the postings its own channel ranks (``sentence_terms``, migration 0004), a
  changed sentence's rows there, and a query's lexemes from ``to_tsvector``
  (``store/postgres/lexemes.py``).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import sqlean

from orma_proxy.store.connect import Connection
from orma_proxy.store.held_index import KEYWORD_LOG, HeldIndex, Row
from orma_proxy.store.postgres.lexemes import PgTerms

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from orma_proxy.store.keyword_postings import SpaceKeywords

TOKENIZE = "porter unicode61 remove_diacritics 2"  # sentence_fts's (migration 0012)

_KNOWN_MAX = 50_000  # query terms whose tokens are remembered
_SPACE_IDS_SQL = "SELECT id FROM sentences WHERE space = ?"


class Terms(Protocol):
    """What a term is on one engine: where the postings and the changes are read, and how a
    changed sentence and a query become terms."""

    # (seq, sentence id, space, then what ``counted`` takes) after ``?``, by seq, ``?`` rows;
    # ``changes_width`` columns.
    changes_sql: str
    changes_width: int

    def postings(self, conn: Connection, space: str) -> Iterator[tuple[str, str]]:
        """Each term with its sentences' ids, space-separated, one per occurrence, ascending
        (other spaces' ids may be among them)."""

    def counted(self, rows: Sequence[Row]) -> list[Counter[str]]:
        """Each changed sentence's terms, counted (from what ``changes_sql`` read after its
        space)."""

    def split(self, conn: Connection, terms: list[str]) -> list[tuple[str, ...]]:
        """Each query term's tokens, in order."""

    def searched(self, tokens: list[tuple[str, ...]]) -> list[str] | None:
        """The tokens to score for a query's terms' tokens; None: only the engine can."""

    def close(self) -> None: ...


class Fts5Terms:
    """SQLite's: FTS5's postings, and the tokenizer of ``sentence_fts`` (same spec) on a
    private in-memory table."""

    # FTS5's postings, term by term, each term's sentences in id order (one per occurrence).
    _POSTINGS_SQL = "SELECT term, group_concat(doc, ' ') FROM sentence_fts_instance GROUP BY term"
    changes_sql = (
        "SELECT c.seq, c.sentence_id, s.space, s.text, s.space_tag, s.dates "
        "FROM keyword_changes c LEFT JOIN sentences s ON s.id = c.sentence_id "
        "WHERE c.seq > ? ORDER BY c.seq LIMIT ?"
    )
    changes_width = 6

    def __init__(self) -> None:
        self._conn = sqlean.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize = '{TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self._lock = threading.Lock()

    def postings(self, conn: Connection, space: str) -> Iterator[tuple[str, str]]:
        for term, docs in conn.execute(self._POSTINGS_SQL):  # every space's: FTS5 has one table
            yield str(term), str(docs)

    def counted(self, rows: Sequence[Row]) -> list[Counter[str]]:
        """Each row's tokens over its three columns (text, space tag, dates), counted."""
        found: list[Counter[str]] = [Counter() for _ in rows]
        with self._lock:
            self._conn.executemany(
                "INSERT INTO t (rowid, a, b, c) VALUES (?, ?, ?, ?)",
                [(i, *row) for i, row in enumerate(rows)],
            )
            for term, doc in self._conn.execute("SELECT term, doc FROM v"):
                found[doc][term] += 1
            self._conn.execute("DELETE FROM t")
        return found

    def split(self, conn: Connection, terms: list[str]) -> list[tuple[str, ...]]:
        with self._lock:
            self._conn.executemany("INSERT INTO t (rowid, a) VALUES (?, ?)", list(enumerate(terms)))
            spans = self._conn.execute("SELECT doc, term FROM v ORDER BY doc, offset")
            found: dict[int, list[str]] = {}
            for doc, term in spans:
                found.setdefault(doc, []).append(term)
            self._conn.execute("DELETE FROM t")
        return [tuple(found.get(i, ())) for i in range(len(terms))]

    def searched(self, tokens: list[tuple[str, ...]]) -> list[str] | None:
        """One token per term; a term of several is a phrase, which FTS5 matches."""
        if any(len(t) != 1 for t in tokens):
            return None
        return [t[0] for t in tokens]

    def close(self) -> None:
        self._conn.close()


class KeywordIndex(HeldIndex["SpaceKeywords"]):
    """The keyword postings of the spaces this process searches often, kept current."""

    _log = KEYWORD_LOG
    _name = "keyword index"

    def __init__(self, where: Path | str, **options: int) -> None:
        super().__init__(where, **options)  # busy_timeout_ms, load_after, catch_up_max
        self._terms: Terms = PgTerms() if isinstance(where, str) else Fts5Terms()
        self._changes_sql = self._terms.changes_sql
        self._width = self._terms.changes_width
        self._known: dict[str, tuple[str, ...]] = {}  # a query term's tokens (queries repeat)

    def held_arrays(self, space: str) -> list[npt.NDArray[np.generic]]:
        """The arrays holding ``space`` (none when it is not held), to tell their size."""
        held = self._spaces.get(space)
        if held is None:
            return []
        return [*held.ids.values(), *held.counts.values(), held.length_of]

    def search(
        self, conn: Connection, space: str, terms: list[str], k: int
    ) -> list[tuple[int, float]] | None:
        """The ``k`` best (id, BM25) of ``space`` for the query ``terms``, as of the last
        catch-up (``held_index.catch_up``: a search catches up once, before its first read).

        None when the space is not held or the engine must search (an FTS5 phrase).
        """
        if space not in self._spaces:
            return None
        tokens = self._terms.searched(self._tokens(conn, terms))
        if tokens is None:
            return None
        with self._lock:  # ``top`` is not reentrant
            held = self._spaces.get(space)
            return None if held is None else held.top(tokens, k)

    def _tokens(self, conn: Connection, terms: list[str]) -> list[tuple[str, ...]]:
        found = {t: self._known[t] for t in terms if t in self._known}
        new = [t for t in dict.fromkeys(terms) if t not in found]
        if new:
            found.update(zip(new, self._terms.split(conn, new), strict=True))
            if len(self._known) + len(new) > _KNOWN_MAX:
                self._known.clear()
            self._known.update((t, found[t]) for t in new)
        return [found[t] for t in terms]

    def _apply(self, rows: list[Row]) -> None:
        latest = {int(r[1]): r for r in rows}  # each sentence as it is now
        fresh = [r for r in latest.values() if r[2] in self._spaces]
        counted = self._terms.counted([r[3:] for r in fresh])
        for space, held in self._spaces.items():
            held.remove(set(latest))
            held.add({int(r[1]): c for r, c in zip(fresh, counted, strict=True) if r[2] == space})

    def _read(self, conn: Connection, space: str) -> SpaceKeywords:
        import numpy as np

        from orma_proxy.store.keyword_postings import SpaceKeywords

        members = np.array([r[0] for r in conn.execute(_SPACE_IDS_SQL, (space,))], dtype=np.int64)
        postings = []
        for term, docs in self._terms.postings(conn, space):
            self._check_open()
            postings.append((term, np.array(docs.split(), dtype=np.int64)))
        return SpaceKeywords.build(postings, members)

    def _describe(self, held: SpaceKeywords) -> str:
        return f"{held.rows} sentences"

    async def close(self) -> None:
        await super().close()
        self._terms.close()
