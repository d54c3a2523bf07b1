"""SQLite storage: connections, migrations, the single writer, episodes and vectors."""

from orma_proxy.store.backup import backup
from orma_proxy.store.batches import (
    BatchRecord,
    RejectedItem,
    SleepBatch,
    last_batch,
    record_batch,
    record_rejections,
)
from orma_proxy.store.compact import compact
from orma_proxy.store.connect import Connection, DatabaseError, open_sync
from orma_proxy.store.consolidation import (
    Backlog,
    EpisodeSize,
    backlog,
    backlogs,
    clear_consolidation,
    episode_spaces,
    episodes_after,
    move_watermark,
    watermark_of,
)
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
from orma_proxy.store.leases import Lease, claim_lease, drop_lease, lease_of
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
from orma_proxy.store.transcript import first_sentence_id, said_before, sentence_row, transcript
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
    "Backlog",
    "BatchRecord",
    "Connection",
    "Database",
    "DatabaseError",
    "EpisodeSize",
    "Erasure",
    "Lease",
    "NewEpisode",
    "NewSentence",
    "Reader",
    "RecentEpisode",
    "RejectedItem",
    "Row",
    "Select",
    "SentenceRow",
    "SleepBatch",
    "VectorIndex",
    "Writer",
    "as_sync",
    "backlog",
    "backlogs",
    "backup",
    "cited_sentence",
    "claim_lease",
    "clear_consolidation",
    "compact",
    "connection_of",
    "delete_sentences",
    "drop_lease",
    "episode_spaces",
    "episodes_after",
    "erase_episodes",
    "execute_fn",
    "fetch_sentences",
    "first_sentence_id",
    "insert_episode",
    "insert_sentences",
    "last_batch",
    "lease_of",
    "move_citations",
    "move_watermark",
    "nearest_params",
    "open_async",
    "open_sync",
    "optimize_sentence_indexes",
    "pending_between",
    "pending_sentences",
    "recent_episodes",
    "record_batch",
    "record_rejections",
    "refresh_floor",
    "refusal",
    "reindex_sentences",
    "said_before",
    "sentence_ranges",
    "sentence_row",
    "space_tag",
    "store_vectors",
    "transcript",
    "watermark_of",
]
