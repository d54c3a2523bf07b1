"""A space's keyword postings held in memory: BM25 top-k that a common word does not slow.

The postings and their MaxScore BM25 are ``keyword_postings.py``'s (loaded with the
first space held: a process that never holds one, ``orma stats``, never imports
numpy for it); this module keeps them for the spaces this process searches often,
and tokenizes as FTS5 does.

FTS5 stays the record; this is a cache that any process keeps correct. A space is
loaded from FTS5's own postings (``sentence_fts_instance``, migration 0014) in a
worker thread once it has been searched ``load_after`` times, so a one-shot
``orma search`` never pays for it. Every sentence inserted, deleted or re-worded is
logged in ``keyword_changes`` by trigger, and each search first applies the changes
after the last one seen (a new sentence's terms from a private FTS5 tokenizer of the
same spec): a purged sentence has left the index before the next search reads it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import sqlean

from orma_proxy.offload import in_thread
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.sentences import EVERY_SENTENCE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from orma_proxy.store.keyword_postings import SpaceKeywords

log = logging.getLogger(__name__)

TOKENIZE = "porter unicode61 remove_diacritics 2"  # sentence_fts's (migration 0012)

_KNOWN_MAX = 50_000  # query terms whose tokens are remembered
_LAST_SQL = "SELECT coalesce(max(seq), 0) FROM keyword_changes"
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


class _Closing(Exception):
    """The index closed while a space was loading."""


class KeywordIndex:
    """The keyword postings of the spaces this process searches often, kept current."""

    def __init__(self, path: Path, *, busy_timeout_ms: int, load_after: int, catch_up_max: int):
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._load_after = load_after
        self._catch_up_max = catch_up_max
        self._spaces: dict[str, SpaceKeywords] = {}
        self._searches: Counter[str] = Counter()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._applied = 0  # the last keyword_changes.seq every held space reflects
        self._lock = threading.Lock()  # searches, catch-ups and loads run in threads
        self._closing = threading.Event()
        self._tokenizer = Tokenizer()

    def holds(self, space: str) -> bool:
        return space in self._spaces

    async def settle(self) -> None:
        """Wait for the loads in flight (benchmarks and tests start timing after)."""
        await asyncio.gather(*self._loading.values(), return_exceptions=True)

    def held_arrays(self, space: str) -> list[npt.NDArray[np.generic]]:
        """The arrays holding ``space`` (none when it is not held), to tell their size."""
        held = self._spaces.get(space)
        if held is None:
            return []
        return [*held.ids.values(), *held.counts.values(), held.length_of]

    def use(self, space: str) -> bool:
        """Count a search of ``space`` (on the event loop); True if it can run in memory now."""
        if space in self._spaces:
            return True
        self._searches[space] += 1
        if 0 < self._load_after <= self._searches[space] and space not in self._loading:
            self._loading[space] = asyncio.create_task(self._load(space))
        return False

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
        with self._lock:
            self._catch_up(conn)
            held = self._spaces.get(space)
            return None if held is None else held.top([p[0] for p in phrases], k)

    def _catch_up(self, conn: Connection) -> None:
        rows = conn.execute(_CHANGES_SQL, (self._applied, self._catch_up_max + 1)).fetchall()
        if not rows:
            return
        if len(rows) > self._catch_up_max or any(r[1] == EVERY_SENTENCE for r in rows):
            # A bulk change (reloading beats patching), or FTS5 rebuilt (``orma reindex``).
            log.info("keyword index: FTS5 rebuilt or many changes; reloading spaces")
            self._spaces.clear()
            return
        latest = {int(r[1]): r for r in rows}  # each sentence as it is now
        fresh = [r for r in latest.values() if r[2] in self._spaces]
        counted = self._tokenizer.tokens([(r[3], r[4], r[5]) for r in fresh])
        for space, held in self._spaces.items():
            held.remove(set(latest))
            held.add({int(r[1]): c for r, c in zip(fresh, counted, strict=True) if r[2] == space})
        self._applied = int(rows[-1][0])

    async def _load(self, space: str) -> None:
        try:
            seq, held = await in_thread(lambda: self._read_space(space))
            with self._lock:
                # Changes between an older point and ``seq`` are applied again on the
                # next catch-up: taking a sentence out and back gives the same postings.
                self._applied = seq if not self._spaces else min(self._applied, seq)
                self._spaces[space] = held
            log.info("keyword index: %d sentences of space %r in memory", held.rows, space)
        except _Closing:
            return
        except (DatabaseError, OSError) as exc:
            log.warning("keyword index: loading space %r failed (%s); using FTS5", space, exc)
        finally:
            self._loading.pop(space, None)

    def _read_space(self, space: str) -> tuple[int, SpaceKeywords]:
        """One snapshot of ``space``: the change it reflects and its postings."""
        import numpy as np

        from orma_proxy.store.keyword_postings import SpaceKeywords

        conn = open_sync(self._path, busy_timeout_ms=self._busy_timeout_ms, read_only=True)
        try:
            conn.execute("BEGIN")
            seq = int(conn.execute(_LAST_SQL).fetchone()[0])
            members = np.array(
                [r[0] for r in conn.execute(_SPACE_IDS_SQL, (space,))], dtype=np.int64
            )
            postings = []
            for term, docs in conn.execute(_POSTINGS_SQL):
                if self._closing.is_set():
                    raise _Closing
                postings.append((str(term), np.array(docs.split(" "), dtype=np.int64)))
            conn.execute("COMMIT")
            return seq, SpaceKeywords.build(postings, members)
        finally:
            conn.close()

    async def close(self) -> None:
        self._closing.set()
        for task in list(self._loading.values()):
            task.cancel()
        await asyncio.gather(*self._loading.values(), return_exceptions=True)
        self._tokenizer.close()
