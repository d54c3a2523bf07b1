-- The keyword index a process holds in memory (orma_proxy/store/keyword_index.py)
-- is derived from FTS5, which stays the record. It loads a space's postings from
-- `sentence_fts_instance` (a view of the FTS5 index, no storage of its own) and
-- catches up with what any process wrote by reading `keyword_changes` after the
-- last row it saw: every sentence inserted, deleted or re-worded is logged here by
-- trigger, in commit order, so a purged sentence leaves the held index at the next
-- search. Ids only, never text. AUTOINCREMENT: a number is never reused.
CREATE VIRTUAL TABLE sentence_fts_instance USING fts5vocab(sentence_fts, 'instance');

CREATE TABLE keyword_changes (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    sentence_id INTEGER NOT NULL
);

CREATE TRIGGER keyword_added AFTER INSERT ON sentences BEGIN
    INSERT INTO keyword_changes (sentence_id) VALUES (new.id);
END;

CREATE TRIGGER keyword_removed AFTER DELETE ON sentences BEGIN
    INSERT INTO keyword_changes (sentence_id) VALUES (old.id);
END;

CREATE TRIGGER keyword_reworded AFTER UPDATE OF text, space, space_tag, dates ON sentences BEGIN
    INSERT INTO keyword_changes (sentence_id) VALUES (new.id);
END;
