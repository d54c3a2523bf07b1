-- The BM25 index follows the sentences by trigger, as sentence_grams does (0008):
-- every path that adds or deletes a sentence keeps it in step without saying so,
-- and an add() makes one statement fewer (one trip fewer to the writer's thread).
-- sentence_fts is an external-content table: a row is deleted with the values it
-- was indexed with.
CREATE TRIGGER sentence_fts_added AFTER INSERT ON sentences BEGIN
    INSERT INTO sentence_fts (rowid, text, space_tag) VALUES (new.id, new.text, new.space_tag);
END;

CREATE TRIGGER sentence_fts_deleted AFTER DELETE ON sentences BEGIN
    INSERT INTO sentence_fts (sentence_fts, rowid, text, space_tag)
    VALUES ('delete', old.id, old.text, old.space_tag);
END;
