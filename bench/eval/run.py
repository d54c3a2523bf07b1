"""Multi-session scenarios: was the needed fact in the memory block? (and, with a model, the answer)

``python -m bench.eval.run [--budget 256] [--ablation] [--upstream URL --model NAME] [--json]``

Each case of ``cases.json`` gets a fresh store: the shared filler notes, then
its sessions at their dates; the rule-based sleep consolidates (no LLM, so it
runs offline and the same every time); then the block for its question is
recalled at ``ask_at``. A case passes when every ``expect`` string is in the
block and no ``reject`` string is (a reject is a wrong fact presented as
current, e.g. ``[user.home city: Pune]`` after a move). ``--ablation`` runs
it once per switch turned off. The default budget is small on purpose: with
4,096 tokens a 20-note store fits whole and ranking decides nothing.

``--upstream`` also asks a real OpenAI-compatible model each question with
and without the block, and checks its answer contains the first ``expect``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.embed.base import Embedder
from orma_proxy.embed.models import load_embedder

CASES = Path(__file__).with_name("cases.json")
SPACE = "eval"
DEFAULT_BUDGET = 256
FILLER_START = datetime.fromisoformat("2026-01-02T12:00:00+05:30")
SWITCHES = (
    "enable_semantic",
    "enable_novelty_gate",
    "enable_similarity_weighting",
    "enable_base_level",
    "enable_hawkes",
    "enable_ebbinghaus",
    "enable_spreading_activation",
    "enable_defeasible_logic",
    "enable_sutra_packing",
)
ANSWER_MAX_TOKENS = 64
UPSTREAM_TIMEOUT = 120.0


@dataclass(frozen=True)
class Outcome:
    """One case under one configuration."""

    case: str
    kind: str
    passed: bool
    tokens: int
    answered_with: bool | None = None
    answered_without: bool | None = None


def load_cases() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CASES.read_text(encoding="utf-8"))
    return data


async def run_case(
    case: dict[str, Any],
    filler: list[str],
    config: OrmaConfig,
    embedder: Embedder,
    ask: httpx.AsyncClient | None,
    model: str | None,
) -> Outcome:
    async with AsyncMemory(config=config, embedder=embedder) as mem:
        for i, text in enumerate(filler):
            await mem.add(text, SPACE, role="user", at=FILLER_START + timedelta(days=i))
        for session in case["sessions"]:
            await mem.add(session["text"], SPACE, role=session["role"], at=session["at"])
        await mem.sleep(SPACE)
        await mem.flush()
        block = await mem.recall(case["question"], SPACE, at=case["ask_at"])
    text = block.text.lower()  # "[FORBIDDEN: ...]" in Sutra is "Forbidden:" in classic
    passed = all(e.lower() in text for e in case["expect"]) and not any(
        r.lower() in text for r in case["reject"]
    )
    outcome = Outcome(case["id"], case["kind"], passed, block.tokens)
    if ask is not None:
        expected = case["expect"][0].lower()
        with_memory = await answer(ask, model, case["question"], block.text)
        without = await answer(ask, model, case["question"], None)
        outcome = Outcome(
            case["id"], case["kind"], passed, block.tokens,
            expected in with_memory.lower(), expected in without.lower(),
        )  # fmt: skip
    return outcome


async def answer(
    client: httpx.AsyncClient, model: str | None, question: str, block: str | None
) -> str:
    messages = [{"role": "system", "content": block}] if block else []
    body = {
        "model": model or "default",
        "messages": [*messages, {"role": "user", "content": question}],
        "max_tokens": ANSWER_MAX_TOKENS,
        "temperature": 0,
    }
    reply = await client.post("/chat/completions", json=body)
    reply.raise_for_status()
    return str(reply.json()["choices"][0]["message"]["content"] or "")


async def run_all(
    config_updates: dict[str, Any],
    budget: int,
    upstream: str | None,
    model: str | None,
) -> list[Outcome]:
    data = load_cases()
    embedder = await asyncio.to_thread(load_embedder, OrmaConfig())
    outcomes = []
    client = httpx.AsyncClient(base_url=upstream, timeout=UPSTREAM_TIMEOUT) if upstream else None
    try:
        with tempfile.TemporaryDirectory(prefix="orma-eval-") as tmp:
            for case in data["cases"]:
                folder = Path(tmp) / case["id"]
                config = OrmaConfig(
                    home=folder / "home",
                    db_path=folder / "memory.db",
                    upstream="",
                    timezone="Asia/Kolkata",
                    budget_tokens=budget,
                    **config_updates,
                )
                outcomes.append(
                    await run_case(case, data["filler"], config, embedder, client, model)
                )
    finally:
        if client is not None:
            await client.aclose()
    return outcomes


def summary(outcomes: list[Outcome]) -> dict[str, tuple[int, int]]:
    """Passed / total per kind, and overall."""
    table: dict[str, tuple[int, int]] = {}
    for o in outcomes:
        for key in (o.kind, "all"):
            won, total = table.get(key, (0, 0))
            table[key] = (won + o.passed, total + 1)
    return table


def render_ablation(results: dict[str, list[Outcome]]) -> str:
    kinds = [*sorted({o.kind for o in next(iter(results.values()))}), "all"]
    lines = [
        "| configuration | " + " | ".join(kinds) + " | mean block tokens |",
        "|---|" + "---:|" * (len(kinds) + 1),
    ]
    for name, outcomes in results.items():
        table = summary(outcomes)
        cells = " | ".join(f"{table[k][0]}/{table[k][1]}" for k in kinds)
        tokens = sum(o.tokens for o in outcomes) / len(outcomes)
        lines.append(f"| {name} | {cells} | {tokens:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.eval.run", description=__doc__)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--ablation", action="store_true", help="each switch off, one at a time")
    parser.add_argument("--upstream", help="OpenAI-compatible base URL (…/v1) to ask")
    parser.add_argument("--model", help="model name for --upstream")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    variants: dict[str, dict[str, Any]] = {"all on": {}}
    if args.ablation:
        variants |= {f"{s} off": {s: False} for s in SWITCHES}
    results = {
        name: asyncio.run(run_all(updates, args.budget, args.upstream, args.model))
        for name, updates in variants.items()
    }
    if args.json:
        print(json.dumps({k: [asdict(o) for o in v] for k, v in results.items()}, indent=2))
        return
    print(render_ablation(results))
    failed = [o.case for o in results["all on"] if not o.passed]
    print(f"\nall on, budget {args.budget}: failed {', '.join(failed) or 'none'}")
    if args.upstream:
        outcomes = results["all on"]
        with_memory = sum(bool(o.answered_with) for o in outcomes)
        without = sum(bool(o.answered_without) for o in outcomes)
        print(f"model answers: {with_memory}/{len(outcomes)} with Orma, {without} without")


if __name__ == "__main__":
    main()
