"""Fit the forgetting resolver's choice (``orma_proxy/forget/choice.py``) on labelled cases.

``python -m bench.forgetting_fit [--write] [--own N] [--save F.jsonl | --load F.jsonl]``

Runs the cases of ``FIT`` (the first development set, and the EVEN-numbered ids of the
second: its odd ids and the held-out set are never fitted on, they test) through Orma as
``bench.forgetting`` does, and records every point where the resolver asks the choice
which candidate a description means: one feature row per candidate. A candidate is
meant when its line is one the case says must go (``must_not``); in a case whose
answer is "nothing" no candidate is meant, and in an "ambiguous" one the lines the
case keeps (``must``) are the plausible rivals. A logistic regression (numpy, L2,
Newton steps) fits P(meant) on the rows; then ``take`` and ``ask`` are set by a grid
to score best over the decision points: a point is right (+1) when it takes a meant line
alone, asks where the case is ambiguous, or takes nothing where nothing is meant; an act
that is not right (taking a line not meant, or any line where nothing or a question was
wanted) scores -``WRONG_ACT``, since it loses what a person said.
Half the cases (by their order) are fitted and the other half scored, and the other way round,
to show how well the points generalize before anything is written. ``--write``
writes ``choice.json``; ``--own N`` adds N seeded cases per family and per adversarial kind of
``bench/forgetting_cases.py`` (seed ``OWN_SEED``, not the benchmark's).
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bench.forgetting import load_cases, run_orma
from bench.forgetting_cases import Case, generate
from orma_proxy import Memory
from orma_proxy.forget import choice as choice_module
from orma_proxy.forget.choice import FEATURES, Choice, load_choice
from orma_proxy.store import StoredLine

Decide = Callable[[Choice, str, list[StoredLine], np.ndarray], list[StoredLine]]

FIT = (("bench/data/forgetting_dev.jsonl", "all"), ("bench/data/forgetting_dev2.jsonl", "even"))
_L2 = 1.0
_GRID = np.round(np.arange(0.02, 0.99, 0.02), 2)
# Acting on a line not meant (or where nothing or a question was) loses what a person said:
# it costs this much beyond a point not answered, which only asks them to say it again.
WRONG_ACT = 0.5
OWN_SEED = 12


@dataclass
class Point:
    """One decision point: its candidates' rows, whether each is meant, the answer wanted."""

    case: int
    rows: np.ndarray
    meant: np.ndarray  # 1: the line is one the case means (or a rival in an ambiguous case)
    want: str  # "take", "ask" or "nothing"
    said: str = ""  # the description
    texts: tuple[str, ...] = ()  # the candidates' lines


@dataclass
class Recorder:
    """What the choice was asked while one case ran (the dry run and the action ask alike)."""

    seen: dict[tuple[str, ...], tuple[str, list[str], np.ndarray]] = field(default_factory=dict)

    def wrap(self, decide: Decide) -> Decide:
        def recording(
            self_: Choice, text: str, lines: list[StoredLine], rows: np.ndarray
        ) -> list[StoredLine]:
            texts = [line.text for line in lines]
            self.seen[(text, *texts)] = (text, texts, np.array(rows, dtype=np.float64))
            return decide(self_, text, lines, rows)

        return recording


def _in(text: str, texts: tuple[str, ...]) -> bool:
    folded = " ".join(text.split()).casefold()
    return bool(folded) and any(folded in " ".join(t.split()).casefold() for t in texts)


def collect(cases: list[tuple[Case, str]]) -> tuple[list[Point], list[bool]]:
    """Run ``cases`` and label every decision point the resolver reaches; each case's pass."""
    recorder = Recorder()
    original = Choice.decide
    Choice.decide = recorder.wrap(original)  # type: ignore[method-assign,assignment]
    points: list[Point] = []
    passed: list[bool] = []
    try:
        with tempfile.TemporaryDirectory() as tmp, Memory(Path(tmp) / "fit.db") as memory:
            for i, (case, outcome) in enumerate(cases):
                recorder.seen.clear()
                passed.append(run_orma(memory, case, f"case-{i}", outcome)[0])
                wanted = outcome or ("ambiguous" if case.ambiguous else "changed")
                for said, texts, rows in recorder.seen.values():
                    if wanted == "changed":
                        meant = np.array([_in(t, case.must_not) for t in texts], dtype=float)
                        want = "take" if meant.any() else "nothing"
                    elif wanted == "ambiguous":
                        meant = np.array([_in(t, case.must) for t in texts], dtype=float)
                        want = "ask"
                    else:
                        meant, want = np.zeros(len(texts)), "nothing"
                    points.append(Point(i, rows, meant, want, said, tuple(texts)))
    finally:
        Choice.decide = original  # type: ignore[method-assign]
    return points, passed


def fit_weights(points: list[Point]) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised logistic regression with an L2 penalty: mean, scale, weights, bias."""
    x = np.vstack([p.rows for p in points])
    y = np.concatenate([p.meant for p in points])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale == 0, 1.0, scale)
    xs = np.column_stack([(x - mean) / scale, np.ones(len(x))])
    w = np.zeros(xs.shape[1])
    penalty = np.full(xs.shape[1], _L2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(xs @ w)))
        grad = xs.T @ (p - y) + penalty * w
        hess = (xs * (p * (1 - p))[:, None]).T @ xs + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return mean, scale, w[:-1], float(w[-1])


def answer(choice: Choice, point: Point, chances: np.ndarray | None = None) -> str:
    """What the choice does at this point: "take", "ask", "nothing", or "wrong" (takes a line
    not meant). ``chances``: its P of each candidate, if known."""
    if not len(point.rows):
        return "nothing"
    p = choice.chances(point.rows) if chances is None else chances
    order = np.argsort(-p, kind="stable")
    if sum(p >= choice.ask) >= 2:
        return "ask"
    if p[order[0]] < choice.take:
        return "nothing"
    return "take" if point.meant[order[0]] else "wrong"


def right(choice: Choice, point: Point, chances: np.ndarray | None = None) -> bool:
    """Does the choice answer this point as the case wants?"""
    return answer(choice, point, chances) == point.want


def _score(got: str, want: str) -> float:
    if got == want:
        return 1.0
    return -WRONG_ACT if got in ("take", "wrong") else 0.0


def fitted(points: list[Point]) -> Choice:
    """Weights by regression, then the thresholds that score best (``WRONG_ACT``)."""
    mean, scale, weights, bias = fit_weights(points)
    best: tuple[float, float, float] = (-math.inf, 0.5, 0.5)
    chances = [_choice(mean, scale, weights, bias, 0.5, 0.5).chances(p.rows) for p in points]
    for take in _GRID:
        for ask in _GRID:
            trial = _choice(mean, scale, weights, bias, float(take), float(ask))
            score = sum(
                _score(answer(trial, p, c), p.want) for p, c in zip(points, chances, strict=True)
            )
            # ties: a higher take and a lower ask (act less; a question loses nothing)
            if (score, take, -ask) > (best[0], best[1], -best[2]):
                best = (score, float(take), float(ask))
    return _choice(mean, scale, weights, bias, best[1], best[2])


def _choice(
    mean: np.ndarray, scale: np.ndarray, weights: np.ndarray, bias: float, take: float, ask: float
) -> Choice:
    return Choice(
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in weights),
        bias,
        take,
        ask,
    )


def summary(name: str, choice: Choice, points: list[Point]) -> str:
    got = sum(right(choice, p) for p in points)
    acts = sum(answer(choice, p) in ("take", "wrong") and not right(choice, p) for p in points)
    by_want = {
        w: f"{sum(right(choice, p) for p in points if p.want == w)}/"
        f"{sum(p.want == w for p in points)}"
        for w in ("take", "ask", "nothing")
    }
    wants = ", ".join(f"{w} {v}" for w, v in by_want.items())
    return f"{name}: {got}/{len(points)} points right ({wants}), {acts} wrong acts"


def _cases(own: int) -> dict[str, list[tuple[Case, str]]]:
    sets = {f"{path} ({ids} ids)": load_cases(Path(path), ids) for path, ids in FIT}
    if own:
        # another seed than the own benchmark's (11): its cases stay a check
        sets["own"] = [(c, "") for c in generate(OWN_SEED, own, own)]
    return sets


def _save(path: Path, points: list[Point]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for p in points:
            row = {"case": p.case, "want": p.want, "said": p.said, "texts": list(p.texts)}
            row |= {"rows": p.rows.tolist(), "meant": p.meant.tolist()}
            out.write(json.dumps(row) + "\n")


def _load(path: Path) -> list[Point]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return [
        Point(
            r["case"],
            np.array(r["rows"], dtype=np.float64).reshape(-1, len(FEATURES)),
            np.array(r["meant"], dtype=np.float64),
            r["want"],
            r["said"],
            tuple(r["texts"]),
        )
        for r in rows
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="write orma_proxy/forget/choice.json")
    parser.add_argument("--own", type=int, default=0, help="seeded own cases per family")
    parser.add_argument("--save", type=Path, help="keep the decision points here (JSONL)")
    parser.add_argument("--load", type=Path, help="fit on points saved by --save")
    args = parser.parse_args(argv)
    if args.load:
        points = _load(args.load)
    else:
        sets = _cases(args.own)
        points, passed = collect([c for cases in sets.values() for c in cases])
        start = 0
        for name, cases in sets.items():
            print(f"{name}: {sum(passed[start : start + len(cases)])}/{len(cases)} cases pass")
            start += len(cases)
        if args.save:
            _save(args.save, points)
    if not points:
        raise SystemExit("no decision point was reached: nothing to fit")
    print(f"{len(points)} decision points, {sum(len(p.rows) for p in points)} candidates")
    print(summary("as now", load_choice(), points))
    halves = [[p for p in points if p.case % 2 == k] for k in (0, 1)]
    for k in (0, 1):
        trial = fitted(halves[k])
        print(summary(f"fitted on half {k}, scored on half {1 - k}", trial, halves[1 - k]))
    choice = fitted(points)
    print(summary("fitted on all", choice, points))
    for name, weight in zip(FEATURES, choice.weights, strict=True):
        print(f"  {name:>10} {weight:+.2f}")
    print(f"  bias {choice.bias:+.2f}, take {choice.take:.2f}, ask {choice.ask:.2f}")
    if args.write:
        raw = choice.as_json()
        how = f"--load {args.load.name}" if args.load else f"--own {args.own}" * bool(args.own)
        raw["how"] = (
            f"python -m bench.forgetting_fit --write {how}".strip()
            + f": {len(points)} decision points of "
            + " + ".join(f"{p} ({i} ids)" for p, i in FIT)
            + f", a wrong act counting -{WRONG_ACT}; points are recorded with the choice then"
            " in place (--save F, then --load F --write refits on them)"
        )
        target = Path(choice_module.__file__).with_name("choice.json")
        target.write_text(json.dumps(raw, indent=1) + "\n", "utf-8")
        print(f"wrote {target}")
    return 0 if math.isfinite(choice.bias) else 1


if __name__ == "__main__":
    raise SystemExit(main())
