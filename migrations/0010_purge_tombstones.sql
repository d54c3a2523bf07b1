-- Text purges of the last hour, seen by every process on the file. A write that
-- began before a purge and commits after it (the proxy recording a reply that
-- was streaming while `orma purge` ran in another process) checks these inside
-- its own write transaction, and leaves out an episode holding a purged text,
-- as the purge would have erased it. Never the text itself: its length in
-- characters and a salted SHA-256 of it folded as purge's lower() folds (ASCII
-- letters only). Rows older than an hour are deleted (forget/tombstones.py).
CREATE TABLE purge_tombstones (
    id         INTEGER PRIMARY KEY,
    space      TEXT NOT NULL,
    chars      INTEGER NOT NULL CHECK (chars > 0),
    salt       BLOB NOT NULL,
    digest     BLOB NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX purge_tombstones_space ON purge_tombstones (space, created_at);
