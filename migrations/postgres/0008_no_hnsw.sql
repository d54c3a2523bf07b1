-- No HNSW index over the vectors (store/postgres/vectors.py): a space searched often is held
-- in memory by each process, and the rest scan a space's vectors exactly. Kept on every insert,
-- the index was ~2/3 of PostgreSQL's ingest for those unheld searches alone (bench/RESULTS.md,
-- session 14).
DROP INDEX IF EXISTS sentence_vectors_hnsw;
