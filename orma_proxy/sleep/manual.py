"""States set by hand rather than by sleep: a rule forbidden now, a state forgotten.

``orma_forbid`` must protect the very next request, so its rule does not wait
for consolidation: it is written at once through the apply step sleep uses
(``apply_state``), citing the episode that records it, as a ``forbidden_<name>``
state. ``forget`` closes a state the way a superseded one is closed: it stays
in history (``orma facts --history``) and is never deleted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import InputError
from orma_proxy.facts import (
    FORBID_MARK,
    FORGOTTEN,
    USER,
    Slot,
    alternative_attribute,
    clear_facts,
    close_state,
    entity_id,
    hand_rules,
    hand_states,
)
from orma_proxy.sleep.apply import apply_state
from orma_proxy.sleep.batch import OWN_WORDS, Batch, Line
from orma_proxy.sleep.heuristic import extract_by_rules
from orma_proxy.sleep.names import (
    forbidden_attribute,
    normalise_attribute,
    normalise_value,
    value_key,
)
from orma_proxy.sleep.verify import VerifiedState
from orma_proxy.store import Connection, clear_consolidation, first_sentence_id, sentence_row
from orma_proxy.text import read_rule

__all__ = [
    "FORBID_MARK",
    "FORGOTTEN",
    "correct_lines",
    "register_rule",
    "reset_keeping_rules",
    "rule_value",
]


def rule_value(rule: str) -> str:
    """What is forbidden: ``"Never chain commands with ';'."`` -> ``"chain commands with ';'"``.

    "[FORBIDDEN: never use X]" would say no twice, "[FORBIDDEN: forbidden: X]" label
    it twice; the marker alone carries the negation, and what to do instead
    ("..., use Y instead") is no part of it (``text/prohibitions.py``).
    """
    return read_rule(rule).forbidden


def register_rule(
    conn: Connection, space: str, episode_id: int, rule: str, config: OrmaConfig
) -> int:
    """Write ``rule`` as the user's ``forbidden_<name>`` state, citing the episode's first line.

    What it says to do instead ("Do not use requests; use httpx.") is written
    beside it as its ``instead_of_<name>`` state, never forbidden with it. Runs as
    one writer job; returns the rule's id (an existing one if the same rule is
    already active).
    """
    first = first_sentence_id(conn, space, episode_id)
    if first is None:
        raise InputError(f"episode #{episode_id} of space {space!r} has no sentence to cite")
    line = _line(conn, first)
    said = read_rule(rule)
    state = VerifiedState(
        entity=USER,
        attribute=forbidden_attribute("rule", said.forbidden),
        value=said.forbidden,
        condition="",
        prohibited=True,
        ended=False,
        since=None,
        valid_from=line.said_at,
        line=line,
    )
    rule_id = apply_state(conn, space, state, config)
    if said.instead:
        instead = replace(
            state,
            attribute=alternative_attribute(state.attribute),
            value=said.instead,
            prohibited=False,
        )
        apply_state(conn, space, instead, config)
    return rule_id


def correct_lines(
    conn: Connection,
    space: str,
    sentence_ids: Sequence[int],
    old: str,
    new: str,
    cites: int,
    config: OrmaConfig,
) -> dict[Slot, int]:
    """The facts the user's lines state once ``old`` reads ``new``, citing line ``cites``.

    ``supersede("Bangalore", "Mysore")`` of "I moved from Pune to Bangalore." with
    no state drawn from it yet: the line corrected ("... to Mysore.") is read by
    sleep's rules, so the correction keeps its subject (``home_city: Mysore``)
    instead of standing as a bare "Mysore". Only the user's own lines (user turns
    and notes without a named speaker) and values holding ``new``. Returns each
    state written by its slot.
    """
    quoted = re.compile(rf"(?<!\w){re.escape(old)}(?!\w)", re.IGNORECASE)
    read: list[tuple[str, str]] = []
    for sentence_id in sentence_ids:
        row = sentence_row(conn, sentence_id)
        if row is None or row.role not in OWN_WORDS or row.speaker:
            continue
        text = quoted.sub(lambda _: new, row.text)
        if text == row.text:
            continue
        line = Line(1, row.sentence_id, row.episode_id, row.role, text, row.said_at, row.speaker)
        found = extract_by_rules(Batch(space, 0, (row.episode_id,), (line,), ()))
        read += [(s.attribute, s.value) for s in found.states if not s.prohibited]
        read += [("name", found.user_name)] if found.user_name else []
    line = _line(conn, cites)
    written: dict[Slot, int] = {}
    for attribute, value in dict.fromkeys(read):
        if value_key(new) not in value_key(value):
            continue  # another fact of the line, not what was corrected
        state = VerifiedState(
            USER, normalise_attribute(attribute), normalise_value(value), "", False, False,
            None, line.said_at, line,
        )  # fmt: skip
        state_id = apply_state(conn, space, state, config)
        holder = entity_id(conn, space, USER, "person", line.said_at)
        written[Slot(space, holder, state.attribute, "")] = state_id
    return written


def stated_value(text: str, attribute: str) -> str | None:
    """The value sleep's rules read in ``text`` for ``attribute`` (of anyone), if they read one."""
    line = Line(1, 0, 0, "note", text, 0.0)
    found = extract_by_rules(Batch("", 0, (0,), (line,), ()))
    wanted = normalise_attribute(attribute)
    for state in found.states:
        if not state.prohibited and normalise_attribute(state.attribute) == wanted:
            return normalise_value(state.value)
    return None


def _line(conn: Connection, sentence_id: int) -> Line:
    """A stored sentence as the citable line a state is drawn from."""
    row = sentence_row(conn, sentence_id)
    if row is None:
        raise InputError(f"no sentence #{sentence_id}")
    return Line(1, row.sentence_id, row.episode_id, row.role, row.text, row.said_at, row.speaker)


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
