-- How many sentences of each space have their vector, kept by triggers so that
-- the background indexer's noise-floor check reads one row instead of counting
-- the space (12 ms at 20,000 sentences, inside the write transaction, on every
-- indexer step). Every path that embeds, re-embeds, deletes or purges sentences
-- goes through these triggers, so the count cannot drift.
CREATE TABLE space_counts (
    space    TEXT PRIMARY KEY,
    embedded INTEGER NOT NULL
);

INSERT INTO space_counts (space, embedded)
SELECT space, count(*) FROM sentences WHERE embedded = 1 GROUP BY space;

CREATE TRIGGER sentence_added_embedded AFTER INSERT ON sentences WHEN new.embedded = 1 BEGIN
    INSERT INTO space_counts (space, embedded) VALUES (new.space, 1)
    ON CONFLICT (space) DO UPDATE SET embedded = embedded + 1;
END;

CREATE TRIGGER sentence_embedded AFTER UPDATE OF embedded ON sentences
WHEN new.embedded != old.embedded BEGIN
    INSERT INTO space_counts (space, embedded) VALUES (new.space, new.embedded)
    ON CONFLICT (space) DO UPDATE SET embedded = embedded + (new.embedded - old.embedded);
END;

CREATE TRIGGER sentence_removed_embedded AFTER DELETE ON sentences WHEN old.embedded = 1 BEGIN
    UPDATE space_counts SET embedded = embedded - 1 WHERE space = old.space;
END;
