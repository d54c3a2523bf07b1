"""What ``bench.proxy`` measured and how it prints it: spreads, loop lag, the report table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

# The loop-lag monitor's timer; a sample is how much later than this it fired.
LAG_INTERVAL_SECONDS = 0.01
LAG_PERCENTILES = (50, 99)
# The targets.
TTFT_ALLOWANCE_MS = 3.0
LONG_STREAM_MAX_RATIO = 1.1
LOOP_LAG_MAX_MS = 50.0
MS = 1_000.0


@dataclass(frozen=True)
class Spread:
    """Median and p95 of a sample, in milliseconds."""

    median: float
    p95: float
    n: int

    @classmethod
    def of(cls, seconds: Sequence[float], scale: float = MS) -> Spread:
        median, p95 = np.percentile(np.asarray(seconds) * scale, (50, 95))
        return cls(float(median), float(p95), len(seconds))


@dataclass(frozen=True)
class Lag:
    """How late the proxy loop's timers fired, in milliseconds."""

    p50: float
    p99: float
    max: float
    samples: int
    # Of the time covered by samples later than LOOP_LAG_MAX_MS: the share the loop's
    # thread ran (busy with work), the rest it waited for a CPU core or the GIL.
    late_samples: int
    late_running_share: float


@dataclass(frozen=True)
class Report:
    """One run: its settings, the machine, and every figure."""

    command: str
    notes: int
    sentences: int
    model: str
    embed_threads: int
    cpus: int
    load_before: float
    load_after: float
    python: str
    http_parser: str
    event_loop: str
    ttft_chunks: int
    long_chunks: int
    paced_chunk_ms: int
    streams: int
    concurrent_chunks: int
    ttft_direct: Spread
    ttft_proxy: Spread
    recall: Spread
    ttft_bare_direct: Spread
    ttft_bare: Spread
    long_direct: Spread
    long_proxy: Spread
    long_direct_after_first: Spread
    long_proxy_after_first: Spread
    paced_direct: Spread
    paced_proxy: Spread
    concurrent_direct: Spread
    concurrent_proxy: Spread
    concurrent_recall: Spread
    ttft_loop_cpu: Spread
    long_loop_cpu: Spread
    long_process_cpu: Spread
    lag_concurrent: Lag
    lag_run: Lag

    @property
    def ttft_overhead_ms(self) -> float:
        return self.ttft_proxy.median - self.ttft_direct.median

    @property
    def bare_overhead_ms(self) -> float:
        return self.ttft_bare.median - self.ttft_bare_direct.median

    @property
    def ttft_target_ms(self) -> float:
        return self.recall.median + TTFT_ALLOWANCE_MS

    @property
    def long_ratio(self) -> float:
        return self.long_proxy.median / self.long_direct.median

    @property
    def paced_ratio(self) -> float:
        return self.paced_proxy.median / self.paced_direct.median

    @property
    def relay_ratio(self) -> float:
        return self.long_proxy_after_first.median / self.long_direct_after_first.median

    @property
    def concurrent_ratio(self) -> float:
        return self.concurrent_proxy.median / self.concurrent_direct.median


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def render(report: Report) -> str:
    """The Markdown table, with the command and the machine."""
    r = report
    lag = r.lag_concurrent
    return "\n".join(
        [
            f"`{r.command}`",
            "",
            f"{r.cpus} CPUs (shared), load average {r.load_before:.2f} before / "
            f"{r.load_after:.2f} after, Python {r.python}, uvicorn ({r.http_parser}) on the "
            f"{r.event_loop} event loop. Memory: {r.notes:,} corpus notes "
            f"({r.sentences:,} sentences), "
            f"{r.model} ({r.embed_threads or 'all'} embedding threads a call). Upstream, "
            "proxy and load client are separate processes on 127.0.0.1. Times in ms, "
            "median (p95).",
            "",
            "| measure | direct | through Orma | proxy cost | target |",
            "|---|---:|---:|---:|---|",
            f"| time to first token, {r.ttft_chunks}-chunk stream, {r.ttft_direct.n} runs | "
            f"{cell(r.ttft_direct)} | {cell(r.ttft_proxy)} | "
            f"+{r.ttft_overhead_ms:.2f} ms (recall {cell(r.recall)}) | "
            f"<= recall + {TTFT_ALLOWANCE_MS:.0f} ms = {r.ttft_target_ms:.2f} ms: "
            f"{verdict(r.ttft_overhead_ms <= r.ttft_target_ms)} |",
            f"| the same, through a bare Starlette + httpx relay with no memory (`bench.relay`) | "
            f"{cell(r.ttft_bare_direct)} | {cell(r.ttft_bare)} | "
            f"+{r.bare_overhead_ms:.2f} ms | - |",
            f"| total time, {r.long_chunks:,}-chunk stream, one chunk every "
            f"{r.paced_chunk_ms} ms (a model's pace), {r.paced_direct.n} runs | "
            f"{cell(r.paced_direct)} | {cell(r.paced_proxy)} | {r.paced_ratio:.3f}x | "
            f"<= {LONG_STREAM_MAX_RATIO}x: {verdict(r.paced_ratio <= LONG_STREAM_MAX_RATIO)} |",
            f"| total time, {r.long_chunks:,}-chunk stream, no pause between chunks, "
            f"{r.long_direct.n} runs | {cell(r.long_direct)} | {cell(r.long_proxy)} | "
            f"{r.long_ratio:.2f}x | "
            f"<= {LONG_STREAM_MAX_RATIO}x: {verdict(r.long_ratio <= LONG_STREAM_MAX_RATIO)} |",
            f"| the same streams, first token to end (the relay alone) | "
            f"{cell(r.long_direct_after_first)} | {cell(r.long_proxy_after_first)} | "
            f"{r.relay_ratio:.2f}x | - |",
            f"| wall time, {r.streams} concurrent {r.concurrent_chunks}-chunk streams, "
            f"{r.concurrent_direct.n} rounds | {cell(r.concurrent_direct)} | "
            f"{cell(r.concurrent_proxy)} | {r.concurrent_ratio:.2f}x "
            f"(recall {cell(r.concurrent_recall)} each) | - |",
            f"| proxy loop lag during the {r.streams} streams, p50 / p99 / max | - | "
            f"{lag.p50:.1f} / {lag.p99:.1f} / {lag.max:.1f} | {lag.samples} samples | "
            f"< {LOOP_LAG_MAX_MS:.0f} ms: {verdict(lag.max < LOOP_LAG_MAX_MS)} |",
            "",
            f"While late by over {LOOP_LAG_MAX_MS:.0f} ms ({lag.late_samples} samples), the "
            f"loop's thread ran {lag.late_running_share:.0%} of the time; the rest it waited "
            "for a CPU core or the GIL.",
            "",
            f"Loop lag over the whole run: p50 {r.lag_run.p50:.1f}, p99 {r.lag_run.p99:.1f}, "
            f"max {r.lag_run.max:.1f} ms ({r.lag_run.samples} samples of a "
            f"{LAG_INTERVAL_SECONDS * MS:.0f} ms timer).",
            "",
            f"Proxy CPU per turn, median (p95), recording and indexing included: "
            f"{r.ttft_chunks}-chunk stream {cell(r.ttft_loop_cpu)} ms on the event loop; "
            f"{r.long_chunks:,}-chunk stream {cell(r.long_loop_cpu)} ms on the event loop, "
            f"{cell(r.long_process_cpu)} ms in the whole process (embedding threads included).",
        ]
    )


def cell(spread: Spread) -> str:
    return f"{spread.median:.2f} ({spread.p95:.2f})"
