"""The temporal formulas on a fixed clock: burst decay, stability growth, base level, bounds."""

from __future__ import annotations

import math

import pytest

from orma_proxy.recall.temporal import (
    SECONDS_PER_DAY,
    History,
    base_level,
    ebbinghaus_retention,
    hawkes_intensity,
    retention,
    saturate,
    stability_days,
)

NOW = 1_793_500_000.0
HALF_LIFE = 1800.0
HORIZON = 6 * 3600.0


def burst(*ages: float) -> float:
    return hawkes_intensity(
        [NOW - a for a in ages],
        NOW,
        alpha=0.4,
        half_life_seconds=HALF_LIFE,
        horizon_seconds=HORIZON,
    )


def test_hawkes_burst_halves_every_half_life_and_stops_at_the_horizon() -> None:
    assert burst(0) == pytest.approx(0.4)
    assert burst(HALF_LIFE) == pytest.approx(0.2)
    assert burst(2 * HALF_LIFE) == pytest.approx(0.1)
    assert burst(0, HALF_LIFE) == pytest.approx(0.6)  # self-exciting: accesses add up
    assert burst(HORIZON + 1) == 0.0
    assert burst(-60) == 0.0  # an access "in the future" of the clock adds nothing


def test_stability_grows_linearly_with_spaced_rehearsal() -> None:
    assert [stability_days(n, s0_days=2.0, gain=0.5) for n in (1, 2, 3, 5)] == [2, 3, 4, 6]
    assert retention(2 * SECONDS_PER_DAY, 2.0) == pytest.approx(math.exp(-1))


def test_spaced_retrievals_slow_forgetting_but_same_day_ones_count_once() -> None:
    created = NOW - 10 * SECONDS_PER_DAY
    once = History(created)
    same_day = History(created, accesses=(created + 60, created + 120))
    spaced = History(created, accesses=tuple(created + d * SECONDS_PER_DAY for d in (1, 2, 3)))
    kwargs = {"s0_days": 2.0, "gain": 0.5}
    # Never recalled: 10 days at S = 2 days.
    assert ebbinghaus_retention(once, NOW, **kwargs) == pytest.approx(math.exp(-10 / 2))
    # Recalled twice on the day it was said: no spacing, only a later last use (no growth).
    assert ebbinghaus_retention(same_day, NOW, **kwargs) == pytest.approx(
        math.exp(-(10 * SECONDS_PER_DAY - 120) / SECONDS_PER_DAY / 2)
    )
    # Three spaced days: n = 4, S = 5 days, last use 7 days ago.
    assert ebbinghaus_retention(spaced, NOW, **kwargs) == pytest.approx(math.exp(-7 / 5))
    rehearsed = History(created, rehearsals=3)
    assert ebbinghaus_retention(rehearsed, NOW, **kwargs) == pytest.approx(math.exp(-10 / 4))


def test_base_level_rewards_recent_and_frequent_use() -> None:
    day = SECONDS_PER_DAY
    assert base_level([NOW], NOW, decay=0.5) == pytest.approx(1.0)
    assert base_level([NOW - 3 * day], NOW, decay=0.5) == pytest.approx(0.5)
    assert base_level([NOW - 3 * day, NOW - 3 * day], NOW, decay=0.5) == pytest.approx(1.0)
    assert base_level([NOW + day], NOW, decay=0.5) == 0.0


def test_history_uses_count_a_rehearsal_only_when_there_was_one() -> None:
    assert History(NOW - 10, rehearsals=1, rehearsed_at=NOW - 5).uses(NOW) == [NOW - 10]
    assert History(NOW - 10, rehearsals=2, rehearsed_at=NOW - 5).uses(NOW) == [NOW - 10, NOW - 5]


@pytest.mark.parametrize("signal", [0.0, 0.5, 1.0, 10.0, 1e9])
def test_saturated_boosts_stay_under_their_weight(signal: float) -> None:
    boost = saturate(signal, 0.1)
    assert 0.0 <= boost < 0.1
    assert saturate(-1.0, 0.1) == 0.0
