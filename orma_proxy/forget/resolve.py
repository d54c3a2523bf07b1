"""Resolving a description to exactly the lines and states it means, or to a question back.

``resolve`` reads the description (``describe``), judges every line of the
space by it, adds the lines that active states of the same person and kind
cite (so "Meera's employer" finds "Meera is at Zoho", written by an earlier
correction), keeps the previous or current ones when the description says so,
and cuts a line holding two kinds of fact at its clauses. When the description
names a first name the lines give to two different people, nothing is chosen:
``AmbiguousDescriptionError`` carries the candidates. A quote that appears
word for word is always in scope too, so ``supersede("Pune", ...)`` still means
every line saying Pune.

A plain ``fn(conn)``: a dry run runs it on the reader, the real action in its
write job, so what changes is exactly what was resolved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from orma_proxy.errors import AmbiguousDescriptionError, InputError
from orma_proxy.facts import USER, OpenState, active_states_of
from orma_proxy.forget.describe import Description, Line, Subject, describe, full_names
from orma_proxy.store import Connection, StoredLine, episode_texts, space_lines
from orma_proxy.text import find_identifiers, has_cjk, same, state_attributes

__all__ = ["Scope", "resolve", "resolve_episodes"]

_FIRST = re.compile(r"(?i)(?<![\w'])(?:i|i'm|i've|i'd|i'll|my|me|mine|myself)(?![\w'])")
_SECOND = re.compile(r"(?i)(?<![\w'])(?:you|you're|you've|your|yours|yourself)(?![\w'])")
_MAX_CANDIDATES = 10
# Words saying a fact is over ("I quit my job at Acme"): such a line is not the current one.
_ENDED = re.compile(
    r"(?i)(?<![\w'])(?:quit|left|until|used to|former|formerly|previously|no longer|anymore|"
    r"ended|resigned|retired|moved out)(?![\w'])"
)


@dataclass(frozen=True)
class Scope:
    """What a description resolved to: whole lines, lines to cut at clauses, linked states."""

    description: Description
    lines: list[StoredLine]
    cuts: dict[int, list[tuple[int, int, bool]]] = field(default_factory=dict)
    states: list[OpenState] = field(default_factory=list)

    @property
    def sentence_ids(self) -> list[int]:
        return [line.id for line in self.lines]

    def preview(self) -> tuple[str, ...]:
        """The text in scope: a cut line shows only its clauses in scope."""
        shown = []
        for line in self.lines:
            cuts = self.cuts.get(line.id)
            if cuts:
                shown += [line.text[a:b] for a, b, hit in cuts if hit]
            else:
                shown.append(line.text)
        return tuple(shown)


def about_user(line: StoredLine) -> bool:
    """The user's own turn, a note in the first person, or the assistant saying "you"."""
    if line.role == "user":
        return True
    if line.role == "assistant":
        return _SECOND.search(line.text) is not None
    return line.speaker is None and _FIRST.search(line.text) is not None


def _quoted(text: str) -> re.Pattern[str] | None:
    """``text`` as a whole-word phrase, case aside ("cat" never matches "category")."""
    phrase = " ".join(text.split())
    if not re.search(r"\w", phrase):
        return None
    left = r"(?<!\w)" if re.match(r"\w", phrase) and not has_cjk(phrase[0]) else ""
    right = r"(?!\w)" if re.search(r"\w$", phrase) and not has_cjk(phrase[-1]) else ""
    return re.compile(left + re.escape(phrase).replace(r"\ ", r"\s+") + right, re.I)


def _holders(d: Description) -> list[str]:
    return list(d.names) or ([USER] if d.user else [])


def _linked(conn: Connection, space: str, d: Description) -> list[OpenState]:
    """Active states of the described person in the described kinds of fact."""
    if not d.groups:
        return []
    attributes = [a for g in sorted(d.groups) for a in state_attributes(g)]
    return [s for h in _holders(d) for s in active_states_of(conn, space, h, attributes)]


def _check_unambiguous(d: Description, lines: list[StoredLine]) -> None:
    texts = [line.text for line in lines]
    for name in d.names:
        if " " in name:
            continue
        people = full_names(name, texts)
        if len(people) >= 2:
            raise AmbiguousDescriptionError(
                f"{d.text!r} could mean {len(people)} people ({', '.join(people)}); "
                "nothing was changed: name one of them",
                people[:_MAX_CANDIDATES],
            )


def _in_time(d: Description, lines: list[StoredLine]) -> list[StoredLine]:
    """``previous``: all but the current lines; ``current``: only those.

    The current lines are the latest episode's, unless they say the fact is
    over ("I quit my job at Acme last year"): then every line is a previous one.
    """
    if d.when == "any" or len({line.episode_id for line in lines}) < 2:
        return lines
    latest = max(lines, key=lambda line: (line.said_at, line.episode_id)).episode_id
    current = [line for line in lines if line.episode_id == latest]
    if any(_ENDED.search(line.text) for line in current):
        return lines if d.when == "previous" else []
    if d.when == "previous":
        return [line for line in lines if line.episode_id != latest]
    return current


def resolve(conn: Connection, space: str, text: str, *, hidden: bool = False) -> Scope:
    """The lines of ``space`` that ``text`` describes (``hidden``: superseded, released too)."""
    d = describe(text)
    quote = _quoted(text)
    if d.empty and quote is None:
        raise InputError(f"{text!r} names nothing to look for")
    states = _linked(conn, space, d)
    cited = {s.sentence_id for s in states}
    lines = []
    for stored in space_lines(conn, space, hidden=hidden):
        corrects = Subject.from_json(stored.corrects)
        line = Line(stored.id, stored.text, about_user(stored), stored.speaker, corrects)
        if (not d.empty and d.holds(line, linked=stored.id in cited)) or (
            quote is not None and quote.search(stored.text)
        ):
            lines.append(stored)
    _check_unambiguous(d, lines)
    lines = _in_time(d, lines)
    kept = {line.id for line in lines}
    states = [s for s in states if s.sentence_id in kept or d.when == "any"]
    cuts = {}
    for found in lines:
        pieces = d.clause_cuts(found.text)
        if len(pieces) > 1:
            cuts[found.id] = pieces
    return Scope(d, lines, cuts, states)


def resolve_episodes(conn: Connection, space: str, text: str) -> list[int]:
    """The episodes a purge of ``text`` erases: every one holding the lines it describes.

    An identifier is looked for in each episode's whole text, in every spelling
    ``find_identifiers`` knows, so a line break or a sentence cut inside an
    address can't hide it.
    """
    d = describe(text)
    if d.identifiers:
        return [
            episode for episode, body in episode_texts(conn, space) if _holds_identifier(d, body)
        ]
    scope = resolve(conn, space, text, hidden=True)
    return sorted({line.episode_id for line in scope.lines})


def _holds_identifier(d: Description, body: str) -> bool:
    found = find_identifiers(body)
    return any(same(a, b) for a in d.identifiers for b in found)
