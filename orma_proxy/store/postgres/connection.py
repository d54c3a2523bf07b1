"""A psycopg 3 connection behind the few DB-API methods the store calls.

The store's functions take a connection and run SQLite-dialect statements on
it; on PostgreSQL that connection is a ``PgConnection``, which translates each
statement once (``dialect.py``), binds its parameters, and turns psycopg's
errors into ``StoreError``. It runs in autocommit mode, so the writer's own
``BEGIN``, savepoints and ``COMMIT`` work as they do on SQLite.

Results come back in binary: a pgvector ``vector`` as the little-endian
float32 bytes SQLite's ``sentence_vectors`` holds, and a numpy array binds as
a ``vector``. psycopg is imported here, and only when a PostgreSQL memory is
opened: a SQLite-only process never pays for it (~0.17 s).
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from orma_proxy.config import safe_url
from orma_proxy.errors import StoreError
from orma_proxy.store.postgres.dialect import Params, translate

# SQLSTATEs after which the same transaction, run again from its start, may well succeed:
# deadlock_detected (two replicas locked the same rows in opposite orders) and
# serialization_failure. PostgreSQL rolled the transaction back; nothing of it was kept.
CONFLICTS = {"40P01": "a deadlock", "40001": "a serialization failure"}


def is_postgres(conn: object) -> bool:
    """Whether a store function's ``conn`` is PostgreSQL's (else sqlean's SQLite)."""
    return isinstance(conn, PgConnection)


def conflict(exc: BaseException) -> str | None:
    """What ``exc`` (or an error it came from) says when PostgreSQL aborted a transaction
    that may succeed if run again (``CONFLICTS``); None for any other error."""
    seen: set[int] = set()
    error: BaseException | None = exc
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        state = getattr(error, "sqlstate", None)
        if isinstance(state, str) and state in CONFLICTS:
            return CONFLICTS[state]
        error = error.__cause__ or error.__context__
    return None


def connection_lost(conn: object) -> bool:
    """Whether ``conn`` is a PostgreSQL connection that broke (a server restart, a failover,
    ``pg_terminate_backend``): a new one must be opened. Never true of SQLite's."""
    return isinstance(conn, PgConnection) and conn.lost


class PgRow(dict[str, Any]):
    """A row by column name that also answers ``row[0]``, as ``sqlite3.Row`` does."""

    def __getitem__(self, key: str | int) -> Any:
        if isinstance(key, int):
            return list(self.values())[key]
        return super().__getitem__(key)


class PgCursor:
    """``conn.cursor()``: set ``row_factory`` (to anything) for rows by column name."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn
        self.row_factory: object = None
        self._rows: Iterator[Any] = iter(())

    def execute(self, sql: str, params: Params = ()) -> PgCursor:
        cursor = self._conn.execute(sql, params)
        if self.row_factory is None or cursor.description is None:
            self._rows = iter(cursor)
        else:
            names = [c.name for c in cursor.description]
            self._rows = (PgRow(zip(names, row, strict=True)) for row in cursor)
        return self

    def __iter__(self) -> Iterator[Any]:
        return self._rows

    def fetchone(self) -> Any:
        return next(self._rows, None)

    def fetchall(self) -> list[Any]:
        return list(self._rows)


class PgConnection:
    """A psycopg connection that takes the store's SQLite-dialect statements."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, params: Params = ()) -> Any:
        """Run one statement; its cursor (``fetchone``, ``fetchall``, iteration)."""
        text, values = translate(sql).bind(params)
        try:
            return self.raw.execute(text, values, binary=True)
        except self._errors as exc:
            raise _failure(exc) from exc

    def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        """Run one statement for each of ``rows`` (one round trip, psycopg's pipeline)."""
        statement = translate(sql)
        bound = [statement.bind(row) for row in rows]
        if not bound:
            return
        try:
            with self.raw.cursor(binary=True) as cursor:
                for text, group in itertools.groupby(bound, key=lambda b: b[0]):
                    cursor.executemany(text, [values for _, values in group])
        except self._errors as exc:
            raise _failure(exc) from exc

    def cursor(self) -> PgCursor:
        return PgCursor(self)

    @property
    def in_transaction(self) -> bool:
        return bool(self.raw.info.transaction_status != self._idle)

    @property
    def lost(self) -> bool:
        """Whether the server side is gone: every later statement would fail."""
        return bool(self.raw.closed or self.raw.broken)

    def close(self) -> None:
        self.raw.close()

    @property
    def _errors(self) -> type[Exception]:
        import psycopg

        return psycopg.Error

    @property
    def _idle(self) -> Any:
        from psycopg import pq

        return pq.TransactionStatus.IDLE


def _failure(exc: BaseException) -> StoreError:
    return StoreError(f"PostgreSQL: {str(exc).strip()}")


def connect(url: str, *, application_name: str = "orma") -> PgConnection:
    """An autocommit connection to ``url``, pgvector's type bound when the database has it."""
    import psycopg

    try:
        raw = psycopg.connect(url, autocommit=True, application_name=application_name)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to PostgreSQL ({safe_url(url)}): {exc}") from exc
    register_vector(raw)
    return PgConnection(raw)


def register_vector(raw: Any) -> None:
    """Load ``vector`` values as float32 bytes, and dump numpy arrays as ``vector``."""
    import numpy as np
    from psycopg.adapt import Dumper, Loader
    from psycopg.pq import Format
    from psycopg.types import TypeInfo

    info = TypeInfo.fetch(raw, "vector")
    if info is None:  # not created yet: migrations run first, then the store connects
        return

    class BinaryLoader(Loader):
        format = Format.BINARY

        def load(self, data: Any) -> bytes:
            dim = struct.unpack_from(">H", data)[0]
            return np.frombuffer(data, dtype=">f4", count=dim, offset=4).astype("<f4").tobytes()

    class TextLoader(Loader):
        def load(self, data: Any) -> bytes:
            text = bytes(data).decode("ascii").strip("[]")
            return np.array(text.split(","), dtype="<f4").tobytes()

    class VectorDumper(Dumper):
        format = Format.BINARY
        oid = info.oid

        def dump(self, obj: Any) -> bytes:
            values = np.ascontiguousarray(obj, dtype=">f4").ravel()
            return struct.pack(">HH", values.size, 0) + values.tobytes()

    raw.adapters.register_loader(info.oid, BinaryLoader)
    raw.adapters.register_loader(info.oid, TextLoader)
    raw.adapters.register_dumper(np.ndarray, VectorDumper)
