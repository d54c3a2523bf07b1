-- A state id a user has seen (`orma facts`, then `orma forget N`) names that fact
-- or nothing, never another one. Two changes:
--
-- 1. AUTOINCREMENT: without it SQLite gives a new row max(id) + 1, so once the
--    highest states were deleted (`sleep --redo`, a purge) their ids went to new,
--    unrelated facts. SQLite cannot add it to a table, so the table is rebuilt
--    (same columns, same ids); foreign keys are checked at commit, once the
--    new table holds the name `states` again.
-- 2. removed_states: the ids a redo or a purge removed, by space. A redo keeps
--    what it reads as the same fact (entity, attribute, condition, value; the line
--    it cites first) so the fact found again takes its id back; the rest answer
--    "no longer exists". A purge keeps the id only, never the text it erased.
PRAGMA defer_foreign_keys = ON;
CREATE TABLE states_new (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
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
    created_at    REAL NOT NULL,
    released_by   INTEGER REFERENCES releases (id)
);
INSERT INTO states_new (id, space, entity_id, attribute, value, condition, prohibited, active,
    superseded_by, since, stated_at, valid_from, valid_to, end_reason, rehearsals, rehearsed_at,
    sentence_id, episode_id, created_at, released_by)
SELECT id, space, entity_id, attribute, value, condition, prohibited, active,
    superseded_by, since, stated_at, valid_from, valid_to, end_reason, rehearsals, rehearsed_at,
    sentence_id, episode_id, created_at, released_by
FROM states;
DROP TABLE states;
ALTER TABLE states_new RENAME TO states;
CREATE INDEX states_slot ON states (space, entity_id, attribute, active);
CREATE INDEX states_active ON states (space, id) WHERE active = 1;
CREATE INDEX states_sentence ON states (sentence_id);
CREATE INDEX states_released ON states (released_by) WHERE released_by IS NOT NULL;
CREATE INDEX states_closed ON states (space, valid_to) WHERE active = 0;

CREATE TABLE removed_states (
    id          INTEGER PRIMARY KEY,
    space       TEXT NOT NULL,
    reason      TEXT NOT NULL CHECK (reason IN ('redo', 'purge')),
    entity      TEXT,
    attribute   TEXT,
    value       TEXT,
    condition   TEXT,
    sentence_id INTEGER,
    removed_at  REAL NOT NULL
);
CREATE INDEX removed_states_fact ON removed_states (space, attribute, entity) WHERE reason = 'redo';
