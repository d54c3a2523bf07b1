"""Removed state ids: an id a user has seen names its fact or nothing, never another one.

``sleep --redo`` deletes a space's states and reads its episodes again. Before
it deletes them, each state is kept here by what makes it the same fact: its
space, holder (by name: entity ids are rebuilt too), attribute, condition and
value, compared without case (a model may write "Black coffee" one run and
"black coffee" the next), and the line it cites. The line only breaks ties: a
fact said twice with a change between (Paris, Berlin, Paris) is two states of
one fact, told apart by their lines; a fact the second reading draws from
another line of the same conversation is still that fact. When the reading
stores a state that is that fact, it takes the old id back (``reclaim_id``).
What is never found again stays here and answers "no longer exists".

Ids are never handed out twice (SQLite AUTOINCREMENT, PostgreSQL's sequence),
so a new fact never takes an old id; a fact found again later, in a new
episode, takes back the id it had: it is the same fact.
"""

from __future__ import annotations

import time

from orma_proxy.errors import InputError
from orma_proxy.store import Connection

__all__ = ["missing_state_error", "reclaim_id", "retire_states"]


def retire_states(conn: Connection, space: str) -> None:
    """Keep every state of ``space`` by what it says, before a redo deletes them."""
    conn.execute(
        "INSERT INTO removed_states "
        "(id, space, reason, entity, attribute, value, condition, sentence_id, removed_at) "
        "SELECT s.id, s.space, 'redo', n.name, s.attribute, s.value, s.condition, "
        "s.sentence_id, ? FROM states s JOIN entities n ON n.id = s.entity_id WHERE s.space = ?",
        (time.time(), space),
    )


def reclaim_id(
    conn: Connection,
    space: str,
    entity_id: int,
    fact: tuple[str, str, str],
    sentence_id: int,
) -> int | None:
    """The removed id of this fact (``attribute, condition, value``), taken back; else None.

    The one citing ``sentence_id`` first, then the oldest.
    """
    attribute, condition, value = fact
    row = conn.execute(
        "SELECT id FROM removed_states WHERE reason = 'redo' AND space = ? AND attribute = ? "
        "AND entity = (SELECT name FROM entities WHERE id = ?) AND condition = ? "
        "AND lower(value) = lower(?) ORDER BY CASE WHEN sentence_id = ? THEN 0 ELSE 1 END, id "
        "LIMIT 1",
        (space, attribute, entity_id, condition, value, sentence_id),
    ).fetchone()
    if row is None:
        return None
    conn.execute("DELETE FROM removed_states WHERE id = ?", (int(row[0]),))
    return int(row[0])


def missing_state_error(conn: Connection, space: str, state_id: int) -> InputError:
    """Why ``space`` has no state ``state_id``: removed (and by what), or never one of its own."""
    row = conn.execute(
        "SELECT reason FROM removed_states WHERE space = ? AND id = ?", (space, state_id)
    ).fetchone()
    if row is None:
        return InputError(f"no state #{state_id} in space {space!r}")
    by = "`orma sleep --redo` did not find it again" if row[0] == "redo" else "a purge erased it"
    return InputError(
        f"state #{state_id} no longer exists in space {space!r}: {by} "
        "(ids are never reused; `orma facts` lists the current ones)"
    )
