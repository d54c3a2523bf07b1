-- Episodes (append-only), their sentences, full-text and vector indexes.
-- Times are Unix epoch seconds (REAL), UTC.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE episodes (
    id         INTEGER PRIMARY KEY,
    space      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'note', 'document', 'tool')),
    text       TEXT NOT NULL,
    source     TEXT,
    said_at    REAL NOT NULL,
    created_at REAL NOT NULL,
    metadata   TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata))
);
CREATE INDEX episodes_space ON episodes (space, id);

-- The unit of recall and of citation. `start` is the character offset in the episode.
CREATE TABLE sentences (
    id         INTEGER PRIMARY KEY,
    episode_id INTEGER NOT NULL REFERENCES episodes (id),
    space      TEXT NOT NULL,
    position   INTEGER NOT NULL,
    start      INTEGER NOT NULL,
    text       TEXT NOT NULL,
    space_tag  TEXT NOT NULL,
    embedded   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sentences_episode ON sentences (episode_id, position);
CREATE INDEX sentences_space ON sentences (space, id);
CREATE INDEX sentences_pending ON sentences (id) WHERE embedded = 0;

-- BM25 index over sentences; `space_tag` is one opaque token per space so a
-- search only walks its own space's postings.
CREATE VIRTUAL TABLE sentence_fts USING fts5 (
    text, space_tag,
    content = 'sentences', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Full-precision vectors, used to re-rank the binary-quantised sqlite-vec
-- candidates and to sample the noise floor. The vec0 table itself is created
-- at open time, once the embedding dimension is known.
CREATE TABLE sentence_vectors (
    sentence_id INTEGER PRIMARY KEY REFERENCES sentences (id),
    embedding   BLOB NOT NULL
);

CREATE TABLE space_stats (
    space         TEXT PRIMARY KEY,
    noise_floor   REAL,
    sampled_count INTEGER NOT NULL,
    updated_at    REAL NOT NULL
);
