"""Data portability: a versioned JSON Lines export/import, a full index rebuild."""
