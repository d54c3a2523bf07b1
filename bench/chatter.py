"""A real small model's filler: does recall's screen keep it out of the block?

``python -m bench.chatter [--data PATH] [--show N]``

Scores ``recall.chatter.screen`` on replies SmolLM2-135M-Instruct wrote to user
turns that a helper wrote and labelled sentence by sentence (filler or content)
without reading Orma's code: ``bench/data/heldout/smollm2_replies.jsonl`` (see
``smollm2_README.md`` beside it). Each sentence is screened as the assistant's,
said right after its user turn, as recall sees a found sentence. Printed: the
share of filler hidden and of content kept, on every sentence, on the labeller's
clear calls only, and without the replies' cut-off last sentences. A held-out
set: never tune rules on it. Not part of pytest.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from orma_proxy.recall.chatter import Said, screen

DEFAULT_DATA = Path(__file__).parent / "data" / "heldout" / "smollm2_replies.jsonl"


@dataclass(frozen=True)
class Sentence:
    id: str
    user: str
    text: str
    filler: bool
    borderline: bool
    cut_off: bool


def load(path: Path) -> list[Sentence]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [
        Sentence(
            r["id"],
            r["user"],
            r["sentence"],
            r["label"] == "filler",
            bool(r.get("borderline")),
            bool(r.get("cut_off")),
        )
        for r in rows
    ]


def shown(sentence: Sentence) -> bool:
    """Whether recall's screen lets the sentence into the block."""
    found = [Said(sentence.text, "assistant", 2)]
    statements = [Said(sentence.user, "user", 1)]
    return screen(found, "", chat_roles=("user", "assistant"), statements=statements)[0]


def score(sentences: list[Sentence]) -> tuple[str, str]:
    filler = [s for s in sentences if s.filler]
    content = [s for s in sentences if not s.filler]
    hidden = sum(not shown(s) for s in filler)
    kept = sum(shown(s) for s in content)
    return (
        f"{hidden}/{len(filler)} ({100 * hidden / max(len(filler), 1):.1f}%)",
        f"{kept}/{len(content)} ({100 * kept / max(len(content), 1):.1f}%)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--show", type=int, default=0, help="misjudged sentences to list")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no held-out replies at {args.data}", file=sys.stderr)
        return 2
    sentences = load(args.data)
    subsets = {
        "all sentences": sentences,
        "clear calls": [s for s in sentences if not s.borderline],
        "clear, whole sentences": [s for s in sentences if not (s.borderline or s.cut_off)],
    }
    print(f"{'':<24} {'filler hidden':>20} {'content kept':>20}")
    for name, subset in subsets.items():
        hidden, kept = score(subset)
        print(f"{name:<24} {hidden:>20} {kept:>20}")
    if args.show:
        wrong = [s for s in sentences if not s.borderline and shown(s) == s.filler]
        print(f"\nmisjudged clear calls ({len(wrong)}), first {args.show}:")
        for s in wrong[: args.show]:
            print(f"  {s.id} {'filler shown' if s.filler else 'content hidden'}: {s.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
