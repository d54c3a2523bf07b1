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

import aiosqlite

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError
from orma_proxy.facts import FORBID_MARK, FORGOTTEN, SUPERSEDE_MARK, USER, close_state
from orma_proxy.sleep.apply import apply_state, reset_space
from orma_proxy.sleep.batch import Line
from orma_proxy.sleep.names import forbidden_attribute
from orma_proxy.sleep.verify import VerifiedState

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


async def register_rule(
    conn: aiosqlite.Connection, space: str, episode_id: int, rule: str, config: OrmaConfig
) -> int:
    """Write ``rule`` as the user's ``forbidden_<name>`` state, citing the episode's first line.

    Runs as one writer job; returns the state's id (an existing one if the same
    rule is already active).
    """
    cursor = await conn.execute(
        "SELECT min(s.id) FROM sentences s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.episode_id = ? AND e.space = ?",
        (episode_id, space),
    )
    row = await cursor.fetchone()
    if row is None or row[0] is None:
        raise InputError(f"episode #{episode_id} of space {space!r} has no sentence to cite")
    line = await _line(conn, int(row[0]))
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
    return await apply_state(conn, space, state, config)


async def _line(conn: aiosqlite.Connection, sentence_id: int) -> Line:
    """A stored sentence as the citable line a state is drawn from."""
    cursor = await conn.execute(
        "SELECT s.id, s.text, e.role, e.said_at, s.episode_id FROM sentences s "
        "JOIN episodes e ON e.id = s.episode_id WHERE s.id = ?",
        (sentence_id,),
    )
    row = await cursor.fetchone()
    if row is None:
        raise InputError(f"no sentence #{sentence_id}")
    return Line(1, int(row[0]), int(row[4]), str(row[2]), str(row[1]), float(row[3]))


async def forget_state(conn: aiosqlite.Connection, space: str, state_id: int) -> None:
    """Close an active state of ``space`` now; an unknown id, or another space's, is refused."""
    cursor = await conn.execute("SELECT space, active FROM states WHERE id = ?", (state_id,))
    row = await cursor.fetchone()
    if row is None or row[0] != space:
        raise InputError(f"no state #{state_id} in space {space!r}")
    if not row[1]:
        raise InputError(f"state #{state_id} is already closed (it stays in the history)")
    await close_state(conn, state_id, None, time.time(), FORGOTTEN)


async def reset_keeping_rules(conn: aiosqlite.Connection, space: str, config: OrmaConfig) -> None:
    """``sleep --redo``: forget what sleep made, but keep what the user did by hand.

    Rules set by hand and corrections (``supersede``) are written again from their
    episodes: "avoid global state" is no sentence the extractor would make a rule
    of, and a bare corrected value ("Google") none it would make a fact of.
    Facts the user forgot are written again closed, so that reading their line
    again does not bring them back (``apply._forgotten``).
    """
    cursor = await conn.execute(
        "SELECT DISTINCT e.id, e.text FROM states s JOIN episodes e ON e.id = s.episode_id "
        "WHERE s.space = ? AND s.active = 1 AND s.prohibited = 1 "
        "AND json_extract(e.metadata, '$.orma') = ? ORDER BY e.id",
        (space, FORBID_MARK),
    )
    rules = [(int(r[0]), str(r[1])) for r in await cursor.fetchall()]
    cursor = await conn.execute(
        "SELECT n.name, s.attribute, s.value, s.condition, s.prohibited, s.sentence_id, "
        "s.end_reason, s.valid_to FROM states s JOIN entities n ON n.id = s.entity_id "
        "JOIN episodes e ON e.id = s.episode_id WHERE s.space = ? AND "
        "((s.active = 1 AND json_extract(e.metadata, '$.orma') = ?) OR s.end_reason = ?) "
        "ORDER BY s.id",
        (space, SUPERSEDE_MARK, FORGOTTEN),
    )
    kept = list(await cursor.fetchall())
    await reset_space(conn, space)
    for episode_id, text in rules:
        await register_rule(conn, space, episode_id, text, config)
    for name, attribute, value, condition, prohibited, sentence_id, reason, valid_to in kept:
        line = await _line(conn, int(sentence_id))
        state = VerifiedState(
            entity=str(name),
            attribute=str(attribute),
            value=str(value),
            condition=str(condition),
            prohibited=bool(prohibited),
            ended=False,
            since=None,
            valid_from=line.said_at,
            line=line,
        )
        state_id = await apply_state(conn, space, state, config)
        if reason == FORGOTTEN:
            await close_state(conn, state_id, None, valid_to, FORGOTTEN)
