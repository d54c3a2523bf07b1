"""SQLite storage: connections, migrations, the single writer, episodes and vectors."""

from orma_proxy.store.accesses import Access, access_times, add_accesses
from orma_proxy.store.backup import backup
from orma_proxy.store.compact import compact
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.counts import Counts, counts
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import (
    ROLES,
    NewEpisode,
    SentenceRow,
    fetch_sentences,
    insert_episode,
    sentence_ranges,
    space_tag,
)
from orma_proxy.store.erase import Erasure, erase_episodes
from orma_proxy.store.jobs import as_sync, connection_of
from orma_proxy.store.noise import refresh_floor
from orma_proxy.store.passages import (
    keyword_passages,
    nearest_passages,
    next_turns,
    pair_passages,
    speakers_among,
)
from orma_proxy.store.sentences import (
    NewSentence,
    delete_sentences,
    insert_sentences,
    move_citations,
    optimize_sentence_indexes,
    reindex_sentences,
)
from orma_proxy.store.threads import Reader, execute_fn, open_async
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import (
    VEC_TABLE,
    float_vectors,
    newest_sentence_id,
    pending_between,
    pending_sentences,
    store_vectors,
)
from orma_proxy.store.writer import Writer, refusal

# SQLite's largest integer: an id past it names no row, and binding it overflows.
MAX_ROW_ID = 2**63 - 1

__all__ = [
    "MAX_ROW_ID",
    "ROLES",
    "VEC_TABLE",
    "Access",
    "Connection",
    "Counts",
    "Database",
    "DatabaseError",
    "Erasure",
    "NewEpisode",
    "NewSentence",
    "Reader",
    "SentenceRow",
    "VectorIndex",
    "Writer",
    "access_times",
    "add_accesses",
    "as_sync",
    "backup",
    "compact",
    "connection_of",
    "counts",
    "delete_sentences",
    "erase_episodes",
    "execute_fn",
    "fetch_sentences",
    "float_vectors",
    "insert_episode",
    "insert_sentences",
    "keyword_passages",
    "move_citations",
    "nearest_passages",
    "newest_sentence_id",
    "next_turns",
    "open_async",
    "open_sync",
    "optimize_sentence_indexes",
    "pair_passages",
    "pending_between",
    "pending_sentences",
    "refresh_floor",
    "refusal",
    "reindex_sentences",
    "sentence_ranges",
    "space_tag",
    "speakers_among",
    "store_vectors",
]
