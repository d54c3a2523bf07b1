"""Finding what a forgetting action touches. Read-only: a dry run and the real action share it.

Every function is a plain ``fn(conn)`` that runs on any connection: the
reader's (``execute_fn``) for a dry run, the writer's inside the real action's
write job (so what is changed is exactly what was matched, whatever was
written in between). The queries are the store's and the facts layer's; which
of their answers an action takes is decided here. Text matching is a
substring test, case-insensitive for ASCII letters: predictable, and never
fuzzy where deleting is concerned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from orma_proxy.embed.base import Vectors
from orma_proxy.errors import InputError
from orma_proxy.facts import (
    OpenState,
    active_states_citing,
    active_states_valued,
    drawn_from_episodes,
    drawn_from_lines,
    unreleased_state,
)
from orma_proxy.forget.results import Affected
from orma_proxy.store import (
    Connection,
    current_sentences,
    episodes_in_space,
    episodes_saying,
    on_topic,
    sentences_of_episodes,
    sentences_saying,
)
from orma_proxy.text.stopwords import STOPWORDS

_WORD = re.compile(r"\w+", re.UNICODE)


# --- supersede ---------------------------------------------------------------------


@dataclass(frozen=True)
class StateTarget:
    """An active state a correction closes; ``replace``: the new text is its new value."""

    state: OpenState
    replace: bool


@dataclass(frozen=True)
class Correction:
    """What ``supersede(old, ...)`` marks: sentences saying ``old`` and the states holding it."""

    sentences: list[int]
    states: list[StateTarget]

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=[t.state.id for t in self.states])


def correction(conn: Connection, space: str, old: str | int) -> Correction:
    """A state id names that state and its line; a text, every line containing it.

    States matched by id or whose value is the text get the new text as their
    value; states merely drawn from a matching line are closed.
    """
    if isinstance(old, int):
        state = unreleased_state(conn, space, old)
        if state is None:
            raise InputError(f"no state #{old} in space {space!r}")
        if not state.active:
            raise InputError(f"state #{old} is already closed (it stays in the history)")
        return Correction(current_sentences(conn, [state.sentence_id]), [StateTarget(state, True)])
    sentences = sentences_saying(conn, space, old)
    valued = active_states_valued(conn, space, old)
    found = {s.id: s for s in [*active_states_citing(conn, space, sentences), *valued]}
    replaced = {s.id for s in valued}
    return Correction(sentences, [StateTarget(found[i], i in replaced) for i in sorted(found)])


# --- release ---------------------------------------------------------------------


def topic_words(query: str) -> list[str]:
    """The words a passage must all hold to be on the topic: ``query``'s, stopwords aside."""
    words = [w.lower() for w in _WORD.findall(query)]
    return list(dict.fromkeys(w for w in words if w not in STOPWORDS))


def topic(
    conn: Connection,
    space: str,
    query: str,
    vector: Vectors,
    *,
    threshold: float,
    max_items: int,
) -> Affected:
    """Visible passages on the topic of ``query``, best first, and what was drawn from them.

    A passage belongs to the topic when its vector is at least ``threshold``
    similar to the query's (never less than the space's noise floor) or when it
    holds every word of the query. The scan is exact: a release is rare and
    deliberate, and a dry run must name exactly what the real one hides.
    """
    sentences = on_topic(
        conn, space, topic_words(query), vector, threshold=threshold, limit=max_items
    )
    states, events = drawn_from_lines(conn, sentences)
    return Affected.of(sentences=sentences, states=states, events=events)


# --- purge -----------------------------------------------------------------------


def erasure(conn: Connection, space: str, target: str | list[int]) -> Affected:
    """Episodes containing the text (or with these ids), and everything derived from them.

    Unknown ids, or another space's, are refused: a purge never guesses.
    """
    if isinstance(target, str):
        episodes = episodes_saying(conn, space, target)
    else:
        episodes = episodes_in_space(conn, space, target)
        missing = sorted(set(target) - set(episodes))
        if missing:
            raise InputError(
                f"no episode {', '.join(f'#{i}' for i in missing)} in space {space!r}; "
                "nothing was purged"
            )
    states, events = drawn_from_episodes(conn, episodes)
    return Affected.of(
        episodes=episodes,
        sentences=sentences_of_episodes(conn, episodes),
        states=states,
        events=events,
    )
