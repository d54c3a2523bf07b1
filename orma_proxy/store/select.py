"""A SELECT whose columns have names: rows are read by name, never by position.

The store and the facts layer own the SQL of their reads; their query
functions append a WHERE (and may wrap the statement), then turn each row
into a mapping with ``named``, so a column added or moved breaks no reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Select:
    """``SELECT <expr> AS <name>, ... FROM ...`` (ends with a space: append a WHERE)."""

    columns: tuple[str, ...]
    sql: str

    @classmethod
    def of(cls, columns: Mapping[str, str], source: str) -> Select:
        """The SELECT of ``columns`` (name -> SQL expression) from ``source``."""
        listed = ", ".join(f"{expr} AS {name}" for name, expr in columns.items())
        return cls(tuple(columns), f"SELECT {listed} {source}")

    def named(self, row: Sequence[Any], *more: str) -> dict[str, Any]:
        """``row`` by column name; ``more`` names the columns a caller added after these."""
        return dict(zip((*self.columns, *more), row, strict=True))

    def all_named(self, rows: Iterable[Sequence[Any]], *more: str) -> list[Row]:
        """Every row of ``rows`` by column name (see ``named``)."""
        return [self.named(r, *more) for r in rows]
