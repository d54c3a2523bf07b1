-- The keyword channel's postings: one row per sentence and lexeme of its `tsv`, with the
-- lexeme's count there and the sentence's token count, so BM25 reads what it needs from one
-- index-only scan on (space, lexeme). Ranking from the GIN matches unnested every matched
-- sentence's tsvector: ~30 µs a match, 30 ms for a common word at 10,000 notes, against
-- ~2 ms here (bench.latency, docs/postgresql.md). Kept by trigger, so no path can leave
-- them behind, and a purged sentence's lexemes go with it.

CREATE TABLE sentence_terms (
    space       text NOT NULL,
    lexeme      text NOT NULL,
    sentence_id bigint NOT NULL,
    f           integer NOT NULL,
    tokens      integer NOT NULL,
    PRIMARY KEY (space, lexeme, sentence_id) INCLUDE (f, tokens)
);

INSERT INTO sentence_terms (space, lexeme, sentence_id, f, tokens)
SELECT s.space, u.lexeme, s.id, coalesce(array_length(u.positions, 1), 1), s.tokens
FROM sentences s, unnest(s.tsv) u;

CREATE FUNCTION orma_post_terms() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM sentence_terms
        WHERE space = OLD.space AND lexeme = ANY(tsvector_to_array(OLD.tsv))
          AND sentence_id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO sentence_terms (space, lexeme, sentence_id, f, tokens)
        SELECT NEW.space, u.lexeme, NEW.id, coalesce(array_length(u.positions, 1), 1), NEW.tokens
        FROM unnest(NEW.tsv) u;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER sentence_terms_posted AFTER INSERT OR DELETE ON sentences
    FOR EACH ROW EXECUTE FUNCTION orma_post_terms();
CREATE TRIGGER sentence_terms_moved AFTER UPDATE OF space, text, dates ON sentences
    FOR EACH ROW EXECUTE FUNCTION orma_post_terms();
