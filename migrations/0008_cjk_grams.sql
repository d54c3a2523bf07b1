-- Keyword search for Chinese, Japanese and Korean. unicode61 (sentence_fts) makes
-- one token of a whole run of CJK characters ("我住在东京" is one word), so no
-- query word ever matches it. This index holds each run's overlapping character
-- pairs instead ("我住 住在 在东 东京"; a lone character as itself), made by
-- `orma_grams(text)`, a function every Orma connection registers (text/grams.py);
-- the search makes a query's pairs with the same code. Contentless: the text
-- stays in `sentences`; rows are deleted with their sentence (triggers below).
CREATE VIRTUAL TABLE sentence_grams USING fts5 (
    grams, space_tag,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61'
);

INSERT INTO sentence_grams (rowid, grams, space_tag)
SELECT id, grams, space_tag
FROM (SELECT id, space_tag, orma_grams(text) AS grams FROM sentences)
WHERE grams != '';

CREATE TRIGGER sentence_grams_added AFTER INSERT ON sentences BEGIN
    INSERT INTO sentence_grams (rowid, grams, space_tag)
    SELECT new.id, grams, new.space_tag FROM (SELECT orma_grams(new.text) AS grams)
    WHERE grams != '';
END;

CREATE TRIGGER sentence_grams_deleted AFTER DELETE ON sentences BEGIN
    DELETE FROM sentence_grams WHERE rowid = old.id;
END;
