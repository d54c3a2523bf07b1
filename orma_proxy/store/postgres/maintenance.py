"""What a purge runs after its transaction on PostgreSQL: VACUUM of the tables it deletes from.

A DELETE leaves the old row versions in the table and index pages until a
VACUUM removes them; plain VACUUM takes no lock that stops readers or writers
(other replicas keep serving), and makes the space reusable, but does not
rewrite the files: bytes may stay in free space until overwritten, and in WAL
segments and base backups until those are recycled. ``VACUUM FULL`` rewrites
each table into new files but locks it whole while it runs: an operator's
choice at a quiet time (docs/postgresql.md).
"""

from __future__ import annotations

from orma_proxy.store.postgres.connection import connect

# Every table a purge (store/erase.py) deletes from or scrubs.
_PURGED = (
    "recall_history",
    "entity_links",
    "states",
    "events",
    "entities",
    "sentence_vectors",
    "sentences",
    "sentence_terms",
    "sleep_rejections",
    "sleep_batches",
    "releases",
    "episodes",
    "vector_changes",
    "keyword_changes",
)


def pg_compact(url: str) -> bool:
    """VACUUM the tables a purge touches (outside any transaction, as VACUUM must run)."""
    conn = connect(url, application_name="orma-purge")
    try:
        conn.execute("VACUUM " + ", ".join(_PURGED))
        return True
    finally:
        conn.close()
