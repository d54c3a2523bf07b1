"""Reading rows by column name, and binding a list of ids as one parameter.

Rows come back as mappings, or as records whose fields are the columns, so a
query can gain or reorder columns without any reader of it counting positions.
A cursor can name the columns itself (``named_rows``), or ``Select`` names
them from its own list. An id list travels as one JSON array (``IN_IDS``), so
no statement is limited by SQLite's number of bound variables.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import sqlean

from orma_proxy.store.connect import Connection
from orma_proxy.store.select import Row

T = TypeVar("T")
Params = Sequence[Any] | Mapping[str, Any]

# ``<column> IN_IDS`` with ``id_list(ids)`` bound: the column is one of the ids.
IN_IDS = "IN (SELECT value FROM json_each(?))"


def id_list(ids: Iterable[int]) -> str:
    """``ids`` as the parameter ``IN_IDS`` takes: sorted, each once."""
    return json.dumps(sorted(set(ids)))


def iter_named(conn: Connection, sql: str, params: Params = ()) -> Iterator[Row]:
    """The rows of ``sql``, each read by column name, as they come (a large read streams)."""
    cursor = conn.cursor()
    cursor.row_factory = sqlean.Row
    return iter(cursor.execute(sql, params))


def named_rows(conn: Connection, sql: str, params: Params = ()) -> list[Row]:
    """Every row of ``sql``, each read by column name."""
    return list(iter_named(conn, sql, params))


def as_record(make: Callable[..., T], row: Row, **fields: Any) -> T:
    """``row`` as a record whose fields are its columns; ``fields`` replace some (0/1 as bool)."""
    return make(**{**row, **fields})


def int_column(conn: Connection, sql: str, params: Params = ()) -> list[int]:
    """The integers (ids, a count) a query of one column selects, in its order."""
    return [int(r[0]) for r in conn.execute(sql, params).fetchall()]
