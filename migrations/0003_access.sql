-- Recall's access log: which items a recall put into the memory block, and when.
-- It feeds the temporal boosts (Hawkes bursts, Ebbinghaus spaced retrievals,
-- ACT-R base level). Written in batches after recall returns; only the newest
-- accesses of an item are kept (older ones add next to nothing to any boost).
-- `kind` + `item_id` name a sentence, a state or an event; `at` is Unix seconds.
CREATE TABLE recall_access (
    space   TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('passage', 'state', 'event')),
    item_id INTEGER NOT NULL,
    at      REAL NOT NULL
);
CREATE INDEX recall_access_item ON recall_access (space, kind, item_id, at);
