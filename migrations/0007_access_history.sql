-- Recall's access log as one row per item instead of one row per access.
-- Recall reads the histories of every candidate (often 60 items with up to 32
-- accesses each): as rows that was ~1,800 rows and ~3 ms per recall at 10,000
-- notes; as one packed value per item it is ~60 rows and ~0.2 ms.
-- `times` holds the kept access times, oldest first, each as a big-endian
-- signed 64-bit count of milliseconds since the Unix epoch (8 bytes a time).
CREATE TABLE recall_history (
    space   TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('passage', 'state', 'event')),
    item_id INTEGER NOT NULL,
    times   BLOB NOT NULL,
    PRIMARY KEY (space, kind, item_id)
) WITHOUT ROWID;

INSERT INTO recall_history (space, kind, item_id, times)
SELECT space, kind, item_id,
       unhex(group_concat(printf('%016X', CAST(round(at * 1000) AS INTEGER)), '' ORDER BY at))
FROM recall_access
GROUP BY space, kind, item_id;

DROP TABLE recall_access;
