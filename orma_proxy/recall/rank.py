"""The final score: RRF relevance plus bounded, additive boosts.

``score = relevance / best_relevance + activation + hawkes + ebbinghaus + base_level``

Relevance is scaled so the query's best match is 1.0. Each boost is
``weight * x / (1 + x)`` of its raw signal, so it is below its weight however
strong the signal, and ``OrmaConfig`` refuses weights summing to 1 or more: a
candidate nothing matched can never climb over the best match, while near-ties
(items a few RRF ranks apart) are reordered by what was used recently, often
and spaced out, and by what the query's entities point to. Each boost has its
own switch; off, it adds nothing.

The novelty gate then walks the ranking best first and drops a passage whose
vector is at ``novelty_threshold`` cosine or more to a passage already kept
(the same sentence said twice, pasted twice).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from orma_proxy.config import OrmaConfig
from orma_proxy.recall.access import ItemKey
from orma_proxy.recall.candidates import Candidate
from orma_proxy.recall.temporal import (
    Histories,
    History,
    base_levels,
    ebbinghaus_retentions,
    hawkes_intensities,
    saturate,
)

if TYPE_CHECKING:
    from orma_proxy.embed.base import Vectors


def boosts(history: History, now: float, config: OrmaConfig) -> dict[str, float]:
    """The temporal boosts of one item at ``now``, each bounded by its weight."""
    return boosts_of([history], now, config)[0]


def boosts_of(
    histories: Sequence[History], now: float, config: OrmaConfig
) -> list[dict[str, float]]:
    """``boosts`` of many items, each signal computed for all of them in one pass."""
    table = Histories.of(histories)
    signals: dict[str, list[float]] = {}
    if config.enable_hawkes:
        intensity = hawkes_intensities(
            table.accesses,
            now,
            alpha=config.hawkes_alpha,
            half_life_seconds=config.hawkes_half_life_seconds,
            horizon_seconds=config.hawkes_horizon_seconds,
        )
        signals["hawkes"] = [saturate(x, config.hawkes_weight) for x in intensity.tolist()]
    if config.enable_ebbinghaus:
        kept = ebbinghaus_retentions(
            table, now, s0_days=config.ebbinghaus_s0_days, gain=config.ebbinghaus_gain
        )
        signals["ebbinghaus"] = [config.ebbinghaus_weight * x for x in kept.tolist()]
    if config.enable_base_level:
        level = base_levels(table.uses(now), now, decay=config.base_level_decay)
        signals["base_level"] = [saturate(x, config.base_level_weight) for x in level.tolist()]
    return [{name: values[i] for name, values in signals.items()} for i in range(len(histories))]


def score(
    candidates: Iterable[Candidate],
    accesses: Mapping[ItemKey, tuple[float, ...]],
    now: float,
    config: OrmaConfig,
) -> list[Candidate]:
    """Score every candidate in place; returns them best first (ties: newest id first)."""
    items = list(candidates)
    # The scale is the lines': a state or event scores its line's relevance and more, and
    # must not, by being there, change how the lines rank against each other.
    lines = [c.relevance for c in items if c.key[0] == "passage"]
    best = max(lines or [c.relevance for c in items], default=0.0) or 1.0
    for cand in items:
        times = accesses.get(cand.key)
        if times:
            history = cand.history
            cand.history = History(history.created, history.rehearsals, history.rehearsed_at, times)
    for cand, found in zip(items, boosts_of([c.history for c in items], now, config), strict=True):
        cand.boosts = found
        if config.enable_spreading_activation and cand.activation > 0:
            cand.boosts["activation"] = saturate(cand.activation, config.activation_weight)
        cand.score = cand.relevance / best + sum(cand.boosts.values())
    return sorted(items, key=lambda c: (-c.score, -c.key[1]))


def novelty_gate(
    ranked: list[Candidate], vectors: Mapping[int, Vectors], threshold: float
) -> list[Candidate]:
    """Drop passages at ``threshold`` cosine or more to a better passage already kept.

    Vectors are unit length; a passage without one (not embedded yet) is kept.
    """
    kept: list[Candidate] = []
    chosen: list[Vectors] = []
    for cand in ranked:
        vector = vectors.get(cand.key[1]) if cand.key[0] == "passage" else None
        if vector is not None:
            if chosen and float(np.max(np.stack(chosen) @ vector)) >= threshold:
                continue
            chosen.append(vector)
        kept.append(cand)
    return kept
