"""SQLite storage: connections, migrations, the single writer, episodes and vectors."""

from orma_proxy.store.backup import backup
from orma_proxy.store.batches import SleepBatch, last_batch
from orma_proxy.store.compact import compact
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import (
    ROLES,
    SPEAKERS_SQL,
    NewEpisode,
    RecentEpisode,
    SentenceRow,
    cited_sentence,
    fetch_sentences,
    insert_episode,
    recent_episodes,
    sentence_ranges,
    space_tag,
)
from orma_proxy.store.erase import Erasure, erase_episodes
from orma_proxy.store.jobs import as_sync, connection_of
from orma_proxy.store.noise import refresh_floor
from orma_proxy.store.select import Row, Select
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
    INDEX_NEAREST_SQL,
    NEAREST_SQL,
    VEC_TABLE,
    nearest_params,
    pending_between,
    pending_sentences,
    store_vectors,
)
from orma_proxy.store.writer import Writer, refusal

# SQLite's largest integer: an id past it names no row, and binding it overflows.
MAX_ROW_ID = 2**63 - 1

__all__ = [
    "INDEX_NEAREST_SQL",
    "MAX_ROW_ID",
    "NEAREST_SQL",
    "ROLES",
    "SPEAKERS_SQL",
    "VEC_TABLE",
    "Connection",
    "Database",
    "DatabaseError",
    "Erasure",
    "NewEpisode",
    "NewSentence",
    "Reader",
    "RecentEpisode",
    "Row",
    "Select",
    "SentenceRow",
    "SleepBatch",
    "VectorIndex",
    "Writer",
    "as_sync",
    "backup",
    "cited_sentence",
    "compact",
    "connection_of",
    "delete_sentences",
    "erase_episodes",
    "execute_fn",
    "fetch_sentences",
    "insert_episode",
    "insert_sentences",
    "last_batch",
    "move_citations",
    "nearest_params",
    "open_async",
    "open_sync",
    "optimize_sentence_indexes",
    "pending_between",
    "pending_sentences",
    "recent_episodes",
    "refresh_floor",
    "refusal",
    "reindex_sentences",
    "sentence_ranges",
    "space_tag",
    "store_vectors",
]
