"""Recall latency with every mechanism on, and the cost of each, by turning it off.

``python -m bench.ablation [--notes 10000] [--queries 200] [--json]``

A store of ``--notes`` notes from ``bench.corpus`` is built with the real
default embedder and consolidated by the rule-based sleep (so there are
states, superseded states and entity links to rank and spread over); each
query is then recalled as the proxy recalls it (``AsyncMemory.recall``, warm,
query embedding included, one at a time), with all switches on, then with
each one off, every query under every variant in turn. ``search`` alone (no
ranking, no block) is the baseline. A switch's cost is the p50 difference
between all on and it off.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from bench import corpus
from bench.latency import bench_config, build_store, load_average
from bench.latency_report import Quantiles
from bench.latency_search import SPACE, timed
from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.models import load_embedder

DEFAULT_NOTES = 10_000
DEFAULT_QUERIES = 200
WARMUP = 20
SWITCHES = (
    "enable_spreading_activation",
    "enable_hawkes",
    "enable_ebbinghaus",
    "enable_base_level",
    "enable_novelty_gate",
    "enable_similarity_weighting",
    "enable_sutra_packing",
    "enable_semantic",
)
TARGET_P95_MS = 15.0
SEARCH_ONLY = "search only"
ALL_ON = "recall, all on"


@dataclass(frozen=True)
class Variant:
    name: str
    latency: Quantiles


@dataclass(frozen=True)
class Report:
    notes: int
    sentences: int
    states: int
    model: str
    load_before: float
    load_after: float
    variants: list[Variant]


async def measure(
    mem: AsyncMemory, variants: dict[str, OrmaConfig], queries: list[str]
) -> list[Variant]:
    """Each query under every variant in turn, so load on a shared machine hits all alike."""
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for i, query in enumerate(queries[:WARMUP] + queries):
        for name, config in variants.items():
            mem.config = config
            call = mem.search if name == SEARCH_ONLY else mem.recall
            seconds = await timed(functools.partial(call, query, SPACE))
            if i >= WARMUP:
                samples[name].append(seconds)
    return [Variant(name, Quantiles.of(times)) for name, times in samples.items()]


async def run(notes: int, query_count: int) -> Report:
    embedder = await asyncio.to_thread(load_embedder, OrmaConfig())
    queries = corpus.queries(query_count)
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="orma-ablation-") as tmp:
        config = bench_config(Path(tmp)).model_copy(update={"upstream": ""})
        print(f"building {notes:,} notes...", file=sys.stderr, flush=True)
        await build_store(config, embedder, corpus.notes(notes))
        async with AsyncMemory(config=config, embedder=embedder) as mem:
            await mem.flush()
            await mem.sleep(SPACE)
            stats = await mem.stats(SPACE)
            variants = {SEARCH_ONLY: config, ALL_ON: config} | {
                f"{switch} off": config.model_copy(update={switch: False}) for switch in SWITCHES
            }
            print(f"timing {len(variants)} variants...", file=sys.stderr, flush=True)
            measured = await measure(mem, variants, queries)
    return Report(
        notes, stats.sentences, stats.states_active + stats.states_closed, embedder.model_id,
        load_before, load_average(), measured,
    )  # fmt: skip


def render(report: Report) -> str:
    base = report.variants[1].latency
    lines = [
        f"{report.notes:,} notes ({report.sentences:,} sentences, {report.states:,} states "
        f"from the rule-based sleep), model {report.model}, "
        f"load average {report.load_before:.2f} before / {report.load_after:.2f} after. "
        "Times in ms (p50 / p95 / p99), query embedding included.",
        "",
        "| variant | latency | p50 vs all on |",
        "|---|---:|---:|",
    ]
    for v in report.variants:
        delta = v.latency.p50 - base.p50
        lines.append(f"| {v.name} | {v.latency.cell()} | {delta:+.2f} |")
    verdict = "within" if base.p95 <= TARGET_P95_MS else "over"
    lines += ["", f"All on: p95 {base.p95:.2f} ms, {verdict} the {TARGET_P95_MS:.0f} ms target."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ablation", description=__doc__)
    parser.add_argument("--notes", type=int, default=DEFAULT_NOTES)
    parser.add_argument("--queries", type=int, default=DEFAULT_QUERIES)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = asyncio.run(run(args.notes, args.queries))
    print(json.dumps(asdict(report), indent=2) if args.json else render(report))


if __name__ == "__main__":
    main()
