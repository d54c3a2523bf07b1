"""Other processes on the same database file: the entry points and how tests start them.

``python -m tests.helpers.processes COMMAND DB ...`` runs one of the commands below. A
process says ``ready`` once it is set up, then waits for a ``go`` file, so
several of them can be released at the same instant.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.store.connect import open_sync
from orma_proxy.store.migrate import migrate
from tests.helpers.embedders import HashingEmbedder
from tests.helpers.rawdb import raw

ROOT = Path(__file__).resolve().parents[2]


def _say(line: object) -> None:
    print(line, flush=True)


def _wait_for(go: Path) -> None:
    _say("ready")
    while not go.exists():
        time.sleep(0.005)


async def _add_forever(db: Path, go: Path) -> None:
    """Add episodes one after another, printing each id once add() has returned."""
    config = OrmaConfig(home=db.parent, db_path=db)
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        _wait_for(go)
        number = 0
        while True:
            number += 1
            _say(await mem.add(f"Durable note number {number} about the lighthouse keeper."))


async def _add_many(db: Path, go: Path, space: str, count: int) -> None:
    config = OrmaConfig(home=db.parent, db_path=db)
    async with AsyncMemory(config=config, embedder=HashingEmbedder()) as mem:
        _wait_for(go)
        for number in range(count):
            await mem.add(f"Worker {space} wrote note {number} about shared gardens.", space=space)
    _say("done")


def _migrate(db: Path, go: Path) -> None:
    _wait_for(go)
    conn = open_sync(db, busy_timeout_ms=15_000)
    try:
        _say(migrate(conn))
    finally:
        conn.close()


def migration_counts(db: Path) -> list[tuple[int, int]]:
    """(version, times recorded) for every migration in the file's ledger."""
    with raw(db) as conn:
        rows = conn.execute("SELECT version, count(*) FROM schema_migrations GROUP BY version")
        return [(int(v), int(n)) for v, n in rows.fetchall()]


def main(argv: list[str]) -> None:
    command, db, go, *rest = argv
    if command == "add-forever":
        asyncio.run(_add_forever(Path(db), Path(go)))
    elif command == "add-many":
        asyncio.run(_add_many(Path(db), Path(go), rest[0], int(rest[1])))
    elif command == "migrate":
        _migrate(Path(db), Path(go))
    else:
        raise SystemExit(f"unknown command {command!r}")


@contextmanager
def started(*args: str | Path) -> Iterator[subprocess.Popen[str]]:
    """A ``python -m tests.helpers.processes`` child; killed and reaped however the test ends."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.processes", *map(str, args)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def expect_line(proc: subprocess.Popen[str], wanted: str | None = None) -> str:
    """The child's next stdout line (its stderr in the failure message if it died)."""
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line or (wanted is not None and line != wanted):
        proc.kill()
        proc.wait()
        err = proc.stderr.read() if proc.stderr is not None else ""
        raise AssertionError(f"child said {line!r}, expected {wanted!r}; stderr:\n{err}")
    return line


if __name__ == "__main__":
    main(sys.argv[1:])
