-- BM25 for the keyword channel, as FTS5 ranks: PostgreSQL's ts_rank weighs neither how rare
-- a term is nor how long a sentence is. Each sentence keeps its token count (generated from
-- its words), and each space its sentence and token totals (kept by trigger), so a search
-- reads the statistics BM25 needs from one row (store/postgres/search.py).

CREATE FUNCTION orma_tokens(doc tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT coalesce(sum(coalesce(array_length(positions, 1), 1)), 0)::integer FROM unnest(doc) $$;

-- tsv's own expression (a generated column may not read another).
ALTER TABLE sentences ADD COLUMN tokens integer GENERATED ALWAYS AS (orma_tokens(
    to_tsvector('orma'::regconfig, text) || to_tsvector('simple'::regconfig, dates)
)) STORED;

CREATE TABLE space_text (
    space     text PRIMARY KEY,
    sentences bigint NOT NULL,
    tokens    bigint NOT NULL
);

INSERT INTO space_text (space, sentences, tokens)
SELECT space, count(*), sum(tokens) FROM sentences GROUP BY space;

CREATE FUNCTION orma_count_text() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        UPDATE space_text SET sentences = sentences - 1, tokens = tokens - OLD.tokens
        WHERE space = OLD.space;
    ELSE
        INSERT INTO space_text (space, sentences, tokens) VALUES (NEW.space, 1, NEW.tokens)
        ON CONFLICT (space) DO UPDATE SET sentences = space_text.sentences + 1,
            tokens = space_text.tokens + excluded.tokens;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER sentence_text_counted AFTER INSERT OR DELETE ON sentences
    FOR EACH ROW EXECUTE FUNCTION orma_count_text();
