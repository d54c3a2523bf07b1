"""PostgreSQL + pgvector behind the store's functions (docs/postgresql.md).

``connection`` (psycopg behind the DB-API methods the store calls), ``dialect``
(the portable statements as PostgreSQL runs them), ``migrate`` (its own ordered
migrations), ``database`` (opening), and the twins of what differs between the
engines: ``search`` (tsvector keywords, CJK pairs) and ``vectors`` (pgvector).
"""
