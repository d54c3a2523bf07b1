-- Once: the HNSW index rebuilt with ef_construction 128. Migration 0008 drops the index, so a
-- database reaching this step now builds nothing (a rebuild took minutes at 100,000 notes).
SELECT 1;
