"""A space's keyword postings held in memory: BM25 top-k that a common word does not slow.

The postings and their MaxScore BM25 are ``keyword_postings.py``'s (loaded with the
first space held: a process that never holds one, ``orma stats``, never imports
numpy for it); this module keeps them for the spaces this process searches often,
and tokenizes as FTS5 does.

FTS5 stays the record; this is a cache loaded from FTS5's own postings
(``sentence_fts_instance``, migration 0014) and kept current from ``keyword_changes``
(``held_index.py``) before each search, a changed sentence's terms from a private FTS5
tokenizer of the same spec: a purged sentence has left it before the next search.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import sqlean

from orma_proxy.store.connect import Connection
from orma_proxy.store.held_index import KEYWORD_LOG, HeldIndex, Row

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from orma_proxy.store.keyword_postings import SpaceKeywords

TOKENIZE = "porter unicode61 remove_diacritics 2"  # sentence_fts's (migration 0012)

_KNOWN_MAX = 50_000  # query terms whose tokens are remembered
_SPACE_IDS_SQL = "SELECT id FROM sentences WHERE space = ?"
# FTS5's postings, term by term, each term's sentences in id order (one per occurrence).
_POSTINGS_SQL = "SELECT term, group_concat(doc, ' ') FROM sentence_fts_instance GROUP BY term"
_CHANGES_SQL = (
    "SELECT c.seq, c.sentence_id, s.space, s.text, s.space_tag, s.dates FROM keyword_changes c "
    "LEFT JOIN sentences s ON s.id = c.sentence_id WHERE c.seq > ? ORDER BY c.seq LIMIT ?"
)


class Tokenizer:
    """FTS5's tokenizer of ``sentence_fts`` (same spec) on a private in-memory table."""

    def __init__(self) -> None:
        self._conn = sqlean.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize = '{TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
        self._lock = threading.Lock()
        self._known: dict[str, tuple[str, ...]] = {}

    def tokens(self, rows: list[tuple[str, str, str]]) -> list[Counter[str]]:
        """Each row's tokens over its three columns, counted."""
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

    def phrases(self, terms: list[str]) -> list[tuple[str, ...]]:
        """Each query term's tokens in order (remembered: queries repeat their words)."""
        new = [t for t in dict.fromkeys(terms) if t not in self._known]
        if new:
            if len(self._known) + len(new) > _KNOWN_MAX:
                self._known.clear()
            with self._lock:
                self._conn.executemany(
                    "INSERT INTO t (rowid, a) VALUES (?, ?)", list(enumerate(new))
                )
                spans = self._conn.execute("SELECT doc, term FROM v ORDER BY doc, offset")
                found: dict[int, list[str]] = {}
                for doc, term in spans:
                    found.setdefault(doc, []).append(term)
                self._conn.execute("DELETE FROM t")
            self._known.update({t: tuple(found.get(i, ())) for i, t in enumerate(new)})
        return [self._known[t] for t in terms]

    def close(self) -> None:
        self._conn.close()


class KeywordIndex(HeldIndex["SpaceKeywords"]):
    """The keyword postings of the spaces this process searches often, kept current."""

    _log = KEYWORD_LOG
    _changes_sql = _CHANGES_SQL
    _name = "keyword index"

    def __init__(self, path: Path, **options: int) -> None:
        super().__init__(path, **options)  # busy_timeout_ms, load_after, catch_up_max
        self._tokenizer = Tokenizer()

    def held_arrays(self, space: str) -> list[npt.NDArray[np.generic]]:
        """The arrays holding ``space`` (none when it is not held), to tell their size."""
        held = self._spaces.get(space)
        if held is None:
            return []
        return [*held.ids.values(), *held.counts.values(), held.length_of]

    def search(
        self, conn: Connection, space: str, terms: list[str], k: int
    ) -> list[tuple[int, float]] | None:
        """The ``k`` best (id, BM25) of ``space`` for the query ``terms``, after catching up.

        None when the space is not held or a term is not one token (a phrase: FTS5's).
        """
        if space not in self._spaces:
            return None
        phrases = self._tokenizer.phrases(terms)
        if any(len(tokens) != 1 for tokens in phrases):
            return None
        with self._lock:  # ``top`` is not reentrant
            self.caught_up(conn)
            held = self._spaces.get(space)
            return None if held is None else held.top([p[0] for p in phrases], k)

    def _apply(self, rows: list[Row]) -> None:
        latest = {int(r[1]): r for r in rows}  # each sentence as it is now
        fresh = [r for r in latest.values() if r[2] in self._spaces]
        counted = self._tokenizer.tokens([(r[3], r[4], r[5]) for r in fresh])
        for space, held in self._spaces.items():
            held.remove(set(latest))
            held.add({int(r[1]): c for r, c in zip(fresh, counted, strict=True) if r[2] == space})

    def _read(self, conn: Connection, space: str) -> SpaceKeywords:
        import numpy as np

        from orma_proxy.store.keyword_postings import SpaceKeywords

        members = np.array([r[0] for r in conn.execute(_SPACE_IDS_SQL, (space,))], dtype=np.int64)
        postings = []
        for term, docs in conn.execute(_POSTINGS_SQL):
            self._check_open()
            postings.append((str(term), np.array(docs.split(" "), dtype=np.int64)))
        return SpaceKeywords.build(postings, members)

    def _describe(self, held: SpaceKeywords) -> str:
        return f"{held.rows} sentences"

    async def close(self) -> None:
        await super().close()
        self._tokenizer.close()
