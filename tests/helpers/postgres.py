"""A private PostgreSQL 16 + pgvector server for the tests (pgserver), a fresh database per test.

pgserver ships the server's binaries in its wheel and runs it on a Unix socket
in a folder of its own; it is started once per session. Each test that asks
gets a database of its own, dropped when the test ends.

Run as root, pgserver runs PostgreSQL as a user of its own and opens the
folders above its data to it. Not under pytest's temporary folder: every
pytest session that starts on the machine makes ``/tmp/pytest-of-<user>``
private again, and the server, cut off from its data, would stop.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_numbers = itertools.count(1)


@contextmanager
def postgres_server() -> Iterator[Any]:
    """pgserver's server with its data in a new folder, stopped and removed on the way out."""
    root = Path(tempfile.mkdtemp(prefix="orma-postgres-"))
    # platformdirs warns that XDG_RUNTIME_DIR is unset (pytest's filterwarnings = error).
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
        import pgserver

        server = pgserver.get_server(root, cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        yield server
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def fresh_database(server: Any) -> Iterator[str]:
    """A new, empty database on ``server``: its URL. Dropped afterwards."""
    name = f"orma_test_{next(_numbers)}"
    server.psql(f"CREATE DATABASE {name};")
    try:
        yield str(server.get_uri(name))
    finally:
        server.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE);")


@contextmanager
def stopped(server: Any) -> Iterator[None]:
    """``server`` stopped (``-m fast``: every connection cut) until the block ends, then
    started again on the same socket, so the same URLs reach it."""
    from pgserver.postgres_server import pg_ctl  # type: ignore[attr-defined]  # re-exported, no __all__

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=server.pgdata, user=server.system_user)
    try:
        yield
    finally:
        server.ensure_postgres_running()  # its folder is ours alone: no other starter to lock out
