-- The HNSW index rebuilt with ef_construction 128 (pgvector's default, 64, found 0.956 of the
-- exact top 10 on the bench's sentences at ef_search 120; 128 finds 0.972:
-- store/postgres/vectors.py, which creates it so for a model bound from now on). Only where
-- it exists: before a model is bound the column has no dimension, and no index.
DO $$
BEGIN
    IF to_regclass('sentence_vectors_hnsw') IS NOT NULL THEN
        DROP INDEX sentence_vectors_hnsw;
        CREATE INDEX sentence_vectors_hnsw ON sentence_vectors
            USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 128);
    END IF;
END
$$;
