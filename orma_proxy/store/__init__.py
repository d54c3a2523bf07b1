"""SQLite storage: connections, migrations, the single writer, and the SQL the features run.

Episodes, sentences and vectors, and what forgetting and portability read and
write (the audit trail, releases, tombstones, export and import): plain sync
functions of a connection, typed in and out, so another backend could stand
behind the same names.
"""

from orma_proxy.inputs import ROLES
from orma_proxy.store.accesses import Access, access_times, add_accesses
from orma_proxy.store.audit import AuditRow, audit_rows, insert_audit
from orma_proxy.store.backup import backup
from orma_proxy.store.batches import (
    BatchRecord,
    BatchTry,
    RejectedItem,
    SleepBatch,
    batch_outcomes,
    batch_tries,
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
from orma_proxy.store.counts import Counts, counts, database_bytes
from orma_proxy.store.database import Database
from orma_proxy.store.episodes import (
    NewEpisode,
    RecentEpisode,
    SentenceRow,
    cited_sentence,
    fetch_sentences,
    insert_episode,
    recent_episodes,
    sentence_ranges,
    space_tag,
    stored_at,
)
from orma_proxy.store.erase import Erasure, erase_episodes
from orma_proxy.store.held_index import prune_change_logs
from orma_proxy.store.keyword_index import KeywordIndex
from orma_proxy.store.leases import Lease, claim_lease, drop_lease, lease_of
from orma_proxy.store.lines import (
    StoredLine,
    corrected_lines,
    current_sentences,
    episode_texts,
    episodes_in_space,
    episodes_saying,
    first_sentence,
    mark_superseded,
    on_topic,
    sentence_texts,
    sentences_of_episodes,
    sentences_saying,
    space_lines,
)
from orma_proxy.store.noise import refresh_floor
from orma_proxy.store.passages import (
    keyword_passages,
    nearest_passages,
    next_turns,
    pair_passages,
    speakers_among,
)
from orma_proxy.store.releases import (
    Release,
    insert_release,
    mark_sentences_released,
    release_in,
    restore_release,
    sentences_released_by,
)
from orma_proxy.store.rows import IN_IDS, as_record, id_list, int_column, named_rows
from orma_proxy.store.select import Row, Select
from orma_proxy.store.sentences import (
    NewSentence,
    delete_sentences,
    insert_sentences,
    move_citations,
    optimize_sentence_indexes,
    reindex_sentences,
    split_sentence,
)
from orma_proxy.store.splits import (
    SplitEpisode,
    SplitSentence,
    count_sentences,
    episode_ids,
    episode_sentences,
    split_episode,
)
from orma_proxy.store.tables import (
    BrokenReference,
    broken_reference,
    count_rows,
    defer_foreign_keys,
    has_rows,
    insert_rows,
    read_rows,
    snapshot,
)
from orma_proxy.store.threads import Reader, execute_fn, open_async
from orma_proxy.store.tombstones import (
    Tombstone,
    expire_tombstones,
    insert_tombstone,
    tombstones_since,
)
from orma_proxy.store.transcript import first_sentence_id, said_before, sentence_row, transcript
from orma_proxy.store.vector_index import VectorIndex
from orma_proxy.store.vectors import (
    VEC_TABLE,
    float_vectors,
    newest_sentence_id,
    pending_between,
    pending_sentences,
    recent_vectors,
    store_vectors,
)
from orma_proxy.store.writer import Writer, refusal, unavailable
from orma_proxy.store.zeroing import secure_delete

# SQLite's largest integer: an id past it names no row, and binding it overflows.
MAX_ROW_ID = 2**63 - 1

__all__ = [
    "IN_IDS",
    "MAX_ROW_ID",
    "ROLES",
    "VEC_TABLE",
    "Access",
    "AuditRow",
    "Backlog",
    "BatchRecord",
    "BatchTry",
    "BrokenReference",
    "Connection",
    "Counts",
    "Database",
    "DatabaseError",
    "EpisodeSize",
    "Erasure",
    "KeywordIndex",
    "Lease",
    "NewEpisode",
    "NewSentence",
    "Reader",
    "RecentEpisode",
    "RejectedItem",
    "Release",
    "Row",
    "Select",
    "SentenceRow",
    "SleepBatch",
    "SplitEpisode",
    "SplitSentence",
    "StoredLine",
    "Tombstone",
    "VectorIndex",
    "Writer",
    "access_times",
    "add_accesses",
    "as_record",
    "audit_rows",
    "backlog",
    "backlogs",
    "backup",
    "batch_outcomes",
    "batch_tries",
    "broken_reference",
    "cited_sentence",
    "claim_lease",
    "clear_consolidation",
    "compact",
    "corrected_lines",
    "count_rows",
    "count_sentences",
    "counts",
    "current_sentences",
    "database_bytes",
    "defer_foreign_keys",
    "delete_sentences",
    "drop_lease",
    "episode_ids",
    "episode_sentences",
    "episode_spaces",
    "episode_texts",
    "episodes_after",
    "episodes_in_space",
    "episodes_saying",
    "erase_episodes",
    "execute_fn",
    "expire_tombstones",
    "fetch_sentences",
    "first_sentence",
    "first_sentence_id",
    "float_vectors",
    "has_rows",
    "id_list",
    "insert_audit",
    "insert_episode",
    "insert_release",
    "insert_rows",
    "insert_sentences",
    "insert_tombstone",
    "int_column",
    "keyword_passages",
    "last_batch",
    "lease_of",
    "mark_sentences_released",
    "mark_superseded",
    "move_citations",
    "move_watermark",
    "named_rows",
    "nearest_passages",
    "newest_sentence_id",
    "next_turns",
    "on_topic",
    "open_async",
    "open_sync",
    "optimize_sentence_indexes",
    "pair_passages",
    "pending_between",
    "pending_sentences",
    "prune_change_logs",
    "read_rows",
    "recent_episodes",
    "recent_vectors",
    "record_batch",
    "record_rejections",
    "refresh_floor",
    "refusal",
    "reindex_sentences",
    "release_in",
    "restore_release",
    "said_before",
    "secure_delete",
    "sentence_ranges",
    "sentence_row",
    "sentence_texts",
    "sentences_of_episodes",
    "sentences_released_by",
    "sentences_saying",
    "snapshot",
    "space_lines",
    "space_tag",
    "speakers_among",
    "split_episode",
    "split_sentence",
    "store_vectors",
    "stored_at",
    "tombstones_since",
    "transcript",
    "unavailable",
    "watermark_of",
]
