-- The state ids a redo or a purge removed, by space (SQLite's 0013_state_ids.sql says
-- why). A bigserial never hands an id out twice, so states needs no change here.
CREATE TABLE removed_states (
    id          bigint PRIMARY KEY,
    space       text NOT NULL,
    reason      text NOT NULL CHECK (reason IN ('redo', 'purge')),
    entity      text,
    attribute   text,
    value       text,
    condition   text,
    sentence_id bigint,
    removed_at  double precision NOT NULL
);
CREATE INDEX removed_states_fact ON removed_states (space, attribute, entity) WHERE reason = 'redo';
