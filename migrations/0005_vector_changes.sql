-- Which sentences' vectors changed, in commit order. A process that holds a
-- space's bit vectors in memory (orma_proxy/store/vector_index.py) catches up
-- with what any process wrote by reading the rows after the last one it saw,
-- then looks at each sentence's current vector. Ids only, never text.
-- AUTOINCREMENT: a number is never reused, so "after the last one seen" is exact.
CREATE TABLE vector_changes (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    sentence_id INTEGER NOT NULL
);

CREATE TRIGGER vector_added AFTER INSERT ON sentence_vectors BEGIN
    INSERT INTO vector_changes (sentence_id) VALUES (new.sentence_id);
END;

CREATE TRIGGER vector_replaced AFTER UPDATE ON sentence_vectors BEGIN
    INSERT INTO vector_changes (sentence_id) VALUES (new.sentence_id);
END;

CREATE TRIGGER vector_removed AFTER DELETE ON sentence_vectors BEGIN
    INSERT INTO vector_changes (sentence_id) VALUES (old.sentence_id);
END;
