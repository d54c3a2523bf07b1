-- Dates are searchable: each sentence keeps the date terms of the day it was said
-- and of every date phrase in it, resolved against that day ("yesterday", said on
-- 11 March 2024, is d20240310 w20240304 m202403 y2024; text/dates.py). They are a
-- third column of the BM25 index, so a query naming a date matches them like
-- words. `orma_date_terms(text, said_at)` is a function every Orma connection
-- registers; new sentences get their terms from the same code as they are stored.
ALTER TABLE sentences ADD COLUMN dates TEXT NOT NULL DEFAULT '';

DROP TABLE sentence_fts;

UPDATE sentences SET dates = orma_date_terms(
    text, (SELECT e.said_at FROM episodes e WHERE e.id = sentences.episode_id)
);

CREATE VIRTUAL TABLE sentence_fts USING fts5 (
    text, space_tag, dates,
    content = 'sentences', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

INSERT INTO sentence_fts (sentence_fts) VALUES ('rebuild');
