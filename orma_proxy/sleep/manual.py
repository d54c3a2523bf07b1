"""States set by hand rather than by sleep: a rule forbidden now, a state forgotten.

``orma_forbid`` must protect the very next request, so its rule does not wait
for consolidation: it is written at once through the apply step sleep uses
(``apply_state``), citing the episode that records it, as a ``forbidden_<name>``
state. ``forget`` closes a state the way a superseded one is closed: it stays
in history (``orma facts --history``) and is never deleted.
"""

from __future__ import annotations

import re
import time

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError
from orma_proxy.facts import (
    FORBID_MARK,
    FORGOTTEN,
    USER,
    clear_facts,
    close_state,
    hand_rules,
    hand_states,
    is_active,
)
from orma_proxy.sleep.apply import apply_state
from orma_proxy.sleep.batch import Line
from orma_proxy.sleep.names import forbidden_attribute
from orma_proxy.sleep.verify import VerifiedState
from orma_proxy.store import Connection, clear_consolidation, first_sentence_id, sentence_row

__all__ = [
    "FORBID_MARK",
    "FORGOTTEN",
    "forget_state",
    "register_rule",
    "reset_keeping_rules",
    "rule_value",
]

# "[FORBIDDEN: never use X]" says no twice; the marker alone carries the negation.
_NEGATION = re.compile(
    r"^(?:please\s+)?(?:never\s+ever|never|don'?t\s+ever|don'?t|do\s+not|avoid|no)\b[\s,:-]*",
    re.IGNORECASE,
)


def rule_value(rule: str) -> str:
    """What is forbidden: ``"Never chain commands with ';'."`` -> ``"chain commands with ';'"``."""
    text = " ".join(rule.split()).rstrip(" .!")
    rest = _NEGATION.sub("", text, count=1)
    return rest if rest else text


def register_rule(
    conn: Connection, space: str, episode_id: int, rule: str, config: OrmaConfig
) -> int:
    """Write ``rule`` as the user's ``forbidden_<name>`` state, citing the episode's first line.

    Runs as one writer job; returns the state's id (an existing one if the same
    rule is already active).
    """
    first = first_sentence_id(conn, space, episode_id)
    if first is None:
        raise InputError(f"episode #{episode_id} of space {space!r} has no sentence to cite")
    line = _line(conn, first)
    value = rule_value(rule)
    state = VerifiedState(
        entity=USER,
        attribute=forbidden_attribute("rule", value),
        value=value,
        condition="",
        prohibited=True,
        ended=False,
        since=None,
        valid_from=line.said_at,
        line=line,
    )
    return apply_state(conn, space, state, config)


def _line(conn: Connection, sentence_id: int) -> Line:
    """A stored sentence as the citable line a state is drawn from."""
    row = sentence_row(conn, sentence_id)
    if row is None:
        raise InputError(f"no sentence #{sentence_id}")
    return Line(1, row.sentence_id, row.episode_id, row.role, row.text, row.said_at)


def forget_state(conn: Connection, space: str, state_id: int) -> None:
    """Close an active state of ``space`` now; an unknown id, or another space's, is refused."""
    active = is_active(conn, space, state_id)
    if active is None:
        raise InputError(f"no state #{state_id} in space {space!r}")
    if not active:
        raise InputError(f"state #{state_id} is already closed (it stays in the history)")
    close_state(conn, state_id, None, time.time(), FORGOTTEN)


def reset_keeping_rules(conn: Connection, space: str, config: OrmaConfig) -> None:
    """``sleep --redo``: forget what sleep made, but keep what the user did by hand.

    Rules set by hand and corrections (``supersede``) are written again from their
    episodes: "avoid global state" is no sentence the extractor would make a rule
    of, and a bare corrected value ("Google") none it would make a fact of.
    Facts the user forgot are written again closed, so that reading their line
    again does not bring them back (``apply._forgotten``).
    """
    rules = hand_rules(conn, space)
    kept = hand_states(conn, space)
    clear_facts(conn, space)  # every state, event and entity sleep made; episodes stay
    clear_consolidation(conn, space)  # so all of them wait to be read again
    for rule in rules:
        register_rule(conn, space, rule.episode_id, rule.text, config)
    for old in kept:
        line = _line(conn, old.sentence_id)
        state = VerifiedState(
            entity=old.entity,
            attribute=old.attribute,
            value=old.value,
            condition=old.condition,
            prohibited=old.prohibited,
            ended=False,
            since=None,
            valid_from=line.said_at,
            line=line,
        )
        state_id = apply_state(conn, space, state, config)
        if old.end_reason == FORGOTTEN:
            close_state(conn, state_id, None, old.valid_to, FORGOTTEN)
