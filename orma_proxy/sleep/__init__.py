"""Sleep: consolidating episodes into states and events, verified by deterministic code.

The LLM (or, without one, a rule-based extractor) proposes; ``verify``,
``holder`` and ``clock`` decide what is believed; ``apply`` writes a batch in
one transaction. ``SleepScheduler`` runs it in the background of a server,
``AsyncMemory.sleep()`` on demand; ``draw_on_record`` runs the rule-based part on
a user's line as it is recorded (``awake``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orma_proxy.exports import lazy_exports

if TYPE_CHECKING:
    from orma_proxy.sleep.awake import draw_on_record
    from orma_proxy.sleep.batch import OWN_WORDS
    from orma_proxy.sleep.consolidate import Sleeper
    from orma_proxy.sleep.gate import UpstreamGate
    from orma_proxy.sleep.manual import correct_lines, register_rule, stated_value
    from orma_proxy.sleep.report import Rejection, SleepReport
    from orma_proxy.sleep.retry import Clock, RealClock
    from orma_proxy.sleep.scheduler import SleepScheduler

__all__ = [
    "OWN_WORDS",
    "Clock",
    "RealClock",
    "Rejection",
    "SleepReport",
    "SleepScheduler",
    "Sleeper",
    "UpstreamGate",
    "correct_lines",
    "draw_on_record",
    "register_rule",
    "stated_value",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "draw_on_record": "awake",
        "OWN_WORDS": "batch",
        "Sleeper": "consolidate",
        "UpstreamGate": "gate",
        "correct_lines": "manual",
        "register_rule": "manual",
        "stated_value": "manual",
        "Rejection": "report",
        "SleepReport": "report",
        "Clock": "retry",
        "RealClock": "retry",
        "SleepScheduler": "scheduler",
    },
)
