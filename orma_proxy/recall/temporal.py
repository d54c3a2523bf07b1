"""The temporal signals of ranking, as pure functions of times and a clock.

Every function takes ``now`` (Unix seconds) instead of reading a clock, so a
test can fix time and check a formula exactly. Times after ``now`` (a clock
set back, a store built for a later date) are ignored rather than rewarded.

- Hawkes self-exciting burst (Hawkes 1971): ``sum(alpha * exp(-beta * dt))``
  over recent accesses, ``beta = ln 2 / half_life``: a topic touched minutes ago
  is likely to come up again in this conversation, hardly tomorrow.
- Ebbinghaus retention (1885): ``R = exp(-dt / S)`` with stability
  ``S = S0 * (1 + gain * (n - 1))``: each spaced rehearsal lengthens how long
  a memory stays accessible, so a fact confirmed on four days outlives a
  passing remark.
- ACT-R base level (Anderson 1993): ``sum((age_days + 1) ** -d)`` over uses:
  recency and frequency of use on a power-law decay.

``saturate`` maps each raw signal onto a bounded additive boost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True)
class History:
    """When an item came to be, when it was rehearsed, and when recall returned it."""

    created: float
    rehearsals: int = 1
    rehearsed_at: float | None = None
    accesses: tuple[float, ...] = field(default_factory=tuple)

    def uses(self, now: float) -> list[float]:
        """Every known use of the item up to ``now``: creation, last rehearsal, accesses."""
        times = [self.created, *self.accesses]
        if self.rehearsed_at is not None and self.rehearsals > 1:
            times.append(self.rehearsed_at)
        return [t for t in times if t <= now]


def hawkes_intensity(
    accesses: Iterable[float],
    now: float,
    *,
    alpha: float,
    half_life_seconds: float,
    horizon_seconds: float,
) -> float:
    """Burst intensity ``sum(alpha * exp(-beta * dt))`` over accesses within the horizon."""
    intensities = hawkes_intensities(
        _row(accesses),
        now,
        alpha=alpha,
        half_life_seconds=half_life_seconds,
        horizon_seconds=horizon_seconds,
    )
    return float(intensities[0])


def stability_days(rehearsals: int, *, s0_days: float, gain: float) -> float:
    """``S = S0 * (1 + gain * (n - 1))``: stability grows linearly with spaced rehearsals."""
    return s0_days * (1 + gain * (max(rehearsals, 1) - 1))


def retention(elapsed_seconds: float, stability: float) -> float:
    """``R = exp(-dt / S)``, ``dt`` in days; 1.0 just after the last use."""
    return math.exp(-max(elapsed_seconds, 0.0) / SECONDS_PER_DAY / stability)


def ebbinghaus_retention(history: History, now: float, *, s0_days: float, gain: float) -> float:
    """Retention since the last use, with ``n`` = rehearsals plus spaced retrieval days.

    Retrievals on one (UTC) day count once, and not on the day the item was
    created: spacing is what builds stability. A fact never recalled has ``n = rehearsals``.
    """
    table = Histories.of([history])
    return float(ebbinghaus_retentions(table, now, s0_days=s0_days, gain=gain)[0])


def base_level(uses: Iterable[float], now: float, *, decay: float) -> float:
    """ACT-R base level ``sum((age_days + 1) ** -d)`` over uses up to ``now``."""
    return float(base_levels(_row(uses), now, decay=decay)[0])


# --- the same signals for many items at once -----------------------------------
# Recall scores every candidate (often 60 or more, each with up to 32 accesses):
# one numpy pass over a NaN-padded table instead of a Python loop per item and
# signal. The functions above are its one-row case.


@dataclass(frozen=True)
class Histories:
    """Items' histories as arrays; absent times (padding, no rehearsal) are NaN."""

    created: np.ndarray  # (n,)
    rehearsals: np.ndarray  # (n,)
    rehearsed_at: np.ndarray  # (n,)
    accesses: np.ndarray  # (n, m), m >= 1

    @classmethod
    def of(cls, histories: Sequence[History]) -> Histories:
        width = max((len(h.accesses) for h in histories), default=0) or 1
        accesses = np.full((len(histories), width), np.nan)
        for row, h in enumerate(histories):
            accesses[row, : len(h.accesses)] = h.accesses
        rehearsed = [
            h.rehearsed_at if h.rehearsed_at is not None and h.rehearsals > 1 else np.nan
            for h in histories
        ]
        return cls(
            created=np.array([h.created for h in histories], dtype=np.float64),
            rehearsals=np.array([max(h.rehearsals, 1) for h in histories], dtype=np.float64),
            rehearsed_at=np.array(rehearsed, dtype=np.float64),
            accesses=accesses,
        )

    def uses(self, now: float) -> np.ndarray:
        """Creation, accesses and last rehearsal per row; NaN where absent or after ``now``."""
        times = np.column_stack([self.created, self.accesses, self.rehearsed_at])
        return np.where(times <= now, times, np.nan)


def hawkes_intensities(
    accesses: np.ndarray,
    now: float,
    *,
    alpha: float,
    half_life_seconds: float,
    horizon_seconds: float,
) -> np.ndarray:
    """``hawkes_intensity`` of each row of a NaN-padded table of access times."""
    beta = math.log(2) / half_life_seconds
    age = now - accesses
    inside = (age >= 0) & (age <= horizon_seconds)
    bursts = np.where(inside, alpha * np.exp(-beta * np.where(inside, age, 0.0)), 0.0)
    total: np.ndarray = bursts.sum(axis=1)
    return total


def base_levels(uses: np.ndarray, now: float, *, decay: float) -> np.ndarray:
    """``base_level`` of each row of a NaN-padded table of uses."""
    age = now - uses
    past = age >= 0
    days = np.where(past, age, 0.0) / SECONDS_PER_DAY + 1
    total: np.ndarray = np.where(past, days**-decay, 0.0).sum(axis=1)
    return total


def ebbinghaus_retentions(
    table: Histories, now: float, *, s0_days: float, gain: float
) -> np.ndarray:
    """``ebbinghaus_retention`` of every row of ``table``."""
    seen = table.accesses <= now
    days = np.floor(np.where(seen, table.accesses, 0.0) / SECONDS_PER_DAY)
    created_day = np.floor(table.created / SECONDS_PER_DAY)
    spaced = np.sort(np.where(seen & (days != created_day[:, None]), days, np.inf), axis=1)
    real = np.isfinite(spaced)
    distinct = real[:, 0] + (real[:, 1:] & (spaced[:, 1:] != spaced[:, :-1])).sum(axis=1)
    stability = s0_days * (1 + gain * (table.rehearsals + distinct - 1))
    uses = table.uses(now)
    latest = np.where(np.isnan(uses), -np.inf, uses).max(axis=1)
    last = np.where(np.isfinite(latest), latest, table.created)
    kept: np.ndarray = np.exp(-np.maximum(now - last, 0.0) / SECONDS_PER_DAY / stability)
    return kept


def _row(times: Iterable[float]) -> np.ndarray:
    values = np.fromiter(times, dtype=np.float64)
    return (values if values.size else np.full(1, np.nan))[None, :]


def saturate(signal: float, weight: float) -> float:
    """``weight * x / (1 + x)``: grows with the signal, never reaches ``weight``."""
    signal = max(signal, 0.0)
    return weight * signal / (1.0 + signal)
