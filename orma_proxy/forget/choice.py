"""Which of a description's candidate lines it means: a choice fitted on labelled cases, not set.

When no line holds a description's words ("Omar's sport", "my barber"), its
candidates are judged by a few numbers each (``FEATURES``: how far its meaning
stands above the space's typical line, how far above the next candidate, how
much of the description's words and kind it shows ...). A logistic regression
turns them into the chance the line is meant. When two or more candidates'
chances reach ``ask``, the description is asked back with them
(``AmbiguousDescriptionError``); otherwise the best is taken when its chance
reaches ``take``, and nothing is found when it does not.

The weights and both thresholds are data, ``choice.json`` beside this module,
read at each use; ``python -m bench.forgetting_fit`` fits them on labelled
development cases (its docstring says which) and writes that file. Nothing here
is a hand-set margin.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orma_proxy.errors import AmbiguousDescriptionError
from orma_proxy.store import StoredLine

__all__ = ["FEATURES", "Choice", "load_choice", "parsed"]

# One row per candidate line, in this order (``rank.candidate_rows`` computes them):
FEATURES = (
    "z",  # meaning: deviations above the space's typical line
    "lead",  # z over the best other candidate's (the best's lead; the rest's deficit)
    "cosine",  # the similarity itself (the names' direction left out)
    "share",  # of the description's words (by weight) the line holds
    "share_lead",  # share over the best other candidate's
    "kind",  # +1 shows the kind asked, -1 shows none of it, 0 no kind asked
    "words",  # content words the description says beyond its names
    "many",  # log of the number of candidates
)
_CANDIDATES = 5
_FILE = "choice.json"


@dataclass(frozen=True)
class Choice:
    """A fitted logistic regression over ``FEATURES`` (standardised) and its two thresholds."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    take: float  # the best line's chance to be taken (alone)
    ask: float  # two lines with this chance make the description a question

    def chances(self, rows: np.ndarray) -> np.ndarray:
        """P(meant) of each candidate row."""
        x = (np.asarray(rows, dtype=np.float64) - np.array(self.mean)) / np.array(self.scale)
        logits = x @ np.array(self.weights) + self.bias
        chances: np.ndarray = 1.0 / (1.0 + np.exp(-logits))
        return chances

    def decide(self, text: str, lines: list[StoredLine], rows: np.ndarray) -> list[StoredLine]:
        """The line ``text`` means, [] when none is likely; two likely ones raise a question."""
        if not lines:
            return []
        p = self.chances(rows)
        order = np.argsort(-p, kind="stable")
        rivals = [i for i in order if p[i] >= self.ask]
        if len(rivals) < 2:
            return [lines[order[0]]] if p[order[0]] >= self.take else []
        closest = [lines[i].text for i in rivals[:_CANDIDATES]]
        raise AmbiguousDescriptionError(
            f"{text!r} could mean any of {len(rivals)} lines and none stands out; "
            "nothing was changed: quote the one meant",
            closest,
        )

    def as_json(self) -> dict[str, object]:
        return {
            "features": list(FEATURES),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "take": self.take,
            "ask": self.ask,
        }


def load_choice() -> Choice:
    """The fitted choice in ``choice.json``."""
    return parsed(json.loads(Path(__file__).with_name(_FILE).read_text("utf-8")))


def parsed(raw: dict[str, Any]) -> Choice:
    """A choice from its JSON form; one fitted on other features is refused."""
    if tuple(raw["features"]) != FEATURES:
        raise ValueError(f"{_FILE} was fitted on {raw['features']}, not {list(FEATURES)}")
    return Choice(
        tuple(float(v) for v in raw["mean"]),
        tuple(float(v) for v in raw["scale"]),
        tuple(float(v) for v in raw["weights"]),
        float(raw["bias"]),
        float(raw["take"]),
        float(raw["ask"]),
    )
