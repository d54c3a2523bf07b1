"""Forgetting by description: does a correction, a release or a purge hit exactly what was meant?

``python -m bench.forgetting [--seed N] [--per-family N] [--per-kind N] [--show N]``

Cases come from ``bench/forgetting_cases.py`` (seeded; facts among 8-12
distractors, operations given as short descriptions, one final query with texts
that must and must not be in its top 10). Each case is its own space of one
memory. Orma passes a case when both ``search()``'s top 10 passages and the block
``recall()`` builds hold every ``must`` text and no ``must_not`` text (case
ignored); an ambiguous case passes when the operation raises
``AmbiguousDescriptionError`` naming at least two candidates and nothing changed.

The baseline, run on the same cases: plain BM25 over whole notes with
delete-by-keyword (every note holding all the description's words is deleted; a
correction then adds its note); it cannot answer with candidates, so it fails every
ambiguous case it changes. Not part of pytest.
"""

from __future__ import annotations

import argparse
import math
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.forgetting_cases import ADVERSARIAL, FAMILIES, Case, generate
from orma_proxy import Memory
from orma_proxy.errors import OrmaError
from orma_proxy.text.stopwords import STOPWORDS

TOP = 10
WORD = re.compile(r"\w+")
NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def holds(texts: list[str], case: Case) -> bool:
    joined = "\n".join(texts).lower()
    return all(m.lower() in joined for m in case.must) and not any(
        m.lower() in joined for m in case.must_not
    )


# --- Orma --------------------------------------------------------------------------------


def run_orma(memory: Memory, case: Case, space: str) -> tuple[bool, str]:
    """Pass or fail, and a line saying why (for ``--show``)."""
    for note in case.notes:
        memory.add(note.text, space=space, at=NOW - timedelta(days=note.days_ago))
    memory.flush()
    for op in case.operations:
        try:
            if op.kind == "supersede":
                memory.supersede(op.about, op.new or "", space)
            elif op.kind == "release":
                memory.release(op.about, space)
            else:
                memory.purge(op.about, space)
        except OrmaError as error:
            candidates = getattr(error, "candidates", ())
            if case.ambiguous and len(candidates) >= 2:
                continue
            return False, f"{op.kind}({op.about!r}) raised {type(error).__name__}: {error}"
        if case.ambiguous:
            return False, f"{op.kind}({op.about!r}) guessed instead of asking"
    memory.flush()
    found = [p.text for p in memory.search(case.query, space, k=TOP).passages]
    block = memory.recall(case.query, space).text
    if not holds(found, case):
        return False, f"search top {TOP}: {found}"
    if not holds([block], case):
        return False, f"block: {block}"
    return True, ""


# --- the baseline: BM25 over notes, delete by keyword ---------------------------------------


def words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS]


def bm25_top(notes: list[str], query: str, k: int) -> list[str]:
    docs = [Counter(words(n)) for n in notes]
    if not docs:
        return []
    avg = statistics.fmean(sum(d.values()) for d in docs) or 1.0
    terms = set(words(query))
    scored = []
    for note, doc in zip(notes, docs, strict=True):
        length = sum(doc.values())
        score = 0.0
        for t in terms:
            df = sum(1 for d in docs if t in d)
            if doc[t]:
                idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
                score += idf * doc[t] * 2.2 / (doc[t] + 1.2 * (0.25 + 0.75 * length / avg))
        if score > 0:
            scored.append((score, note))
    scored.sort(key=lambda s: -s[0])
    return [n for _, n in scored[:k]]


def run_baseline(case: Case) -> bool:
    notes = [n.text for n in case.notes]
    changed = False
    for op in case.operations:
        wanted = set(words(op.about.replace("'s", "")))
        keep = [n for n in notes if not wanted or not wanted <= set(words(n))]
        changed = changed or len(keep) < len(notes)
        notes = keep + ([op.new] if op.kind == "supersede" and op.new else [])
    if case.ambiguous:
        return not changed and holds(bm25_top(notes, case.query, TOP), case)
    return holds(bm25_top(notes, case.query, TOP), case)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--show", type=int, default=3, help="failures to print per family")
    args = parser.parse_args(argv)
    cases = generate(args.seed, args.per_family, args.per_kind)
    orma: dict[str, list[bool]] = defaultdict(list)
    base: dict[str, list[bool]] = defaultdict(list)
    shown: Counter[str] = Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "forgetting.db")
        try:
            for i, case in enumerate(cases):
                ok, why = run_orma(memory, case, f"case-{i}")
                orma[case.family].append(ok)
                base[case.family].append(run_baseline(case))
                if not ok and shown[case.family] < args.show:
                    shown[case.family] += 1
                    ops = "; ".join(f"{o.kind}({o.about!r})" for o in case.operations)
                    print(f"FAIL {case.family} #{i}: {ops} -> {why}", file=sys.stderr)
        finally:
            memory.close()
    elapsed = time.perf_counter() - started
    print(f"\n{len(cases)} cases, seed {args.seed}, {elapsed:.0f} s\n")
    print("| family | Orma | plain BM25, delete by keyword |")
    print("|---|---|---|")
    for family in (*FAMILIES, *ADVERSARIAL):
        if family in orma:
            o, b = orma[family], base[family]
            print(f"| {family} | {sum(o)}/{len(o)} | {sum(b)}/{len(b)} |")
    total_o = sum(sum(v) for v in orma.values())
    total_b = sum(sum(v) for v in base.values())
    print(f"| **all** | {total_o}/{len(cases)} | {total_b}/{len(cases)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
