"""Finding what a forgetting action touches: a dry run and the real action share it.

Every finding function is a plain ``fn(conn)`` that runs on any connection:
the reader's (``execute_fn``) for a dry run, the writer's inside the real
action's write job (so what is changed is exactly what was matched, whatever
was written in between). A text is a description resolved by
``forget/resolve.py``; which states and lines an action then takes is decided
here. Only ``cut_lines`` writes: it runs in the real action's job alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
from orma_proxy.forget.describe import Subject
from orma_proxy.forget.resolve import resolve, resolve_episodes
from orma_proxy.forget.results import Affected
from orma_proxy.store import (
    Connection,
    current_sentences,
    episodes_in_space,
    on_topic,
    sentence_texts,
    sentences_of_episodes,
    split_sentence,
)

Cuts = dict[int, list[tuple[int, int, bool]]]


# --- supersede ---------------------------------------------------------------------


@dataclass(frozen=True)
class StateTarget:
    """An active state a correction closes; ``replace``: the new text is its new value."""

    state: OpenState
    replace: bool


@dataclass(frozen=True)
class Correction:
    """What ``supersede(old, ...)`` marks: the lines saying it and the states holding it.

    ``cuts``: lines holding another kind of fact too, to be cut at their clauses
    first (only the clauses in scope are marked). ``corrects``: the person and
    kinds of fact the description named, recorded with the correction so the
    next correction of them finds it.
    """

    sentences: list[int]
    states: list[StateTarget]
    preview: tuple[str, ...] = ()
    cuts: Cuts = field(default_factory=dict)
    corrects: Subject | None = None

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=[t.state.id for t in self.states])


def correction(conn: Connection, space: str, old: str | int) -> Correction:
    """A state id names that state and its line; a text is a description (``resolve``).

    States matched by id, by value, or as the described person's described
    kind of fact get the new text as their value; states merely drawn from a
    matching line are closed.
    """
    if isinstance(old, int):
        state = unreleased_state(conn, space, old)
        if state is None:
            raise InputError(f"no state #{old} in space {space!r}")
        if not state.active:
            raise InputError(f"state #{old} is already closed (it stays in the history)")
        lines = current_sentences(conn, [state.sentence_id])
        return Correction(lines, [StateTarget(state, True)], tuple(sentence_texts(conn, lines)))
    scope = resolve(conn, space, old)
    whole = [i for i in scope.sentence_ids if i not in scope.cuts]
    replaced = {s.id: s for s in [*scope.states, *active_states_valued(conn, space, old)]}
    drawn = {s.id: s for s in active_states_citing(conn, space, whole)}
    found = {**drawn, **replaced}
    targets = [StateTarget(found[i], i in replaced) for i in sorted(found)]
    return Correction(
        scope.sentence_ids, targets, scope.preview(), scope.cuts, scope.description.subject
    )


def cut_lines(conn: Connection, sentences: list[int], cuts: Cuts) -> list[int]:
    """``sentences`` with each cut line replaced by its clauses in scope (the rest stay shown)."""
    kept = []
    for sentence in sentences:
        pieces = cuts.get(sentence)
        if not pieces:
            kept.append(sentence)
            continue
        new = split_sentence(conn, sentence, [(a, b) for a, b, _ in pieces])
        kept += [i for i, (_, _, hit) in zip(new, pieces, strict=True) if hit]
    return kept


# --- release ---------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """What a release hides: lines (some to cut first) and what was drawn from them."""

    sentences: list[int]
    states: list[int]
    events: list[int]
    preview: tuple[str, ...]
    cuts: Cuts = field(default_factory=dict)

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=self.states, events=self.events)


def topic(
    conn: Connection,
    space: str,
    query: str,
    vector: Vectors | None,
    *,
    threshold: float,
    max_items: int,
) -> Topic:
    """The shown lines ``query`` describes (``resolve``), and what was drawn from them.

    A description that names no person, kind of fact or identifier ("politics")
    is a topic: lines near it in meaning (a cosine of at least ``threshold``,
    never under the space's noise floor; at most ``max_items``) join the lines
    holding its words. A person or a kind keeps the scope exact: meaning alone
    never hides another person's line.
    """
    scope = resolve(conn, space, query)
    d = scope.description
    sentences = scope.sentence_ids
    if vector is not None and d.topic:
        near = on_topic(conn, space, [], vector, threshold=threshold, limit=max_items)
        sentences = sorted({*sentences, *near})
    whole = [i for i in sentences if i not in scope.cuts]
    states, events = drawn_from_lines(conn, whole)
    states = sorted({*states, *(s.id for s in scope.states)})
    preview = scope.preview() + tuple(
        sentence_texts(conn, [i for i in sentences if i not in scope.sentence_ids])
    )
    return Topic(sentences, states, list(events), preview, scope.cuts)


# --- purge -----------------------------------------------------------------------


def erasure(conn: Connection, space: str, target: str | list[int]) -> Affected:
    """Episodes holding what the text describes (or with these ids), and all drawn from them.

    Unknown ids, or another space's, are refused: a purge never guesses.
    """
    if isinstance(target, str):
        episodes = resolve_episodes(conn, space, target)
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
