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
from collections.abc import Iterable
from dataclasses import dataclass, field

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
    beta = math.log(2) / half_life_seconds
    return sum(
        alpha * math.exp(-beta * (now - t)) for t in accesses if 0 <= now - t <= horizon_seconds
    )


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
    uses = history.uses(now)
    created_day = int(history.created // SECONDS_PER_DAY)
    retrieval_days = {int(t // SECONDS_PER_DAY) for t in history.accesses if t <= now}
    n = max(history.rehearsals, 1) + len(retrieval_days - {created_day})
    stability = stability_days(n, s0_days=s0_days, gain=gain)
    return retention(now - max(uses, default=history.created), stability)


def base_level(uses: Iterable[float], now: float, *, decay: float) -> float:
    """ACT-R base level ``sum((age_days + 1) ** -d)`` over uses up to ``now``."""
    return math.fsum(((now - t) / SECONDS_PER_DAY + 1) ** -decay for t in uses if t <= now)


def saturate(signal: float, weight: float) -> float:
    """``weight * x / (1 + x)``: grows with the signal, never reaches ``weight``."""
    signal = max(signal, 0.0)
    return weight * signal / (1.0 + signal)
