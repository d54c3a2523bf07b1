-- Sleep consolidation: states and events extracted from episodes, the entity
-- graph linking them, and the bookkeeping that makes consolidation resumable.
-- Episodes are never modified; everything here can be rebuilt from them.
-- Times are Unix epoch seconds (REAL), UTC; dates are ISO 'YYYY-MM-DD' in the
-- configured timezone.

-- People and things that states and events are about. 'user' is the person
-- talking to the model; others are named people, places, organisations.
CREATE TABLE entities (
    id         INTEGER PRIMARY KEY,
    space      TEXT NOT NULL,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'person' CHECK (kind IN ('user', 'person', 'thing')),
    created_at REAL NOT NULL,
    UNIQUE (space, name)
);

-- Single-valued facts about an entity. A categorical state (condition = '')
-- is closed when a different value is stated later; a conditional one never
-- closes the baseline. `stated_at` orders statements (when the line was said);
-- `valid_from` is when it became true (a resolved "since" date, else stated_at).
CREATE TABLE states (
    id            INTEGER PRIMARY KEY,
    space         TEXT NOT NULL,
    entity_id     INTEGER NOT NULL REFERENCES entities (id),
    attribute     TEXT NOT NULL,
    value         TEXT NOT NULL,
    condition     TEXT NOT NULL DEFAULT '',
    prohibited    INTEGER NOT NULL DEFAULT 0,
    active        INTEGER NOT NULL DEFAULT 1,
    superseded_by INTEGER REFERENCES states (id),
    since         TEXT,
    stated_at     REAL NOT NULL,
    valid_from    REAL NOT NULL,
    valid_to      REAL,
    end_reason    TEXT,
    rehearsals    INTEGER NOT NULL DEFAULT 1,
    rehearsed_at  REAL,
    sentence_id   INTEGER NOT NULL REFERENCES sentences (id),
    episode_id    INTEGER NOT NULL REFERENCES episodes (id),
    created_at    REAL NOT NULL
);
CREATE INDEX states_slot ON states (space, entity_id, attribute, active);
CREATE INDEX states_active ON states (space, id) WHERE active = 1;
CREATE INDEX states_sentence ON states (sentence_id);

-- Dated happenings. `date` is resolved by code from the cited line and the
-- moment it was said; `precision` says how exact it is (day, week, month, year).
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    space       TEXT NOT NULL,
    what        TEXT NOT NULL,
    when_text   TEXT NOT NULL DEFAULT '',
    date        TEXT,
    precision   TEXT CHECK (precision IN ('day', 'week', 'month', 'year')),
    who         TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(who)),
    sentence_id INTEGER NOT NULL REFERENCES sentences (id),
    episode_id  INTEGER NOT NULL REFERENCES episodes (id),
    created_at  REAL NOT NULL
);
CREATE INDEX events_space ON events (space, date);
CREATE INDEX events_sentence ON events (sentence_id);

-- Entity <-> state/event adjacency, walked both ways by spreading activation.
CREATE TABLE entity_links (
    entity_id INTEGER NOT NULL REFERENCES entities (id),
    kind      TEXT NOT NULL CHECK (kind IN ('state', 'event')),
    target_id INTEGER NOT NULL,
    space     TEXT NOT NULL,
    PRIMARY KEY (entity_id, kind, target_id)
) WITHOUT ROWID;
CREATE INDEX entity_links_target ON entity_links (kind, target_id, entity_id);

-- Per-space watermark: every episode with id <= last_episode_id is consolidated.
-- Advanced in the same transaction that applies a batch, so a crash leaves the
-- batch pending and never half-applied.
CREATE TABLE sleep_progress (
    space           TEXT PRIMARY KEY,
    last_episode_id INTEGER NOT NULL,
    updated_at      REAL NOT NULL
);

-- One row per batch attempted: applied, or failed with the error kept.
CREATE TABLE sleep_batches (
    id               INTEGER PRIMARY KEY,
    space            TEXT NOT NULL,
    first_episode_id INTEGER NOT NULL,
    last_episode_id  INTEGER NOT NULL,
    episodes         INTEGER NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('applied', 'failed')),
    extractor        TEXT NOT NULL,
    attempts         INTEGER NOT NULL,
    error            TEXT,
    llm_seconds      REAL NOT NULL DEFAULT 0,
    finished_at      REAL NOT NULL
);
CREATE INDEX sleep_batches_space ON sleep_batches (space, id);

-- What verification refused, and why (kept for `orma sleep` reports and audits).
CREATE TABLE sleep_rejections (
    id          INTEGER PRIMARY KEY,
    batch_id    INTEGER NOT NULL REFERENCES sleep_batches (id),
    space       TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('state', 'event', 'name')),
    sentence_id INTEGER,
    item        TEXT NOT NULL CHECK (json_valid(item)),
    reason      TEXT NOT NULL
);
CREATE INDEX sleep_rejections_batch ON sleep_rejections (batch_id);

-- At most one consolidation of a space at a time, across processes. A holder
-- that died leaves a row whose expiry lets the next one take over.
CREATE TABLE sleep_leases (
    space      TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    expires_at REAL NOT NULL
);
