"""SQLite storage: connections, migrations, the single writer, episodes and vectors."""

__all__ = ["MAX_ROW_ID"]

# SQLite's largest integer: an id past it names no row, and binding it overflows.
MAX_ROW_ID = 2**63 - 1
