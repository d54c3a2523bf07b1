"""The proxy benchmark's load client: streams from the upstream directly and through Orma.

``python -m bench.load --direct URL --proxy URL [--settle URL] [options]`` runs
four or five phases and prints one JSON object (``LoadResult``) on stdout:

- ``ttft``: short streams one at a time, each sent direct then through the proxy
  (order alternating), time to the first content chunk, plus the proxy's
  ``x-orma-recall-ms`` header;
- ``bare`` (with ``--bare``): the same short streams direct and through a relay
  that has no memory at all (``bench.relay``): the floor under the proxy's cost;
- ``long``: one long stream at a time, direct and proxy interleaved, total time;
- ``paced``: the same with the upstream sending a chunk every ``--paced-chunk-ms``
  (a fast model's pace): what a user waits for a long reply;
- ``concurrent``: many streams at once, wall time of the whole batch; the
  proxy batches' start and end (``time.monotonic()``, one clock for every
  process of the machine) let the caller pick out its loop-lag samples.

It runs in its own process so that reading the streams never shares a GIL with
the proxy. Every request says the same thing either way (a corpus question);
between proxy requests the client asks ``--settle`` to let the proxy finish
recording the turn, as a person's next message would come seconds later.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import httpx

from bench import corpus
from bench.upstream import PACE_FIELD

SPACE = "bench"
SYSTEM_PROMPT = "You are a helpful assistant. Answer briefly."
WARMUP_REQUESTS = 3
# Idle time before each measured single stream (see ``paired``).
PAUSE_SECONDS = 0.1
# Events a stream ends with after its content: the ``stop`` chunk and ``[DONE]``.
TRAILING_EVENTS = 2
EVENT_END = b"\n\n"
CONTENT_MARK = b'"content"'
TIMEOUT_SECONDS = 120.0
# Idle connections are dropped before uvicorn's 5 s keep-alive ends: reusing one the
# server is closing at that instant fails the request (a POST is not retried).
KEEPALIVE_SECONDS = 2.0
# The phase sizes: option name -> (default, meaning).
LOAD_OPTIONS: dict[str, tuple[int, str]] = {
    "ttft_runs": (50, "short streams timed to their first token, each way"),
    "ttft_chunks": (16, "chunks of a short stream"),
    "long_runs": (10, "long streams timed to their end, each way"),
    "long_chunks": (1_000, "chunks of a long stream"),
    "paced_runs": (5, "long streams at a model's pace, timed to their end, each way"),
    "paced_chunk_ms": (5, "milliseconds between the chunks of a paced stream"),
    "streams": (50, "streams at once in the concurrent phase"),
    "concurrent_chunks": (300, "chunks of each concurrent stream"),
    "rounds": (3, "rounds of concurrent streams, each way"),
}
# Seeds the questions so a run asks the same ones each time.
QUESTION_SEED = 20_250_101


@dataclass(frozen=True)
class Timing:
    """One stream as the client saw it (seconds)."""

    first_content: float
    total: float
    events: int
    recall_ms: float | None


@dataclass
class LoadResult:
    """Raw samples of every phase; the caller turns them into medians and ratios."""

    # CPU seconds the proxy spent per turn (settled: recorded and indexed).
    ttft_loop_cpu: list[float] = field(default_factory=list)
    long_loop_cpu: list[float] = field(default_factory=list)
    long_process_cpu: list[float] = field(default_factory=list)
    ttft_direct: list[float] = field(default_factory=list)
    ttft_proxy: list[float] = field(default_factory=list)
    # The same short streams direct and through a bare relay (``bench.relay``), paired.
    ttft_bare_direct: list[float] = field(default_factory=list)
    ttft_bare: list[float] = field(default_factory=list)
    recall_ms: list[float] = field(default_factory=list)
    long_direct: list[float] = field(default_factory=list)
    long_proxy: list[float] = field(default_factory=list)
    # The same streams from their first content chunk to their end: the relay alone.
    long_direct_after_first: list[float] = field(default_factory=list)
    long_proxy_after_first: list[float] = field(default_factory=list)
    # Long streams with the upstream pacing its chunks as a model does.
    paced_direct: list[float] = field(default_factory=list)
    paced_proxy: list[float] = field(default_factory=list)
    concurrent_direct: list[float] = field(default_factory=list)
    concurrent_proxy: list[float] = field(default_factory=list)
    # (start, end) of each proxy batch of the concurrent phase, time.monotonic().
    concurrent_windows: list[tuple[float, float]] = field(default_factory=list)
    concurrent_recall_ms: list[float] = field(default_factory=list)


class Target:
    """Where streams go: the upstream itself or the proxy in front of it."""

    def __init__(self, client: httpx.AsyncClient, base: str) -> None:
        self.client = client
        self.url = base.rstrip("/") + "/v1/chat/completions"

    async def stream(self, question: str, chunks: int, chunk_ms: int = 0) -> Timing:
        """Send one streamed chat request; read it to the end, counting events."""
        body: dict[str, object] = {
            "model": "bench-model",
            "stream": True,
            "max_tokens": chunks,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": question},
            ],
        }
        if chunk_ms:
            body[PACE_FIELD] = chunk_ms
        content = json.dumps(body).encode()
        headers = {"content-type": "application/json", "x-orma-space": SPACE}
        start = time.perf_counter()
        first: float | None = None
        events, tail = 0, b""
        async with self.client.stream(
            "POST", self.url, content=content, headers=headers
        ) as response:
            if response.status_code != httpx.codes.OK:
                await response.aread()
                raise RuntimeError(f"{self.url} answered {response.status_code}: {response.text}")
            async for data in response.aiter_raw():
                if first is None and CONTENT_MARK in data:
                    first = time.perf_counter()
                # An event's blank line may be split across two reads.
                events += (tail + data).count(EVENT_END)
                tail = data[-1:]
            total = time.perf_counter() - start
            recall = response.headers.get("x-orma-recall-ms")
        if events != chunks + TRAILING_EVENTS:
            raise RuntimeError(f"{self.url}: {events} events, expected {chunks + TRAILING_EVENTS}")
        assert first is not None
        return Timing(first - start, total, events, float(recall) if recall else None)


class Settler:
    """Asks the proxy to finish recording before the next measured request.

    The proxy answers with its CPU time so far; each call returns what it spent
    since the previous one (loop thread, whole process), or None the first time.
    """

    def __init__(self, client: httpx.AsyncClient, url: str | None) -> None:
        self.client = client
        self.url = url
        self.last: tuple[float, float] | None = None

    async def __call__(self) -> tuple[float, float] | None:
        if not self.url:
            return None
        answer = await self.client.post(self.url)
        answer.raise_for_status()
        cpu = answer.json()
        now = (float(cpu["loop_cpu"]), float(cpu["process_cpu"]))
        spent = None if self.last is None else (now[0] - self.last[0], now[1] - self.last[1])
        self.last = now
        return spent


@dataclass
class Paired:
    """One phase of single streams, direct and proxy interleaved."""

    direct: list[Timing] = field(default_factory=list)
    proxy: list[Timing] = field(default_factory=list)
    # The proxy's CPU seconds per turn: (loop thread, whole process).
    cpu: list[tuple[float, float]] = field(default_factory=list)


async def paired(
    direct: Target,
    proxy: Target,
    settle: Settler,
    questions: list[str],
    chunks: int,
    chunk_ms: int = 0,
) -> Paired:
    """One stream per question each way, one at a time, the order alternating."""
    result = Paired()
    await settle()
    for index, question in enumerate(questions):
        order = (direct, proxy) if index % 2 == 0 else (proxy, direct)
        for target in order:
            # A request sent the instant the client's previous response ended waited
            # ~40 ms more on this machine, whatever the server (uvicorn with h11 or
            # httptools): every measured request starts after the same short pause, as
            # a chat turn does, so neither side gets that delay.
            await asyncio.sleep(PAUSE_SECONDS)
            timing = await target.stream(question, chunks, chunk_ms)
            if target is proxy:
                result.proxy.append(timing)
                spent = await settle()
                if spent is not None:
                    result.cpu.append(spent)
            else:
                result.direct.append(timing)
    return result


async def batch(target: Target, questions: list[str], chunks: int) -> tuple[float, list[Timing]]:
    """Wall time of one stream per question, all at once."""
    start = time.perf_counter()
    timings = await asyncio.gather(*(target.stream(q, chunks) for q in questions))
    return time.perf_counter() - start, list(timings)


async def run(args: argparse.Namespace) -> LoadResult:
    result = LoadResult()
    questions = corpus.queries(
        args.ttft_runs
        + args.long_runs
        + args.paced_runs
        + args.rounds * args.streams
        + WARMUP_REQUESTS,
        seed=QUESTION_SEED,
    )
    limits = httpx.Limits(
        max_connections=2 * args.streams,
        max_keepalive_connections=args.streams,
        keepalive_expiry=KEEPALIVE_SECONDS,
    )
    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS, limits=limits, trust_env=False) as client:
        direct, proxy = Target(client, args.direct), Target(client, args.proxy)
        settle = Settler(client, args.settle)
        # Connections open, the proxy learns the context window, caches warm.
        for question in questions[:WARMUP_REQUESTS]:
            await direct.stream(question, args.ttft_chunks)
            await proxy.stream(question, args.ttft_chunks)
            await settle()
        asked = WARMUP_REQUESTS
        say("phase 1: time to first token")
        short = await paired(
            direct, proxy, settle, questions[asked : asked + args.ttft_runs], args.ttft_chunks
        )
        result.ttft_direct = [t.first_content for t in short.direct]
        result.ttft_proxy = [t.first_content for t in short.proxy]
        result.recall_ms = [t.recall_ms or 0.0 for t in short.proxy]
        result.ttft_loop_cpu = [loop for loop, _ in short.cpu]
        asked += args.ttft_runs
        if args.bare:
            say("phase 1b: time to first token through a bare relay")
            bare = await paired(
                direct,
                Target(client, args.bare),
                Settler(client, None),
                questions[asked - args.ttft_runs : asked],
                args.ttft_chunks,
            )
            result.ttft_bare_direct = [t.first_content for t in bare.direct]
            result.ttft_bare = [t.first_content for t in bare.proxy]
        say("phase 2: long streams")
        long = await paired(
            direct, proxy, settle, questions[asked : asked + args.long_runs], args.long_chunks
        )
        result.long_direct = [t.total for t in long.direct]
        result.long_proxy = [t.total for t in long.proxy]
        result.long_direct_after_first = [t.total - t.first_content for t in long.direct]
        result.long_proxy_after_first = [t.total - t.first_content for t in long.proxy]
        result.long_loop_cpu = [loop for loop, _ in long.cpu]
        result.long_process_cpu = [process for _, process in long.cpu]
        asked += args.long_runs
        say("phase 3: long streams at a model's pace")
        paced = await paired(
            direct,
            proxy,
            settle,
            questions[asked : asked + args.paced_runs],
            args.long_chunks,
            args.paced_chunk_ms,
        )
        result.paced_direct = [t.total for t in paced.direct]
        result.paced_proxy = [t.total for t in paced.proxy]
        asked += args.paced_runs
        say("phase 4: concurrent streams")
        for round_ in range(args.rounds):
            group = questions[asked : asked + args.streams]
            asked += args.streams
            order = (direct, proxy) if round_ % 2 == 0 else (proxy, direct)
            for target in order:
                if target is proxy:
                    opened = time.monotonic()
                    wall, timings = await batch(proxy, group, args.concurrent_chunks)
                    result.concurrent_windows.append((opened, time.monotonic()))
                    result.concurrent_proxy.append(wall)
                    result.concurrent_recall_ms += [t.recall_ms or 0.0 for t in timings]
                    await settle()
                else:
                    result.concurrent_direct.append(
                        (await batch(direct, group, args.concurrent_chunks))[0]
                    )
    return result


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def add_load_options(parser: argparse.ArgumentParser) -> None:
    """The phase sizes, as options (``bench.proxy`` takes them too and passes them on)."""
    for name, (default, meaning) in LOAD_OPTIONS.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default, help=meaning)


def load_options_argv(args: argparse.Namespace) -> list[str]:
    """``args``' phase sizes as ``bench.load`` options."""
    return [f"--{name.replace('_', '-')}={getattr(args, name)}" for name in LOAD_OPTIONS]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--direct", required=True, help="the upstream's base URL")
    parser.add_argument("--proxy", required=True, help="the proxy's base URL")
    parser.add_argument("--settle", default=None, help="POSTed between proxy requests")
    parser.add_argument("--bare", default=None, help="a bare relay's base URL (bench.relay)")
    add_load_options(parser)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    result = asyncio.run(run(parse_args(argv)))
    print(json.dumps(asdict(result)))


if __name__ == "__main__":
    main()
