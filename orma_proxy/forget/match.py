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

from orma_proxy.errors import InputError
from orma_proxy.facts import (
    OpenState,
    active_states_citing,
    active_states_valued,
    drawn_from_episodes,
    drawn_from_lines,
    missing_state_error,
    state_by_id,
    unreleased_state,
)
from orma_proxy.forget.corrected import corrected_scope
from orma_proxy.forget.describe import Description, Subject
from orma_proxy.forget.meaning import Described
from orma_proxy.forget.resolve import Scope, resolve, resolve_episodes
from orma_proxy.forget.results import Affected
from orma_proxy.forget.role import held_by
from orma_proxy.store import (
    Connection,
    current_sentences,
    episodes_in_space,
    on_topic,
    sentence_texts,
    sentences_of_episodes,
    split_sentence,
)
from orma_proxy.text import state_attributes

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
    facts: tuple[str, ...] = ()  # the states closed, as "holder · attribute: value"

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=[t.state.id for t in self.states])


def state_texts(conn: Connection, space: str, state_ids: list[int]) -> tuple[str, ...]:
    """States as "Meera · employer: Infosys", so a dry run names what it would close."""
    found = [state_by_id(conn, space, i) for i in sorted(state_ids)]
    return tuple(s.text for s in found if s is not None)


def _held(conn: Connection, space: str, d: Description, state_ids: list[int]) -> list[int]:
    """Of states drawn from the described lines, those of the fact described.

    "Meera's employer" on "My sister Meera works at Infosys" closes Meera's
    employer, never ``user · sister: Meera``: a state whose value is the person
    described, of another kind than the one described, is a fact about someone
    else that merely names them.
    """
    names = {n.casefold() for n in d.names}
    if not names or not d.evidence:
        return state_ids
    kinds = {a for g in d.groups for a in state_attributes(g)}
    kept = []
    for state_id in state_ids:
        state = state_by_id(conn, space, state_id)
        if state is None or state.attribute in kinds or state.value.casefold() not in names:
            kept.append(state_id)
    return kept


def correction(
    conn: Connection, space: str, old: str | int, new: str, meaning: Described | None = None
) -> Correction:
    """A state id names that state and its line; a text is a description (``resolve``).

    States matched by id, by value, or as the described person's described
    kind of fact get the new text as their value; states merely drawn from a
    matching line are closed.
    """
    if isinstance(old, int):
        state = unreleased_state(conn, space, old)
        if state is None:
            raise missing_state_error(conn, space, old)
        if not state.active:
            raise InputError(f"state #{old} is already closed (it stays in the history)")
        lines = current_sentences(conn, [state.sentence_id])
        preview = tuple(sentence_texts(conn, lines))
        facts = state_texts(conn, space, [old])
        return Correction(lines, [StateTarget(state, True)], preview, facts=facts)
    scope = corrected_scope(conn, space, old, new, meaning)
    whole = [i for i in scope.sentence_ids if i not in scope.cuts]
    replaced = {s.id: s for s in [*scope.states, *active_states_valued(conn, space, old)]}
    citing = {s.id: s for s in active_states_citing(conn, space, whole)}
    drawn = {i: citing[i] for i in _held(conn, space, scope.description, list(citing))}
    found = {**drawn, **replaced}
    targets = [StateTarget(found[i], i in replaced) for i in sorted(found)]
    return Correction(
        scope.sentence_ids,
        targets,
        scope.preview(),
        scope.cuts,
        _slot(scope),
        state_texts(conn, space, sorted(found)),
    )


def _slot(scope: Scope) -> Subject | None:
    """What a correction corrects: the slot described, with the slots and words it replaces.

    A chain of corrections said in other words each time ("Tanvi's favourite
    colour", then "the colour Tanvi likes") stays one slot: each correction
    stands for everything the lines it corrects were found by.
    """
    subject = scope.description.subject
    for line in scope.lines:
        prior = Subject.from_json(line.corrects)
        subject = prior if subject is None else subject.joined(prior)
    return None if subject is None else subject.saying(scope.preview())


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
    facts: tuple[str, ...] = ()  # the states hidden, as "holder · attribute: value"

    @property
    def affected(self) -> Affected:
        return Affected.of(sentences=self.sentences, states=self.states, events=self.events)


def topic(
    conn: Connection,
    space: str,
    query: str,
    meaning: Described | None,
    *,
    threshold: float,
    max_items: int,
) -> Topic:
    """The shown lines ``query`` describes (``resolve``), and what was drawn from them.

    A description that names no person, kind of fact or identifier ("politics")
    is a topic: lines near it in meaning (a cosine of at least ``threshold``,
    never under the space's noise floor; at most ``max_items``) join the lines
    holding its words, when some do. A person or a kind keeps the scope exact: meaning alone
    never hides another person's line. A role the lines call one person by ("the roofer":
    "Bartek the roofer") is that person, not a topic: their lines join, meaning does not
    widen it (``forget/role.py``).
    """
    scope = resolve(conn, space, query, meaning=meaning)
    d = scope.description
    sentences = scope.sentence_ids
    person = held_by(conn, space, d, scope.lines)
    theirs = resolve(conn, space, person) if person is not None else None
    if theirs is not None:  # "remove the roofer": Bartek, whom a line calls the roofer
        sentences = sorted({*sentences, *theirs.sentence_ids})
    elif meaning is not None and d.topic and (sentences or _said_once(conn, space, query)):
        # the words found the topic (or a line since corrected); meaning widens it. Meaning
        # alone, with no line ever holding the words ("the broken dishwasher"), is a guess.
        near = on_topic(conn, space, [], meaning.vector, threshold=threshold, limit=max_items)
        sentences = sorted({*sentences, *near})
    whole = [i for i in sentences if i not in scope.cuts]
    drawn, events = drawn_from_lines(conn, whole)
    states = sorted(
        {
            *_held(conn, space, d, list(drawn)),
            *(s.id for s in scope.states),
            *(s.id for s in (theirs.states if theirs is not None else ())),
        }
    )
    preview = scope.preview() + tuple(
        sentence_texts(conn, [i for i in sentences if i not in scope.sentence_ids])
    )
    facts = state_texts(conn, space, states)
    return Topic(sentences, states, list(events), preview, scope.cuts, facts)


def _said_once(conn: Connection, space: str, query: str) -> bool:
    """Did a line now superseded or released hold what ``query`` says, word for word?"""
    return bool(resolve(conn, space, query, hidden=True).sentence_ids)


# --- purge -----------------------------------------------------------------------


def erasure(
    conn: Connection, space: str, target: str | list[int], meaning: Described | None = None
) -> Affected:
    """Episodes holding what the text describes (or with these ids), and all drawn from them.

    Unknown ids, or another space's, are refused: a purge never guesses.
    """
    if isinstance(target, str):
        episodes = resolve_episodes(conn, space, target, meaning)
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
