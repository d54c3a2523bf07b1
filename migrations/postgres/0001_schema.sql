-- Orma on PostgreSQL: the schema SQLite reaches after its migrations 0001-0012, in one step.
-- Same tables, columns and meanings (see ../0001_episodes.sql onwards); what differs is said
-- where it does. Times are Unix epoch seconds (double precision), UTC.

CREATE EXTENSION IF NOT EXISTS vector;

-- The SQLite functions the store's portable statements call.
CREATE FUNCTION json_extract(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT doc::jsonb #>> string_to_array(substr(path, 3), '.') $$;

CREATE FUNCTION instr(haystack text, needle text) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT strpos(haystack, needle) $$;

-- text/grams.py's cjk_grams: each CJK run as its overlapping character pairs.
CREATE FUNCTION orma_grams(t text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    run text;
    grams text[] := '{}';
BEGIN
    FOR run IN
        SELECT m[1] FROM regexp_matches(t, '([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+)', 'g') AS m
    LOOP
        IF char_length(run) = 1 THEN
            grams := grams || run;
        ELSE
            FOR i IN 1 .. char_length(run) - 1 LOOP
                grams := grams || substr(run, i, 2);
            END LOOP;
        END IF;
    END LOOP;
    RETURN grams;
END
$$;

-- FTS5's 'porter unicode61': English stems, no stop words (the query drops its own).
CREATE TEXT SEARCH DICTIONARY orma_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION orma (COPY = simple);
ALTER TEXT SEARCH CONFIGURATION orma
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
    WITH orma_stem;

-- Every foreign key is DEFERRABLE (checked per statement unless a transaction defers them):
-- an import writes rows before what they refer to, and checks them all before it commits.

-- SQLite's INTEGER PRIMARY KEY: a NULL id takes the next one, and an explicit id (an
-- import) moves the sequence past it, so the ids a later insert takes are still free.
CREATE FUNCTION orma_id() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.id IS NULL THEN
        NEW.id := nextval(TG_ARGV[0]::regclass);
    ELSIF NEW.id > coalesce(pg_sequence_last_value(TG_ARGV[0]::regclass), 0) THEN
        PERFORM setval(TG_ARGV[0]::regclass, NEW.id);
    END IF;
    RETURN NEW;
END
$$;

CREATE TABLE meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);

CREATE TABLE episodes (
    id         bigserial PRIMARY KEY,
    space      text NOT NULL,
    role       text NOT NULL CHECK (role IN ('user', 'assistant', 'note', 'document', 'tool')),
    text       text NOT NULL,
    source     text,
    said_at    double precision NOT NULL,
    created_at double precision NOT NULL,
    metadata   text NOT NULL DEFAULT '{}' CHECK (metadata::jsonb IS NOT NULL)
);
CREATE INDEX episodes_space ON episodes (space, id);
CREATE INDEX episodes_speaker ON episodes (space, lower(json_extract(metadata, '$.speaker')))
WHERE json_extract(metadata, '$.speaker') IS NOT NULL;

CREATE TABLE releases (
    id          bigserial PRIMARY KEY,
    space       text NOT NULL,
    query       text NOT NULL,
    created_at  double precision NOT NULL,
    restored_at double precision
);
CREATE INDEX releases_space ON releases (space, id);

-- `tsv` is FTS5's sentence_fts (the text stemmed, and the date terms as they are); `grams`
-- is sentence_grams (the CJK pairs). Both are generated: no path can leave them behind.
CREATE TABLE sentences (
    id            bigserial PRIMARY KEY,
    episode_id    bigint NOT NULL REFERENCES episodes (id) DEFERRABLE,
    space         text NOT NULL,
    position      integer NOT NULL,
    start         integer NOT NULL,
    text          text NOT NULL,
    space_tag     text NOT NULL,
    embedded      integer NOT NULL DEFAULT 0,
    superseded_by bigint,
    released_by   bigint REFERENCES releases (id) DEFERRABLE,
    dates         text NOT NULL DEFAULT '',
    tsv           tsvector GENERATED ALWAYS AS (
        to_tsvector('orma'::regconfig, text) || to_tsvector('simple'::regconfig, dates)
    ) STORED,
    grams         tsvector GENERATED ALWAYS AS (array_to_tsvector(orma_grams(text))) STORED
);
CREATE INDEX sentences_episode ON sentences (episode_id, position);
CREATE INDEX sentences_space ON sentences (space, id);
CREATE INDEX sentences_pending ON sentences (id) WHERE embedded = 0;
CREATE INDEX sentences_released ON sentences (released_by) WHERE released_by IS NOT NULL;
CREATE INDEX sentences_tsv ON sentences USING gin (tsv);
CREATE INDEX sentences_grams ON sentences USING gin (grams);

-- The float vectors, searched by pgvector. Their dimension (and the HNSW index) is set
-- once the embedding model is known (store/postgres/vectors.py: bind_model). `space`
-- is the sentence's, so a space's search filters the vectors without a join.
CREATE TABLE sentence_vectors (
    sentence_id bigint PRIMARY KEY REFERENCES sentences (id) DEFERRABLE,
    space       text NOT NULL,
    embedding   vector NOT NULL
);
CREATE INDEX sentence_vectors_space ON sentence_vectors (space);

CREATE TABLE space_stats (
    space         text PRIMARY KEY,
    noise_floor   double precision,
    sampled_count integer NOT NULL,
    updated_at    double precision NOT NULL
);

CREATE TABLE entities (
    id         bigserial PRIMARY KEY,
    space      text NOT NULL,
    name       text NOT NULL,
    kind       text NOT NULL DEFAULT 'person' CHECK (kind IN ('user', 'person', 'thing')),
    created_at double precision NOT NULL,
    UNIQUE (space, name)
);

CREATE TABLE states (
    id            bigserial PRIMARY KEY,
    space         text NOT NULL,
    entity_id     bigint NOT NULL REFERENCES entities (id) DEFERRABLE,
    attribute     text NOT NULL,
    value         text NOT NULL,
    condition     text NOT NULL DEFAULT '',
    prohibited    integer NOT NULL DEFAULT 0,
    active        integer NOT NULL DEFAULT 1,
    superseded_by bigint REFERENCES states (id) DEFERRABLE,
    since         text,
    stated_at     double precision NOT NULL,
    valid_from    double precision NOT NULL,
    valid_to      double precision,
    end_reason    text,
    rehearsals    integer NOT NULL DEFAULT 1,
    rehearsed_at  double precision,
    sentence_id   bigint NOT NULL REFERENCES sentences (id) DEFERRABLE,
    episode_id    bigint NOT NULL REFERENCES episodes (id) DEFERRABLE,
    created_at    double precision NOT NULL,
    released_by   bigint REFERENCES releases (id) DEFERRABLE
);
CREATE INDEX states_slot ON states (space, entity_id, attribute, active);
CREATE INDEX states_active ON states (space, id) WHERE active = 1;
CREATE INDEX states_sentence ON states (sentence_id);
CREATE INDEX states_released ON states (released_by) WHERE released_by IS NOT NULL;
CREATE INDEX states_closed ON states (space, valid_to) WHERE active = 0;

CREATE TABLE events (
    id          bigserial PRIMARY KEY,
    space       text NOT NULL,
    what        text NOT NULL,
    when_text   text NOT NULL DEFAULT '',
    date        text,
    precision   text CHECK (precision IN ('day', 'week', 'month', 'year')),
    who         text NOT NULL DEFAULT '[]' CHECK (who::jsonb IS NOT NULL),
    sentence_id bigint NOT NULL REFERENCES sentences (id) DEFERRABLE,
    episode_id  bigint NOT NULL REFERENCES episodes (id) DEFERRABLE,
    created_at  double precision NOT NULL,
    released_by bigint REFERENCES releases (id) DEFERRABLE
);
CREATE INDEX events_space ON events (space, date);
CREATE INDEX events_sentence ON events (sentence_id);
CREATE INDEX events_released ON events (released_by) WHERE released_by IS NOT NULL;

CREATE TABLE entity_links (
    entity_id bigint NOT NULL REFERENCES entities (id) DEFERRABLE,
    kind      text NOT NULL CHECK (kind IN ('state', 'event')),
    target_id bigint NOT NULL,
    space     text NOT NULL,
    PRIMARY KEY (entity_id, kind, target_id)
);
CREATE INDEX entity_links_target ON entity_links (kind, target_id, entity_id);

CREATE TABLE sleep_progress (
    space           text PRIMARY KEY,
    last_episode_id bigint NOT NULL,
    updated_at      double precision NOT NULL
);

CREATE TABLE sleep_batches (
    id               bigserial PRIMARY KEY,
    space            text NOT NULL,
    first_episode_id bigint NOT NULL,
    last_episode_id  bigint NOT NULL,
    episodes         integer NOT NULL,
    status           text NOT NULL CHECK (status IN ('applied', 'failed')),
    extractor        text NOT NULL,
    attempts         integer NOT NULL,
    error            text,
    llm_seconds      double precision NOT NULL DEFAULT 0,
    finished_at      double precision NOT NULL
);
CREATE INDEX sleep_batches_space ON sleep_batches (space, id);

CREATE TABLE sleep_rejections (
    id          bigserial PRIMARY KEY,
    batch_id    bigint NOT NULL REFERENCES sleep_batches (id) DEFERRABLE,
    space       text NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('state', 'event', 'name')),
    sentence_id bigint,
    item        text NOT NULL CHECK (item::jsonb IS NOT NULL),
    reason      text NOT NULL
);
CREATE INDEX sleep_rejections_batch ON sleep_rejections (batch_id);

CREATE TABLE sleep_leases (
    space      text PRIMARY KEY,
    holder     text NOT NULL,
    expires_at double precision NOT NULL
);

CREATE TABLE recall_history (
    space   text NOT NULL,
    kind    text NOT NULL CHECK (kind IN ('passage', 'state', 'event')),
    item_id bigint NOT NULL,
    times   bytea NOT NULL,
    PRIMARY KEY (space, kind, item_id)
);

CREATE TABLE audit (
    id        bigserial PRIMARY KEY,
    at        double precision NOT NULL,
    space     text NOT NULL,
    operation text NOT NULL CHECK (operation IN ('supersede', 'release', 'unrelease', 'purge')),
    ids       text NOT NULL CHECK (ids::jsonb IS NOT NULL),
    count     integer NOT NULL
);
CREATE INDEX audit_space ON audit (space, id);

CREATE TABLE purge_tombstones (
    id         bigserial PRIMARY KEY,
    space      text NOT NULL,
    chars      integer NOT NULL CHECK (chars > 0),
    salt       bytea NOT NULL,
    digest     bytea NOT NULL,
    created_at double precision NOT NULL
);
CREATE INDEX purge_tombstones_space ON purge_tombstones (space, created_at);

-- Every table whose id SQLite would pick: the same rule here (orma_id above).
CREATE TRIGGER episodes_id BEFORE INSERT ON episodes
    FOR EACH ROW EXECUTE FUNCTION orma_id('episodes_id_seq');
CREATE TRIGGER releases_id BEFORE INSERT ON releases
    FOR EACH ROW EXECUTE FUNCTION orma_id('releases_id_seq');
CREATE TRIGGER sentences_id BEFORE INSERT ON sentences
    FOR EACH ROW EXECUTE FUNCTION orma_id('sentences_id_seq');
CREATE TRIGGER entities_id BEFORE INSERT ON entities
    FOR EACH ROW EXECUTE FUNCTION orma_id('entities_id_seq');
CREATE TRIGGER states_id BEFORE INSERT ON states
    FOR EACH ROW EXECUTE FUNCTION orma_id('states_id_seq');
CREATE TRIGGER events_id BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION orma_id('events_id_seq');
CREATE TRIGGER sleep_batches_id BEFORE INSERT ON sleep_batches
    FOR EACH ROW EXECUTE FUNCTION orma_id('sleep_batches_id_seq');
CREATE TRIGGER sleep_rejections_id BEFORE INSERT ON sleep_rejections
    FOR EACH ROW EXECUTE FUNCTION orma_id('sleep_rejections_id_seq');
CREATE TRIGGER audit_id BEFORE INSERT ON audit
    FOR EACH ROW EXECUTE FUNCTION orma_id('audit_id_seq');
CREATE TRIGGER purge_tombstones_id BEFORE INSERT ON purge_tombstones
    FOR EACH ROW EXECUTE FUNCTION orma_id('purge_tombstones_id_seq');

-- SQLite's migration 0005: which sentences' vectors changed, in commit order.
CREATE TABLE vector_changes (
    seq         bigserial PRIMARY KEY,
    sentence_id bigint NOT NULL
);

CREATE FUNCTION orma_vector_changed() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        INSERT INTO vector_changes (sentence_id) VALUES (OLD.sentence_id);
    ELSE
        INSERT INTO vector_changes (sentence_id) VALUES (NEW.sentence_id);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER vector_changed AFTER INSERT OR UPDATE OR DELETE ON sentence_vectors
    FOR EACH ROW EXECUTE FUNCTION orma_vector_changed();

-- SQLite's migration 0006: how many sentences of each space have their vector.
CREATE TABLE space_counts (
    space    text PRIMARY KEY,
    embedded integer NOT NULL
);

CREATE FUNCTION orma_count_embedded() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE space_counts SET embedded = embedded - 1 WHERE space = OLD.space;
    ELSIF TG_OP = 'INSERT' THEN
        INSERT INTO space_counts (space, embedded) VALUES (NEW.space, 1)
        ON CONFLICT (space) DO UPDATE SET embedded = space_counts.embedded + 1;
    ELSE
        INSERT INTO space_counts (space, embedded) VALUES (NEW.space, NEW.embedded)
        ON CONFLICT (space)
        DO UPDATE SET embedded = space_counts.embedded + (NEW.embedded - OLD.embedded);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER sentence_added_embedded AFTER INSERT ON sentences
    FOR EACH ROW WHEN (NEW.embedded = 1) EXECUTE FUNCTION orma_count_embedded();
CREATE TRIGGER sentence_embedded AFTER UPDATE OF embedded ON sentences
    FOR EACH ROW WHEN (NEW.embedded <> OLD.embedded) EXECUTE FUNCTION orma_count_embedded();
CREATE TRIGGER sentence_removed_embedded AFTER DELETE ON sentences
    FOR EACH ROW WHEN (OLD.embedded = 1) EXECUTE FUNCTION orma_count_embedded();
