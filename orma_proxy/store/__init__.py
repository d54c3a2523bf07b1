"""SQLite storage: connections, migrations, the single writer, episodes and vectors."""
