"""Streaming a large file through ``orma add``: peak memory and speed by file size.

``python -m bench.ingest [--sizes-mb 2,200] [--embed] [--json]``

For each size a text file is generated (Markdown: headings, paragraphs of
sentences drawn from a fixed vocabulary, seeded) and stored by a fresh
``python -m orma_proxy.cli add FILE --no-wait`` subprocess on a new database,
so embedding is deferred (``--embed`` waits for it instead: minutes per MB).
Each run reports its wall time, the episodes and sentences stored, sentences
per second, and the subprocess's own peak RSS (``wait4``'s ``ru_maxrss``).
The bar (issue 15): the peak of the largest file is at most 1.3x that of the
smallest.

Measurements for the README, not a timed test: every figure comes from this run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DEFAULT_SIZES_MB = (2, 200)
MAX_PEAK_RATIO = 1.3
_WORDS = [
    *("river", "stone", "garden", "lamp", "window", "paper", "music", "coffee", "market"),
    *("train", "letter", "winter", "harbour", "cloud", "ladder", "orange", "village"),
    *("engine", "meadow", "candle", "bridge", "forest", "silver", "kitchen", "doctor"),
    *("teacher", "morning", "evening", "basket", "mirror", "pocket"),
]


@dataclass(frozen=True)
class IngestRun:
    megabytes: float
    episodes: int
    sentences: int
    seconds: float
    sentences_per_second: float
    peak_rss_mb: float
    exit_code: int


def write_text(path: Path, size_bytes: int, seed: int = 7) -> None:
    """Markdown of about ``size_bytes``: a heading every ~40 paragraphs of 3-7 sentences."""
    rng = random.Random(seed)
    sentences = [
        " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
        for _ in range(2000)
    ]
    written = 0
    section = 0
    with path.open("w", encoding="utf-8") as out:
        while written < size_bytes:
            section += 1
            chunk = [f"## Section {section}\n\n"]
            for _ in range(40):
                paragraph = " ".join(rng.choice(sentences) for _ in range(rng.randint(3, 7)))
                chunk.append(paragraph + "\n\n")
            block = "".join(chunk)
            out.write(block)
            written += len(block.encode("utf-8"))


def run_add(file: Path, home: Path, *, embed: bool) -> IngestRun:
    """One ``orma add`` subprocess on a new database; its own peak RSS from ``wait4``."""
    env = {**os.environ, "ORMA_DIR": str(home), "HF_HUB_OFFLINE": "1"}
    command = [sys.executable, "-m", "orma_proxy.cli", "add", str(file), "--json"]
    if not embed:
        command.append("--no-wait")
    started = time.monotonic()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    report: dict[str, Any] = json.loads(output) if output.strip() else {"added": []}
    episodes = sum(len(entry["episode_ids"]) for entry in report["added"])
    sentences = sum(int(entry["sentences"]) for entry in report["added"])
    return IngestRun(
        megabytes=round(file.stat().st_size / 1e6, 1),
        episodes=episodes,
        sentences=sentences,
        seconds=round(seconds, 1),
        sentences_per_second=round(sentences / seconds),
        peak_rss_mb=round(usage.ru_maxrss / 1024, 1),  # Linux reports KiB
        exit_code=process.returncode,
    )


def run(sizes_mb: Sequence[float], *, embed: bool) -> list[IngestRun]:
    runs = []
    with tempfile.TemporaryDirectory(prefix="orma-bench-ingest-") as folder:
        root = Path(folder)
        for size in sizes_mb:
            file = root / f"generated-{size:g}mb.md"
            write_text(file, int(size * 1_000_000))
            runs.append(run_add(file, root / f"home-{size:g}", embed=embed))
            file.unlink()
    return runs


def report(runs: list[IngestRun], *, embed: bool) -> str:
    lines = [
        f"`orma add FILE{'' if embed else ' --no-wait'}`, one fresh subprocess and database "
        f"per file; {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.2f} after.",
        "",
        "| file | episodes | sentences | seconds | sentences/s | peak RSS | exit |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in runs:
        lines.append(
            f"| {r.megabytes:,} MB | {r.episodes:,} | {r.sentences:,} | {r.seconds:,} | "
            f"{r.sentences_per_second:,} | {r.peak_rss_mb:,} MB | {r.exit_code} |"
        )
    smallest, largest = runs[0], runs[-1]
    if len(runs) > 1:
        ratio = largest.peak_rss_mb / smallest.peak_rss_mb
        verdict = "within" if ratio <= MAX_PEAK_RATIO else "OVER"
        lines += [
            "",
            f"- peak RSS {largest.megabytes:,} MB / {smallest.megabytes:,} MB = {ratio:.2f}x "
            f"({verdict} the {MAX_PEAK_RATIO}x bar).",
        ]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest", description=__doc__)
    parser.add_argument(
        "--sizes-mb",
        default=",".join(str(s) for s in DEFAULT_SIZES_MB),
        help="Comma-separated file sizes in MB, smallest first.",
    )
    parser.add_argument("--embed", action="store_true", help="Wait for the embedding too.")
    parser.add_argument("--json", action="store_true", help="Print the runs as JSON.")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    sizes = [float(s) for s in args.sizes_mb.split(",")]
    runs = run(sizes, embed=args.embed)
    if args.json:
        print(json.dumps([asdict(r) for r in runs], indent=2))
    else:
        print(report(runs, embed=args.embed))
    if any(r.exit_code != 0 for r in runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
