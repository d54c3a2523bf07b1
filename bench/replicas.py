"""Two ``orma proxy`` replicas on one PostgreSQL: every turn once, recall across them, sleep once.

``python -m bench.replicas [--chats 200] [--db postgresql://...] [--lease 8] [--json]``

One PostgreSQL with pgvector (pgserver's, started here, unless ``--db`` names an empty
database), two ``orma proxy`` processes on it (real subprocesses, real sockets), and a
fake upstream in this process (``bench.replicas_upstream``). Issue 21's bar:

1. ``--chats`` concurrent streamed chats, one per user (each user a space of its own,
   the request's ``user``), split across the two replicas: each user tells a code;
2. each user's next chat goes to the *other* replica and asks for it: the block that
   replica injected (what the upstream received) must hold the code;
3. every turn is recorded exactly once (no user or assistant line twice, none missing);
4. sleep runs on each replica once a space has been idle ``--idle`` seconds; every
   episode is consolidated by exactly one applied batch (counted by batch id);
5. some users chat again; sleep's LLM requests are held, and the replica holding a
   lease is killed with SIGKILL mid-batch; the other completes that space once the
   lease (``--lease`` seconds, ``ORMA_SLEEP_LEASE_SECONDS``) expires, again exactly once.

It prints the figures, and exits 1 if any bar is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.processes import ROOT, STOP_TIMEOUT_SECONDS, listening_socket, wait_until_up
from bench.proxy import serving
from bench.replicas_upstream import RecordingUpstream
from bench.upstream import MODEL
from orma_proxy.store.postgres.connection import PgConnection, connect

DEFAULT_CHATS = 200
DEFAULT_LEASE_SECONDS = 8.0
DEFAULT_IDLE_SECONDS = 2.0
POLL_SECONDS = 0.5
# Users who chat again before the kill (at least 2, so both replicas have a space to sleep on).
DEFAULT_AGAIN = 20
REPLICAS = 2
WAIT_SECONDS = 300.0
REQUEST_TIMEOUT_SECONDS = 180.0
QUESTION = "What is my locker code?"


def said(user: int) -> str:
    return f"My locker code is {7000 + user}."


def code(user: int) -> str:
    return str(7000 + user)


@dataclass
class Figures:
    """What one run measured; ``missed`` lists the bars it did not meet."""

    chats: int
    again: int
    replicas: int = REPLICAS
    chat_errors: int = 0
    chats_seconds: float = 0.0
    user_turns: int = 0
    assistant_turns: int = 0
    turns_twice: int = 0
    recalled_on_other: int = 0
    sleep_seconds: float = 0.0
    sleep_requests: int = 0
    applied_batches: int = 0
    failed_batches: int = 0
    failed_because: list[str] = field(default_factory=list)
    episodes: int = 0
    consolidated_once: int = 0
    consolidated_twice: int = 0
    never_consolidated: int = 0
    killed_holding: list[str] = field(default_factory=list)
    lease_seconds: float = 0.0
    lease_left_at_kill: float = 0.0
    taken_over_after: float = 0.0
    deadlock_retries: int = 0
    tracebacks: int = 0
    missed: list[str] = field(default_factory=list)
    logs: str | None = None  # the replicas' logs, kept when a bar was missed


class Replica:
    """One ``orma proxy`` process, its log in ``folder``."""

    def __init__(self, number: int, folder: Path, db: str, upstream: str, env: dict[str, str]):
        self.number = number
        sock = listening_socket()
        self.port = sock.getsockname()[1]
        sock.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"replica-{number}.log"
        home = folder / f"replica-{number}"
        home.mkdir()
        self._sink = self.log.open("wb")
        self.process = _spawn(
            ["orma_proxy.cli", "proxy", "--upstream", f"{upstream}/v1", "--port", str(self.port),
             "--db", db],
            {**env, "ORMA_DIR": str(home)}, self._sink,
        )  # fmt: skip

    @property
    def holder(self) -> str:
        """How sleep names a lease this process holds (``sleep/lease.py``)."""
        return f"pid{self.process.pid}-"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(STOP_TIMEOUT_SECONDS)
            except Exception:
                self.process.kill()
                self.process.wait()
        self._sink.close()


def _spawn(args: list[str], env: dict[str, str], sink: Any) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", *args], cwd=ROOT, env=env, stdout=sink, stderr=sink,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@contextlib.contextmanager
def database(url: str | None) -> Iterator[str]:
    """``url``, or a new database on a pgserver PostgreSQL started for this run."""
    if url is not None:
        yield url
        return
    from tests.helpers.postgres import fresh_database, postgres_server

    with postgres_server() as server, fresh_database(server) as fresh:
        yield fresh


@contextlib.asynccontextmanager
async def replicas(
    folder: Path, db: str, upstream: str, args: argparse.Namespace
) -> AsyncIterator[list[Replica]]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
        "ORMA_SLEEP_LEASE_SECONDS": str(args.lease),
        "ORMA_SLEEP_IDLE_SECONDS": str(args.idle),
        "ORMA_SLEEP_POLL_SECONDS": str(POLL_SECONDS),
        "ORMA_SLEEP_AFTER_EPISODES": "100000",  # idle windows only
        "ORMA_SLEEP_BACKOFF_SECONDS": "0",
    }
    started: list[Replica] = []
    try:
        # One at a time: the first creates the schema, the second finds it (both would be safe).
        for number in range(REPLICAS):
            started.append(Replica(number, folder, db, upstream, env))
            await wait_until_up(f"{started[-1].url}/health")
        yield started
    finally:
        for replica in started:
            replica.stop()


async def chat(client: httpx.AsyncClient, replica: Replica, user: int, text: str) -> bool:
    """One streamed chat of ``user`` through ``replica``; whether it ended well."""
    body = {
        "model": MODEL,
        "stream": True,
        "user": f"user{user:04d}",
        "messages": [{"role": "user", "content": text}],
    }
    try:
        async with client.stream(
            "POST", f"{replica.url}/v1/chat/completions", json=body
        ) as response:
            received = b"".join([part async for part in response.aiter_raw()])
    except httpx.HTTPError:
        return False
    return response.status_code == httpx.codes.OK and b"[DONE]" in received


def scalar(conn: PgConnection, sql: str, *args: object) -> Any:
    return conn.execute(sql, args).fetchone()[0]


async def wait_for(what: str, check: Any) -> float:
    """Seconds until ``check()`` is true; ``TimeoutError`` naming ``what`` past WAIT_SECONDS."""
    began = time.monotonic()
    while not await asyncio.to_thread(check):
        if time.monotonic() - began > WAIT_SECONDS:
            raise TimeoutError(f"{what}: not within {WAIT_SECONDS:.0f} s")
        await asyncio.sleep(0.2)
    return time.monotonic() - began


def turns(conn: PgConnection, role: str) -> int:
    return int(scalar(conn, "SELECT count(*) FROM episodes WHERE role = ?", role))


def all_consolidated(conn: PgConnection) -> bool:
    """Whether every space's watermark has reached its newest episode."""
    behind = scalar(
        conn,
        "SELECT count(*) FROM (SELECT space, max(id) AS newest FROM episodes GROUP BY space) e "
        "LEFT JOIN sleep_progress p ON p.space = e.space "
        "WHERE coalesce(p.last_episode_id, 0) < e.newest",
    )
    return int(behind) == 0


def consolidation(conn: PgConnection, figures: Figures) -> None:
    """How many applied batches (by id) cover each episode: once, twice or more, never."""
    covered = conn.execute(
        "SELECT e.id, count(b.id) FROM episodes e LEFT JOIN sleep_batches b "
        "ON b.space = e.space AND b.status = 'applied' "
        "AND e.id BETWEEN b.first_episode_id AND b.last_episode_id GROUP BY e.id"
    ).fetchall()
    figures.episodes = len(covered)
    figures.consolidated_once = sum(1 for _, n in covered if n == 1)
    figures.consolidated_twice = sum(1 for _, n in covered if n > 1)
    figures.never_consolidated = sum(1 for _, n in covered if n == 0)
    figures.applied_batches = int(
        scalar(conn, "SELECT count(DISTINCT id) FROM sleep_batches WHERE status = 'applied'")
    )
    failed = conn.execute("SELECT error FROM sleep_batches WHERE status = 'failed'").fetchall()
    figures.failed_batches = len(failed)
    figures.failed_because = sorted({str(error) for (error,) in failed})


async def run(args: argparse.Namespace) -> Figures:
    figures = Figures(chats=args.chats, again=min(args.again, args.chats), lease_seconds=args.lease)
    upstream = RecordingUpstream()
    folder = Path(tempfile.mkdtemp(prefix="orma-replicas-"))
    users = range(args.chats)
    timeout = httpx.Timeout(REQUEST_TIMEOUT_SECONDS)
    limits = httpx.Limits(max_connections=args.chats * 2)
    with database(args.db) as db:
        async with (
            serving(upstream.app()) as upstream_url,
            replicas(folder, db, upstream_url, args) as started,
            httpx.AsyncClient(timeout=timeout, limits=limits, trust_env=False) as client,
        ):
            conn = await asyncio.to_thread(connect, db)
            try:
                await chats_and_recall(client, started, conn, upstream, users, figures)
                await sleep_and_kill(client, started, conn, upstream, args, figures)
            finally:
                conn.close()
        logs = [r.log.read_text("utf-8", "replace") for r in started]
    figures.tracebacks = sum(text.count("Traceback") for text in logs)
    figures.deadlock_retries = sum(text.count("rolled back by a deadlock") for text in logs)
    figures.sleep_requests = upstream.sleep_requests
    figures.missed = missed(figures)
    if figures.missed:
        figures.logs = str(folder)
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return figures


async def chats_and_recall(
    client: httpx.AsyncClient,
    started: list[Replica],
    conn: PgConnection,
    upstream: RecordingUpstream,
    users: range,
    figures: Figures,
) -> None:
    """Each user tells a code on one replica, then asks for it on the other."""
    began = time.monotonic()
    told = await asyncio.gather(*(chat(client, started[u % REPLICAS], u, said(u)) for u in users))
    figures.chats_seconds = time.monotonic() - began
    # A chat that failed records no reply (its error is counted): wait for the others'.
    first = told.count(True)
    await wait_for("the first turns recorded", lambda: turns(conn, "assistant") >= first)
    asked = await asyncio.gather(
        *(chat(client, started[(u + 1) % REPLICAS], u, QUESTION) for u in users)
    )
    figures.chat_errors = told.count(False) + asked.count(False)
    figures.recalled_on_other = sum(
        1 for u in users if upstream.prompts[f"user{u:04d}"][-1:] and
        code(u) in upstream.prompts[f"user{u:04d}"][-1]
    )  # fmt: skip
    second = first + asked.count(True)
    await wait_for("the second turns recorded", lambda: turns(conn, "assistant") >= second)


def count_turns(conn: PgConnection, figures: Figures) -> None:
    """The turns stored, and the user lines stored more than once in their space."""
    figures.user_turns = turns(conn, "user")
    figures.assistant_turns = turns(conn, "assistant")
    figures.turns_twice = int(
        scalar(
            conn,
            "SELECT count(*) FROM (SELECT space, role, text FROM episodes "
            "GROUP BY space, role, text HAVING count(*) > 1) twice "
            "WHERE role = 'user'",
        )
    )


async def sleep_and_kill(
    client: httpx.AsyncClient,
    started: list[Replica],
    conn: PgConnection,
    upstream: RecordingUpstream,
    args: argparse.Namespace,
    figures: Figures,
) -> None:
    """Sleep on the idle spaces; then kill a replica holding a lease, and let the other finish."""
    figures.sleep_seconds = await wait_for("sleep on every space", lambda: all_consolidated(conn))
    upstream.hold()
    again = range(figures.again)
    ok = await asyncio.gather(
        *(chat(client, started[u % REPLICAS], u, f"My bike is number {u}.") for u in again)
    )
    figures.chat_errors += ok.count(False)

    def holding() -> list[tuple[Replica, str, float]]:
        leases = conn.execute(
            "SELECT holder, space, expires_at FROM sleep_leases WHERE expires_at > ?",
            (time.time(),),
        ).fetchall()
        return [
            (r, str(s), float(until))
            for h, s, until in leases
            for r in started
            if str(h).startswith(r.holder)
        ]

    await wait_for("a replica mid-batch", lambda: upstream.held > 0 and bool(holding()))
    snapshot = holding()
    victim = snapshot[0][0]
    victim.process.send_signal(signal.SIGKILL)
    killed_at = time.time()
    victim.process.wait()
    leased = [(s, until) for r, s, until in snapshot if r is victim]
    figures.killed_holding = sorted(s for s, _ in leased)
    figures.lease_left_at_kill = max(until for _, until in leased) - killed_at
    upstream.release()
    await wait_for("the survivor completes every space", lambda: all_consolidated(conn))
    progress = conn.execute("SELECT space, updated_at FROM sleep_progress").fetchall()
    done_at = max(float(at) for space, at in progress if space in figures.killed_holding)
    figures.taken_over_after = done_at - killed_at
    consolidation(conn, figures)
    count_turns(conn, figures)


def missed(f: Figures) -> list[str]:
    bars = {
        "0 chat errors": f.chat_errors == 0,
        "every user turn recorded once": f.user_turns == 2 * f.chats + f.again
        and f.turns_twice == 0,
        "every reply recorded once": f.assistant_turns == f.user_turns,
        "each user's code recalled on the other replica": f.recalled_on_other == f.chats,
        "every episode consolidated exactly once": f.consolidated_once == f.episodes
        and f.episodes > 0,
        "the killed replica's space completed by the other once its lease expired": bool(
            f.killed_holding
        )
        and f.taken_over_after >= f.lease_left_at_kill,
        "no traceback in the replicas' logs": f.tracebacks == 0,
    }
    return [bar for bar, met in bars.items() if not met]


def render(f: Figures) -> str:
    lines = [
        f"bench.replicas: {f.replicas} orma proxy processes on one PostgreSQL, {f.chats} users",
        f"  chats: {2 * f.chats} streamed ({f.chats} concurrent at a time, "
        f"first round in {f.chats_seconds:.1f} s), errors {f.chat_errors}",
        f"  turns recorded: {f.user_turns} user, {f.assistant_turns} assistant, "
        f"recorded twice {f.turns_twice}",
        f"  recalled on the other replica: {f.recalled_on_other} of {f.chats}",
        f"  writes rolled back by a deadlock and run again: {f.deadlock_retries}",
        f"  sleep: every space consolidated {f.sleep_seconds:.1f} s after the chats; "
        f"{f.applied_batches} batches applied ({f.failed_batches} failed tries), "
        f"{f.sleep_requests} LLM requests",
        *(f"    a try failed: {error}" for error in f.failed_because),
        f"  episodes {f.episodes}: consolidated once {f.consolidated_once}, "
        f"twice or more {f.consolidated_twice}, never {f.never_consolidated}",
        f"  kill -9 mid-batch: the replica held {', '.join(f.killed_holding) or 'nothing'}; "
        f"the other completed it {f.taken_over_after:.1f} s later (its lease, of "
        f"{f.lease_seconds:g} s, had {f.lease_left_at_kill:.1f} s left)",
        f"  tracebacks in the replicas' logs: {f.tracebacks}",
        "  bars: " + ("all met" if not f.missed else "MISSED " + "; ".join(f.missed)),
    ]
    if f.logs:
        lines.append(f"  the replicas' logs: {f.logs}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.replicas", description=__doc__)
    parser.add_argument("--chats", type=int, default=DEFAULT_CHATS, help="users (one chat each)")
    parser.add_argument("--again", type=int, default=DEFAULT_AGAIN, help="users chatting again")
    parser.add_argument("--db", default=None, help="an empty PostgreSQL database (default: "
                        "a pgserver one started for the run)")  # fmt: skip
    parser.add_argument("--lease", type=float, default=DEFAULT_LEASE_SECONDS)
    parser.add_argument("--idle", type=float, default=DEFAULT_IDLE_SECONDS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = asyncio.run(run(args))
    print(json.dumps(asdict(figures), indent=1) if args.json else render(figures), flush=True)
    raise SystemExit(1 if figures.missed else 0)


if __name__ == "__main__":
    main()
