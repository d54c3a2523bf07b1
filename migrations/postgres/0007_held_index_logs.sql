-- The change logs of the indexes a process holds in memory (orma_proxy/store/held_index.py),
-- as SQLite's 0005 (vectors) and 0014 (keywords): every sentence whose vector or whose
-- keyword postings (`sentence_terms`, migration 0004) changed, by id, never text.
--
-- A process applies the rows after the last one it saw, so a row must never become visible
-- after a row with a higher seq: a bigserial alone is not commit order (a transaction taking
-- seq 10 may commit after one taking 11, and a reader between the two commits would skip 10
-- for good). So the rows are written at commit, by DEFERRED constraint triggers, each
-- transaction taking one advisory lock first: seqs are handed out in commit order, and a
-- transaction's lock is released only once its commit is visible. It is held from the commit's
-- first deferred trigger to the commit's end, not while the transaction runs, and whoever
-- waits for it is committing too: commits of sentence changes take turns (every write does on
-- SQLite), and two seldom wait on each other (a deadlock PostgreSQL breaks; the writer retries).

CREATE FUNCTION orma_log_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1869769059);  -- 0x6F726D63, "ormc": the logs' turn
    IF TG_ARGV[0] = 'keyword_changes' THEN
        INSERT INTO keyword_changes (sentence_id)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END);
    ELSE
        INSERT INTO vector_changes (sentence_id)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.sentence_id ELSE NEW.sentence_id END);
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER vector_changed ON sentence_vectors;
DROP FUNCTION orma_vector_changed();
CREATE CONSTRAINT TRIGGER vector_changed AFTER INSERT OR UPDATE OR DELETE ON sentence_vectors
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION orma_log_change('vector_changes');

CREATE TABLE keyword_changes (
    seq         bigserial PRIMARY KEY,
    sentence_id bigint NOT NULL
);

-- What `sentence_terms` follows (migration 0004's triggers): a sentence added, deleted, or
-- with another space, text or dates.
CREATE CONSTRAINT TRIGGER keyword_changed AFTER INSERT OR DELETE ON sentences
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION orma_log_change('keyword_changes');
CREATE CONSTRAINT TRIGGER keyword_reworded AFTER UPDATE OF space, text, dates ON sentences
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION orma_log_change('keyword_changes');
