"""Forgetting by description: does a correction, a release or a purge hit exactly what was meant?

``python -m bench.forgetting [--seed N] [--per-family N] [--per-kind N] [--show N]``
``python -m bench.forgetting --cases FILE.jsonl [--ids even|odd] [--show N]``   (labelled cases)
``python -m bench.forgetting --scale [--lines 10000] [--old-ref main]``   (resolving speed)

Cases come from ``bench/forgetting_cases.py`` (seeded; facts among 8-12
distractors, operations given as short descriptions, one final query with texts
that must and must not be in its top 10). Each case is its own space of one
memory. Orma passes a case when both ``search()``'s top 10 passages and the block
``recall()`` builds hold every ``must`` text and no ``must_not`` text (case
ignored); an ambiguous case passes when the operation raises
``AmbiguousDescriptionError`` naming at least two candidates and nothing changed.

``--cases`` reads one case a line: ``{"id", "family", "notes": [{"text", "days_ago"}],
"operations": [{"kind": "supersede|release|purge", "about", "new"}], "query", "must",
"must_not", "outcome": "changed|nothing|ambiguous"}``. "nothing": an operation must
raise ``NothingMatchedError`` and change nothing (the space's export is the same
before and after it); "ambiguous": one must raise ``AmbiguousDescriptionError``
with candidates and change nothing; "changed": none may raise. ``must`` and
``must_not`` are checked after the operations in every case.

``--scale`` stores ``--lines`` notes in one space and times ``forget.resolve``
over it for a set of descriptions, this tree's and ``--old-ref``'s (git) code
alternating, both given the description's embedding, and prints medians and p95 in
milliseconds.

The baseline, run on the same cases: plain BM25 over whole notes with
delete-by-keyword (every note holding all the description's words is deleted; a
correction then adds its note); it cannot answer with candidates, so it fails every
ambiguous case it changes. Not part of pytest.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import math
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench.forgetting_cases import (
    ADVERSARIAL,
    CITIES,
    COMPANIES,
    DRINKS,
    FAMILIES,
    FIRST,
    FOODS,
    HOBBIES,
    LAST,
    Case,
    Note,
    Operation,
    generate,
)
from orma_proxy import Memory
from orma_proxy.errors import AmbiguousDescriptionError, NothingMatchedError, OrmaError
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


def run_orma(memory: Memory, case: Case, space: str, outcome: str = "") -> tuple[bool, str]:
    """Pass or fail, and a line saying why (for ``--show``)."""
    outcome = outcome or ("ambiguous" if case.ambiguous else "changed")
    for note in case.notes:
        memory.add(note.text, space=space, at=NOW - timedelta(days=note.days_ago))
    memory.flush()
    answered = False
    for op in case.operations:
        before = _export(memory, space)
        try:
            if op.kind == "supersede":
                memory.supersede(op.about, op.new or "", space)
            elif op.kind == "release":
                memory.release(op.about, space)
            else:
                memory.purge(op.about, space)
        except OrmaError as error:
            expected = {"nothing": NothingMatchedError, "ambiguous": AmbiguousDescriptionError}
            kind = expected.get(outcome)
            said = kind is not None and isinstance(error, kind)
            if said and outcome == "ambiguous" and len(getattr(error, "candidates", ())) < 2:
                said = False
            if not said:
                return False, f"{op.kind}({op.about!r}) raised {type(error).__name__}: {error}"
            if _export(memory, space) != before:
                return False, f"{op.kind}({op.about!r}) said {outcome} but changed the space"
            answered = True
    if outcome != "changed" and not answered:
        return False, f"no operation answered {outcome!r}: it acted instead"
    memory.flush()
    found = [p.text for p in memory.search(case.query, space, k=TOP).passages]
    block = memory.recall(case.query, space).text
    if not holds(found, case):
        return False, f"search top {TOP} {_wrong(found, case)}: {found}"
    if not holds([block], case):
        return False, f"block {_wrong([block], case)}: {block}"
    return True, ""


def _wrong(texts: list[str], case: Case) -> str:
    """How ``texts`` fail ``holds``: a line meant still there, a line kept missing, or both."""
    joined = "\n".join(texts).lower()
    left = any(m.lower() in joined for m in case.must_not)
    lost = not all(m.lower() in joined for m in case.must)
    return " and ".join(w for w, on in (("left a line meant", left), ("lost a line", lost)) if on)


def _export(memory: Memory, space: str) -> str:
    out = io.StringIO()
    memory.export_jsonl(out, space)
    return out.getvalue()


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


def run_baseline(case: Case, outcome: str = "") -> bool:
    outcome = outcome or ("ambiguous" if case.ambiguous else "changed")
    notes = [n.text for n in case.notes]
    changed = False
    for op in case.operations:
        wanted = set(words(op.about.replace("'s", "")))
        keep = [n for n in notes if not wanted or not wanted <= set(words(n))]
        changed = changed or len(keep) < len(notes)
        notes = keep + ([op.new] if op.kind == "supersede" and op.new else [])
    if outcome == "ambiguous":
        return not changed and holds(bm25_top(notes, case.query, TOP), case)
    if outcome == "nothing":  # deleting nothing is its way of saying nothing matched
        return not changed and holds(bm25_top(notes, case.query, TOP), case)
    return holds(bm25_top(notes, case.query, TOP), case)


def load_cases(path: Path, ids: str = "all") -> list[tuple[Case, str]]:
    """Labelled cases from a JSONL file (the module docstring's shape), with each outcome.

    ``ids``: "even" or "odd" keeps the cases whose id ends in such a number ("e042"), so
    a set can be halved into one whose failures are read and one that checks.
    """
    cases = []
    for number, raw in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        row = json.loads(raw)
        if ids != "all" and not _in_half(str(row.get("id", "")), ids):
            continue
        outcome = row.get("outcome", "changed")
        if outcome not in ("changed", "nothing", "ambiguous"):
            raise SystemExit(f"{path}:{number}: unknown outcome {outcome!r}")
        case = Case(
            family=str(row.get("family", "held-out")),
            notes=tuple(Note(n["text"], float(n.get("days_ago", 1.0))) for n in row["notes"]),
            operations=tuple(
                Operation(o["kind"], o["about"], o.get("new")) for o in row["operations"]
            ),
            query=row["query"],
            must=tuple(row.get("must", ())),
            must_not=tuple(row.get("must_not", ())),
            ambiguous=outcome == "ambiguous",
        )
        cases.append((case, outcome))
    return cases


def _in_half(case_id: str, ids: str) -> bool:
    digits = re.search(r"(\d+)$", case_id)
    if digits is None:
        raise SystemExit(f"--ids {ids}: case id {case_id!r} ends in no number")
    return (int(digits[1]) % 2 == 0) == (ids == "even")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--per-family", type=int, default=100)
    parser.add_argument("--per-kind", type=int, default=10)
    parser.add_argument("--show", type=int, default=3, help="failures to print per family")
    parser.add_argument("--cases", type=Path, help="run the labelled cases of this JSONL file")
    parser.add_argument(
        "--ids", choices=("all", "even", "odd"), default="all", help="--cases: this half only"
    )
    parser.add_argument("--scale", action="store_true", help="time resolving over --lines")
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--old-ref", default="main", help="git ref of the old code (--scale)")
    parser.add_argument("--db", type=Path, help="--scale: keep the space here (reused if there)")
    args = parser.parse_args(argv)
    if args.scale:
        return scale(args.lines, args.old_ref, args.seed, args.db)
    if args.cases is not None:
        labelled = load_cases(args.cases, args.ids)
        source = str(args.cases) + ("" if args.ids == "all" else f", {args.ids} ids")
    else:
        labelled = [(c, "") for c in generate(args.seed, args.per_family, args.per_kind)]
        source = f"seed {args.seed}"
    orma: dict[str, list[bool]] = defaultdict(list)
    base: dict[str, list[bool]] = defaultdict(list)
    shown: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(Path(tmp) / "forgetting.db")
        try:
            for i, (case, outcome) in enumerate(labelled):
                ok, why = run_orma(memory, case, f"case-{i}", outcome)
                orma[case.family].append(ok)
                base[case.family].append(run_baseline(case, outcome))
                if not ok:
                    failed[failure_kind(why)] += 1
                if not ok and shown[case.family] < args.show:
                    shown[case.family] += 1
                    ops = "; ".join(f"{o.kind}({o.about!r})" for o in case.operations)
                    print(f"FAIL {case.family} #{i}: {ops} -> {why}", file=sys.stderr)
        finally:
            memory.close()
    elapsed = time.perf_counter() - started
    print(f"\n{len(labelled)} cases, {source}, {elapsed:.0f} s\n")
    print("| family | Orma | plain BM25, delete by keyword |")
    print("|---|---|---|")
    known = [f for f in (*FAMILIES, *ADVERSARIAL) if f in orma]
    for family in known + sorted(set(orma) - set(known)):
        o, b = orma[family], base[family]
        print(f"| {family} | {sum(o)}/{len(o)} | {sum(b)}/{len(b)} |")
    total_o = sum(sum(v) for v in orma.values())
    total_b = sum(sum(v) for v in base.values())
    n = len(labelled)
    print(f"| **all** | {total_o}/{n} ({total_o / n:.1%}) | {total_b}/{n} ({total_b / n:.1%}) |")
    print("\nOrma's failures: " + ", ".join(f"{k} {v}" for k, v in failed.most_common()))
    return 0


def failure_kind(why: str) -> str:
    """What went wrong in a failed case, from ``run_orma``'s line (totals only: a set whose
    cases are never read can still say whether it fails by abstaining or by acting)."""
    if "raised NothingMatchedError" in why:
        return "found nothing"
    if "raised AmbiguousDescriptionError" in why:
        return "asked back"
    if "raised" in why:
        return "refused"
    if "acted instead" in why or "but changed" in why:
        return "acted where it should not"
    return why.split(":", 1)[0].removeprefix("search top 10 ").removeprefix("block ")


# --- --scale: resolving a description over a large space, old and new code alternating ------

SCALE_DESCRIPTIONS = (
    "{p}'s employer",
    "where {p} lives",
    "everything about {p}",
    "{p}'s favourite drink",
    "my diet",
    "the phone 90031 44728",
    "{p} hobby weekend plans",
    "the key sk-live-4hq82",
)
_TEMPLATES = (
    "{p} works at {c}.",
    "{p} lives in {t}.",
    "{p} loves {f}.",
    "{p} drinks {d} every morning.",
    "{p} spends Sundays on {h}.",
    "I had lunch with {p} in {t}.",
    "My cousin {p} moved to {t} last year.",
    "I tried {f} at a new place in {t}.",
)


def _old_resolver(ref: str) -> object:
    """``forget/resolve.py`` as it is at ``ref``, loaded beside this tree's, with the modules
    of ``forget/`` it reads as they are at ``ref`` too (``choice.json`` beside them)."""
    tmp = Path(tempfile.mkdtemp(prefix="old_forget_"))
    listed = subprocess.run(
        ["git", "ls-tree", "--name-only", f"{ref}:orma_proxy/forget/"],
        check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    names = [n.removesuffix(".py") for n in listed if n.endswith(".py") and n != "__init__.py"]
    for name in listed:
        text = subprocess.run(
            ["git", "show", f"{ref}:orma_proxy/forget/{name}"],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        if name.endswith(".py"):
            for other in names:
                text = re.sub(rf"\borma_proxy\.forget\.{other}\b", f"old_forget_{other}", text)
            (tmp / f"old_forget_{name}").write_text(text, "utf-8")
        elif name.endswith(".json"):
            (tmp / name).write_text(text, "utf-8")
    sys.path.insert(0, str(tmp))
    return importlib.import_module("old_forget_resolve")


def _build(memory: Memory, lines: int, rng: random.Random, people: list[str]) -> None:
    memory.add("Stripe key: sk-live-4hq82xm19-prod", space="scale")
    memory.add("Call the plumber on +91 90031 44728.", space="scale")
    for _ in range(lines - 2):
        text = rng.choice(_TEMPLATES).format(
            p=rng.choice(people), c=rng.choice(COMPANIES), t=rng.choice(CITIES),
            f=rng.choice(FOODS), d=rng.choice(DRINKS), h=rng.choice(HOBBIES),
        )  # fmt: skip
        memory.add(text, space="scale")
    memory.flush()


def scale(lines: int, old_ref: str, seed: int, kept: Path | None = None) -> int:
    from orma_proxy.forget.meaning import Described
    from orma_proxy.forget.resolve import resolve as new_resolve
    from orma_proxy.store.connect import open_sync

    old = _old_resolver(old_ref)
    rng = random.Random(seed)
    people = [f"{f} {la}" for f in FIRST for la in LAST]
    with tempfile.TemporaryDirectory() as tmp:
        path = kept or Path(tmp) / "scale.db"
        started = time.perf_counter()
        with Memory(path) as memory:
            if not kept or memory.stats().episodes < lines:
                _build(memory, lines, rng, people)
            vector = memory.embedder.embed(["Tanvi hobby weekend plans"])[0]
            built = time.perf_counter() - started
        conn = open_sync(path, busy_timeout_ms=5000, read_only=True)
        meaning = Described(vector)
        # the old code ranks by meaning too (its own Described), so both do the same work
        old_meaning = sys.modules["old_forget_meaning"].Described(vector)
        times: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(5):
            for pattern in SCALE_DESCRIPTIONS:
                text = pattern.format(p=rng.choice(people).split()[0])
                for which in ("old", "new") if rng.random() < 0.5 else ("new", "old"):
                    t0 = time.perf_counter()
                    try:
                        if which == "old":
                            old.resolve(conn, "scale", text, meaning=old_meaning)  # type: ignore[attr-defined]
                        else:
                            new_resolve(conn, "scale", text, meaning=meaning)
                    except OrmaError:
                        pass  # an ambiguity or nothing found is an answer, timed as one
                    times[which].append((time.perf_counter() - t0) * 1000)
        conn.close()
    print(
        f"\n{lines} lines in one space (built in {built:.0f} s), {len(times['new'])} resolves each"
    )
    print("| code | median ms | p95 ms |")
    print("|---|---|---|")
    for which, label in (("old", f"old ({old_ref})"), ("new", "new (this tree)")):
        got = sorted(times[which])
        p95 = got[min(len(got) - 1, int(0.95 * len(got)))]
        print(f"| {label} | {statistics.median(got):.1f} | {p95:.1f} |")
    ratio = statistics.median(times["new"]) / statistics.median(times["old"])
    print(f"\nnew/old median: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
