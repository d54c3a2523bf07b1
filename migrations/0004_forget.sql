-- Forgetting on request: corrections (supersede), soft forgetting (release) and
-- the audit of every such action and of hard deletes (purge). Append-only stays
-- the default; these columns are only ever set by a deliberate user action.
-- Times are Unix epoch seconds (REAL), UTC.

-- One row per `release`: a topic the user asked recall to stop showing.
-- Undone by `unrelease`, which sets `restored_at`; nothing is ever deleted.
CREATE TABLE releases (
    id          INTEGER PRIMARY KEY,
    space       TEXT NOT NULL,
    query       TEXT NOT NULL,
    created_at  REAL NOT NULL,
    restored_at REAL
);
CREATE INDEX releases_space ON releases (space, id);

-- A sentence the user corrected: the episode holding the correction. No
-- foreign key: that episode may itself be purged later, and the sentence stays
-- corrected all the same.
ALTER TABLE sentences ADD COLUMN superseded_by INTEGER;
-- The release hiding a sentence, state or event from recall (NULL = shown).
ALTER TABLE sentences ADD COLUMN released_by INTEGER REFERENCES releases (id);
ALTER TABLE states ADD COLUMN released_by INTEGER REFERENCES releases (id);
ALTER TABLE events ADD COLUMN released_by INTEGER REFERENCES releases (id);
CREATE INDEX sentences_released ON sentences (released_by) WHERE released_by IS NOT NULL;
CREATE INDEX states_released ON states (released_by) WHERE released_by IS NOT NULL;
CREATE INDEX events_released ON events (released_by) WHERE released_by IS NOT NULL;

-- Every supersede, release, unrelease and purge: when, where, what, which ids
-- and how many. Never any text: a purge's audit row must not keep what it removed.
CREATE TABLE audit (
    id        INTEGER PRIMARY KEY,
    at        REAL NOT NULL,
    space     TEXT NOT NULL,
    operation TEXT NOT NULL CHECK (operation IN ('supersede', 'release', 'unrelease', 'purge')),
    ids       TEXT NOT NULL CHECK (json_valid(ids)),
    count     INTEGER NOT NULL
);
CREATE INDEX audit_space ON audit (space, id);
