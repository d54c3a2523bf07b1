"""What the Orma proxy costs a chat: the proxy against direct access to the same upstream.

``python -m bench.proxy [--notes 3000] [--json] [--no-write]``

Three processes, so that none shares a GIL with another:

- the upstream (``bench.upstream``): a minimal OpenAI-compatible server that
  streams as many SSE chunks as a request's ``max_tokens``, as fast as it can
  or, for the paced long streams, one every few milliseconds as a model would;
- the Orma proxy, in this process, on this event loop, in front of a memory
  seeded with realistic notes (``bench.corpus``) and the real default embedder;
  a monitor task on the same loop records how late its timers fire (loop lag);
- a bare relay (``bench.relay``) on the same loop: no memory at all, the floor
  under any proxy built on Starlette, uvicorn and httpx here;
- the load client (``bench.load``): time to first token of short streams, total
  time of long streams (unpaced and paced), wall time of many concurrent streams, each direct and
  through the proxy, interleaved.

It prints medians and ratios measured in one run (a Markdown table, or JSON)
and writes the table to ``bench/PROXY_RESULTS.md``. It is a measurement, not a
timed test: nothing fails on a slow machine. The issue's targets: first-token
overhead <= the recall time + 3 ms; a long stream within 1.1x of direct; the
proxy's loop lag under 50 ms while 50 streams run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import platform
import signal
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np
import uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bench import corpus
from bench.load import SPACE, LoadResult, add_load_options, load_options_argv
from bench.processes import (
    STARTUP_TIMEOUT_SECONDS,
    STOP_TIMEOUT_SECONDS,
    child,
    listening_socket,
    wait_until_up,
)
from bench.proxy_report import (
    LAG_INTERVAL_SECONDS,
    LAG_PERCENTILES,
    LOOP_LAG_MAX_MS,
    MS,
    Lag,
    Report,
    Spread,
    render,
)
from bench.relay import bare_relay
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder
from orma_proxy.server import create_app, proxy_state

ROOT = Path(__file__).resolve().parent.parent
RESULTS_FILE = ROOT / "bench" / "PROXY_RESULTS.md"
DEFAULT_NOTES = 3_000
# Notes stored per gather(): the writer commits them in groups.
SEED_BATCH = 256
# Time for the proxy's background recording to be committed before flushing it.
SETTLE_SECONDS = 0.05
SETTLE_PATH = "/_bench/settle"
# Nothing listens here (the discard port): sleep over the seed falls back to its rules.
NO_UPSTREAM = "http://127.0.0.1:9/v1"
# Shell conventions: 128 + the signal's number.
EXIT_INTERRUPTED = 128 + signal.SIGINT
EXIT_TERMINATED = 128 + signal.SIGTERM


class LagMonitor:
    """Sleeps ``interval`` again and again on the loop; records each wake-up's lateness."""

    def __init__(self, interval: float = LAG_INTERVAL_SECONDS) -> None:
        self.interval = interval
        # (time.monotonic(), lag seconds, CPU seconds the loop's thread used meanwhile)
        self.samples: list[tuple[float, float, float]] = []

    async def run(self) -> None:
        while True:
            start, cpu = time.monotonic(), time.thread_time()
            await asyncio.sleep(self.interval)
            now = time.monotonic()
            self.samples.append((now, now - start - self.interval, time.thread_time() - cpu))

    def between(self, windows: Sequence[tuple[float, float]]) -> Lag:
        picked = [
            (lag, cpu) for at, lag, cpu in self.samples if any(a <= at <= b for a, b in windows)
        ]
        if not picked:
            return Lag(0.0, 0.0, 0.0, 0, 0, 0.0)
        lags = np.asarray([lag for lag, _ in picked])
        p50, p99 = np.percentile(lags * MS, LAG_PERCENTILES)
        late = [(lag, cpu) for lag, cpu in picked if lag * MS > LOOP_LAG_MAX_MS]
        wall = sum(lag + self.interval for lag, _ in late)
        running = sum(cpu for _, cpu in late) / wall if late else 0.0
        return Lag(float(p50), float(p99), float(lags.max()) * MS, len(picked), len(late), running)


class InProcessServer(uvicorn.Server):
    """uvicorn on the caller's loop; signals stay with the benchmark (Ctrl-C cleans up)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def with_settle(app: Starlette) -> ASGIApp:
    """``app`` plus ``POST /_bench/settle``: wait until the last turns are recorded and indexed.

    Only the load client calls it, between measured requests, so that one
    request's background recording does not run into the next one's timing.
    It answers with the CPU time of the loop's thread and of the whole process.
    """

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == SETTLE_PATH:
            await asyncio.sleep(SETTLE_SECONDS)
            await proxy_state(app).memory.flush()
            cpu = {"loop_cpu": time.thread_time(), "process_cpu": time.process_time()}
            await JSONResponse(cpu)(scope, receive, send)
            return
        await app(scope, receive, send)

    return wrapped


async def seed(config: OrmaConfig, embedder: Embedder, count: int) -> int:
    """The bench space with ``count`` corpus notes, embedded and consolidated; its sentences.

    A user's memory is mostly consolidated already, so sleep runs over the seed
    before the proxy starts (by its rules: no LLM here), not during the timing.
    A reused database keeps what it has and only gets the notes it lacks.
    """
    notes = corpus.notes(count)
    rules_only = config.model_copy(update={"upstream": NO_UPSTREAM})
    async with AsyncMemory(config=rules_only, embedder=embedder) as memory:
        have = (await memory.stats(SPACE)).episodes
        for start in range(min(have, count), count, SEED_BATCH):
            await asyncio.gather(
                *(
                    memory.add(note.text, SPACE, note.role, at=note.said_at)
                    for note in notes[start : start + SEED_BATCH]
                )
            )
        await memory.flush()
        await memory.sleep(SPACE)
        return (await memory.stats(SPACE)).sentences


@contextlib.asynccontextmanager
async def serving(app: ASGIApp) -> AsyncIterator[str]:
    """The proxy served by uvicorn on this loop (as ``orma proxy`` serves it); yields its URL."""
    sock = listening_socket()
    server = InProcessServer(
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            ws="none",
            lifespan="on",
            server_header=False,
            timeout_graceful_shutdown=5,
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not server.started:
            if task.done():
                task.result()
                raise RuntimeError("the proxy stopped while starting")
            if time.monotonic() > deadline:
                raise TimeoutError("the proxy did not start in time")
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, STOP_TIMEOUT_SECONDS)
        sock.close()


def load_args(args: argparse.Namespace, direct: str, proxy: str, bare: str) -> list[str]:
    return [
        "bench.load",
        f"--direct={direct}",
        f"--proxy={proxy}",
        f"--settle={proxy}{SETTLE_PATH}",
        f"--bare={bare}",
        *load_options_argv(args),
    ]


async def run(args: argparse.Namespace, folder: Path) -> Report:
    say("loading the embedder...")
    settings = (
        OrmaConfig() if args.embed_threads is None else OrmaConfig(embed_threads=args.embed_threads)
    )
    embedder = await asyncio.to_thread(load_embedder, settings)
    async with child("bench.upstream", stdout=asyncio.subprocess.PIPE) as upstream:
        assert upstream.stdout is not None
        port = int((await upstream.stdout.readline()).decode().strip())
        direct = f"http://127.0.0.1:{port}"
        await wait_until_up(f"{direct}/v1/models")
        config = OrmaConfig(
            home=folder / "home", db_path=args.db or folder / "memory.db", upstream=f"{direct}/v1"
        )
        say(f"seeding {args.notes:,} notes...")
        sentences = await seed(config, embedder, args.notes)
        monitor = LagMonitor()
        lag_task = asyncio.create_task(monitor.run())
        try:
            app = create_app(config, embedder=embedder, own_process=True)  # as `orma proxy`
            async with serving(with_settle(app)) as proxy, serving(bare_relay(direct)) as bare:
                load_before = os.getloadavg()[0]
                started = time.monotonic()
                async with child(
                    *load_args(args, direct, proxy, bare), stdout=asyncio.subprocess.PIPE
                ) as load:
                    out, _ = await load.communicate()
                if load.returncode != 0:
                    raise RuntimeError(f"the load client failed (exit {load.returncode})")
                finished = time.monotonic()
                load_after = os.getloadavg()[0]
        finally:
            lag_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await lag_task
    result = LoadResult(**json.loads(out))
    return Report(
        command=" ".join(["python -m bench.proxy", *sys.argv[1:]]),
        notes=args.notes,
        sentences=sentences,
        model=embedder.model_id,
        embed_threads=settings.embed_threads,
        cpus=os.cpu_count() or 0,
        load_before=load_before,
        load_after=load_after,
        python=platform.python_version(),
        http_parser="httptools" if importlib.util.find_spec("httptools") else "h11",
        event_loop=type(asyncio.get_running_loop()).__module__.split(".")[0],
        ttft_chunks=args.ttft_chunks,
        long_chunks=args.long_chunks,
        paced_chunk_ms=args.paced_chunk_ms,
        streams=args.streams,
        concurrent_chunks=args.concurrent_chunks,
        ttft_direct=Spread.of(result.ttft_direct),
        ttft_proxy=Spread.of(result.ttft_proxy),
        recall=Spread.of(result.recall_ms, scale=1.0),
        ttft_bare_direct=Spread.of(result.ttft_bare_direct),
        ttft_bare=Spread.of(result.ttft_bare),
        long_direct=Spread.of(result.long_direct),
        long_proxy=Spread.of(result.long_proxy),
        long_direct_after_first=Spread.of(result.long_direct_after_first),
        long_proxy_after_first=Spread.of(result.long_proxy_after_first),
        paced_direct=Spread.of(result.paced_direct),
        paced_proxy=Spread.of(result.paced_proxy),
        concurrent_direct=Spread.of(result.concurrent_direct),
        concurrent_proxy=Spread.of(result.concurrent_proxy),
        concurrent_recall=Spread.of(result.concurrent_recall_ms, scale=1.0),
        ttft_loop_cpu=Spread.of(result.ttft_loop_cpu),
        long_loop_cpu=Spread.of(result.long_loop_cpu),
        long_process_cpu=Spread.of(result.long_process_cpu),
        lag_concurrent=monitor.between(result.concurrent_windows),
        lag_run=monitor.between([(started, finished)]),
    )


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.proxy", description=__doc__)
    parser.add_argument("--notes", type=int, default=DEFAULT_NOTES, help="notes in memory")
    add_load_options(parser)
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="keep the seeded memory in this file and reuse it next time (default: a "
        "temporary one); a reused file also holds the turns earlier runs recorded",
    )
    parser.add_argument(
        "--embed-threads",
        type=int,
        default=None,
        help="onnxruntime threads per embedding call (default: the config's, 0 = all cores)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument(
        "--write",
        action=argparse.BooleanOptionalAction,
        default=True,
        help=f"write the table to {RESULTS_FILE.relative_to(ROOT)}",
    )
    return parser.parse_args(argv)


async def main_async(args: argparse.Namespace) -> Report:
    """``run`` in a temporary folder; SIGTERM cancels it like Ctrl-C, so children are reaped."""
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    with tempfile.TemporaryDirectory(prefix="orma-bench-proxy-") as folder:
        return await run(args, Path(folder))


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    try:
        # The event loop `orma proxy` gets from uvicorn ("auto": uvloop when installed).
        loop_factory = uvicorn.Config(app="orma_proxy.server:create_app").get_loop_factory()
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            report = runner.run(main_async(args))
    except KeyboardInterrupt:
        sys.exit(EXIT_INTERRUPTED)
    except asyncio.CancelledError:  # SIGTERM: the children are already stopped
        sys.exit(EXIT_TERMINATED)
    table = render(report)
    if args.write:
        RESULTS_FILE.write_text(f"# Proxy benchmark\n\n{table}\n", "utf-8")
    print(json.dumps(asdict(report), indent=2) if args.json else table)


if __name__ == "__main__":
    main()
