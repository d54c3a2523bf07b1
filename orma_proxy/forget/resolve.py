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
from orma_proxy.facts import USER, OpenState, active_states_held, active_states_of
from orma_proxy.forget.choice import load_choice
from orma_proxy.forget.describe import (
    Description,
    Line,
    Subject,
    content_words,
    describe,
    full_names,
)
from orma_proxy.forget.meaning import Described, standing_out
from orma_proxy.forget.rank import (
    about_kin,
    another_one,
    best_match,
    candidate_rows,
    not_the_kin,
    with_names,
)
from orma_proxy.store import Connection, StoredLine, episode_texts, space_lines
from orma_proxy.text import (
    SHARED_ATTRIBUTES,
    has_cjk,
    state_attributes,
)

__all__ = ["Scope", "about_user", "line_of", "resolve", "resolve_episodes"]

_FIRST = re.compile(r"(?i)(?<![\w'])(?:i|i'm|i've|i'd|i'll|my|me|mine|myself)(?![\w'])")
_SECOND = re.compile(r"(?i)(?<![\w'])(?:you|you're|you've|your|yours|yourself)(?![\w'])")
_MAX_CANDIDATES = 10
PARALLEL = 0.6  # share of their words (values aside) two lines hold in common to be alternatives
# A value that differs between alternatives: a number, a weekday, a month.
_VALUE = re.compile(
    r"\d|^(?:mon|tues|wednes|thurs|fri|satur|sun)day$|^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"sept|oct|nov|dec)[a-z]*$"
)
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


def line_of(stored: StoredLine) -> Line:
    """A stored line as a description is judged on it."""
    corrects = Subject.from_json(stored.corrects)
    return Line(stored.id, stored.text, about_user(stored), stored.speaker, corrects)


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


def resolve(
    conn: Connection,
    space: str,
    text: str,
    *,
    hidden: bool = False,
    meaning: Described | None = None,
) -> Scope:
    """The lines of ``space`` that ``text`` describes (``hidden``: superseded, released too).

    ``meaning``: the description's embedding, to rank a person's lines by meaning
    when no line holds the words that say which are meant.
    """
    quote = _quoted(text)
    d = describe(with_names(conn, space, text, hidden))
    if d.empty and quote is None:
        raise InputError(f"{text!r} names nothing to look for")
    quoted: list[StoredLine] = []
    if quote is not None:
        longest = max(re.findall(r"\w+", text), key=len, default="")
        holding = (longest,) if longest.isascii() else ()
        for stored in space_lines(conn, space, hidden=hidden, holding=holding):
            if quote.search(stored.text):
                quoted.append(stored)
    if d.empty:
        return Scope(d, _merge([], quoted))
    states = _linked(conn, space, d)
    cited = {s.sentence_id for s in states if s.attribute not in SHARED_ATTRIBUTES}
    anchored = _anchored(conn, space, d, cited, hidden)
    if not anchored and d.first_named:
        # No line names the capitalised first word ("Change Ben's band", "Wifi password"):
        # it was a plain word, not a name.
        plain = describe(d.text, first_is_name=False)
        if not plain.empty:
            d = plain
            states = _linked(conn, space, d)
            cited = {s.sentence_id for s in states if s.attribute not in SHARED_ATTRIBUTES}
            anchored = _anchored(conn, space, d, cited, hidden)
    chosen = _chosen(conn, space, d, anchored, cited, meaning)
    lines = chosen or []
    if chosen is not None and not lines and not quoted:
        lines = best_match(conn, space, d, meaning, hidden=hidden)
    lines = _merge(lines, quoted)
    _check_unambiguous(d, lines)
    lines = _in_time(d, lines)
    kept = {line.id for line in lines}
    states = [
        s
        for s in states
        if s.sentence_id in kept or (d.when == "any" and s.attribute not in SHARED_ATTRIBUTES)
    ]
    if d.anchored and not d.evidence and not d.exact:
        states = _everything_of(conn, space, d)
    cuts = {}
    for found in lines:
        pieces = d.clause_cuts(found.text)
        if len(pieces) > 1:
            cuts[found.id] = pieces
    return Scope(d, lines, cuts, states)


def _anchored(
    conn: Connection, space: str, d: Description, cited: set[int], hidden: bool
) -> list[tuple[StoredLine, Line]]:
    """The lines holding every anchor (with no anchor: holding all the evidence)."""
    hints = d.hints() if d.anchored else d.value_hints()
    # The user's lines are most of a space, and only those showing the evidence
    # (or a linked state, or a correction) can be chosen: cut to them first.
    some = d.evidence_hints() if d.user else ()
    rows = space_lines(
        conn, space, hidden=hidden, holding=hints, holding_any=some, with_ids=cited, about_user=True
    )
    found = []
    for stored in rows:
        line = line_of(stored)
        if not d.anchored and not d.holds(line, linked=stored.id in cited):
            continue
        if d.anchored and not d.anchors_in(line):
            continue
        found.append((stored, line))
    return found


def _chosen(
    conn: Connection,
    space: str,
    d: Description,
    anchored: list[tuple[StoredLine, Line]],
    cited: set[int],
    meaning: Described | None,
) -> list[StoredLine] | None:
    """Of the lines holding the anchors, those the evidence says are meant (None: none, finally).

    No evidence (identifiers, codes, "everything about Farah"): all of them. Else
    those holding every word and the kind; else those holding most of the words;
    else, for words outside the kinds Orma knows ("Omar's sport"), the clear
    winners by meaning (``forget/meaning.py``).
    """
    if d.exact or not d.evidence:
        return [stored for stored, _ in anchored]
    if len(d.names) > 1 and len(anchored) == 1 and not any(d.holds(x) for _, x in anchored):
        return [anchored[0][0]]  # "Sione and Mele broke up": the one line naming both
    if d.names:  # "where Nisha works": not "Nisha's husband works at ..."
        anchored = [(s, line) for s, line in anchored if not about_kin(s.text, d.names, d.text)]
    held = [(s, line) for s, line in anchored if d.holds(line, linked=s.id in cited)]
    if len(d.kind_words) > 1 and len(held) > 1:
        # "card PIN": the lines showing both kinds, not every line about cards
        most = max(d.kinds_in(line) for _, line in held)
        held = [(s, line) for s, line in held if d.kinds_in(line) == most]
    exact = [s for s, _ in held]
    several = len(content_words(d.text)) > 1 and len({s.episode_id for s in exact}) > 1
    one_of = several and d.when == "any" and _one_thing(d.text) and _parallel(exact)
    if one_of:
        _check_unambiguous(d, exact)  # two people of one first name: ask which person first
    if several and (not d.anchored or one_of):
        # "laptop password" said of two laptops: ask which, never take both or guess
        raise AmbiguousDescriptionError(
            f"{d.text!r} could mean any of {len(exact)} lines; "
            "nothing was changed: quote the one meant",
            [s.text for s in exact[:_MAX_CANDIDATES]],
        )
    if exact or not d.values or not d.anchored:
        return exact
    scored = [(d.evidence_in(line, linked=s.id in cited), s) for s, line in anchored]
    best = max((score for score, _ in scored), default=(0, 0))
    if best[0] > 0:
        partial = [s for score, s in scored if score == best and not another_one(d.text, s.text)]
        if not partial:
            return []
        return standing_out(conn, space, partial, meaning) if meaning else partial
    # None holds the words: of the lines showing the kind ("my git token": the tokens), or
    # of a person's lines, the fitted choice picks one or asks. The user's lines are most
    # of a space: meaning alone never picks one of them without the kind.
    pool = [s for score, s in scored if score[1]] if best[1] else []
    if not pool and d.names:
        pool = [
            s for s, _ in anchored if not d.other_kind(s.text) and not not_the_kin(d.text, s.text)
        ]
    if meaning is None or not pool:
        return []
    taken = load_choice().decide(d.text, *candidate_rows(conn, space, d, pool, meaning))
    # The choice weighed every line of the person or the kind and took none: final, not
    # asked again of a pool drawn from fewer of the same lines (``best_match``).
    return taken if taken or not d.names else None


# "the meeting with Lukas", "my Nairobi flight", "Ama's birthday": one thing, in the singular.
_ONE_OF = re.compile(r"(?i)(?<![\w'])(?:the|my|that|this|his|her|their|our|[\w-]+['’]s)\s+")
_PHRASE_END = re.compile(
    r"(?i)\s+(?:with|for|from|at|in|on|of|about|to|that|which|when|we|i)\b|[,.;!?]"
)
_ALL = re.compile(r"(?i)\b(?:all|every|everything|anything|notes|lines|stuff|info|details)\b")


def _one_thing(text: str) -> bool:
    """Does ``text`` name one thing ("the meeting with Lukas"), so two lines are a question?"""
    m = _ONE_OF.search(text)
    if m is None or _ALL.search(text):
        return False
    phrase = _PHRASE_END.split(text[m.end() :], maxsplit=1)[0].split()
    head = phrase[-1].lower() if phrase else ""
    return bool(head) and not (head.endswith("s") and not head.endswith("ss"))


def _parallel(lines: list[StoredLine]) -> bool:
    """Are ``lines`` the same sentence with other values ("Call with Ana on Monday at 9" /
    "... on Friday at 4"): alternatives, not parts of one thing ("my Oaxaca trip")?"""
    words = [
        {w for w in content_words(line.text.lower()) if not _VALUE.search(w)} for line in lines
    ]
    return all(
        len(a & b) >= PARALLEL * len(a | b) for i, a in enumerate(words) for b in words[i + 1 :]
    )


def _merge(lines: list[StoredLine], quoted: list[StoredLine]) -> list[StoredLine]:
    seen = {line.id: line for line in lines}
    for line in quoted:
        seen.setdefault(line.id, line)
    return sorted(seen.values(), key=lambda line: line.id)


def _everything_of(conn: Connection, space: str, d: Description) -> list[OpenState]:
    """Every active state held by the described person: "everything about Farah"."""
    return [s for h in _holders(d) for s in active_states_held(conn, space, h)]


def resolve_episodes(
    conn: Connection, space: str, text: str, meaning: Described | None = None
) -> list[int]:
    """The episodes a purge of ``text`` erases: every one holding the lines it describes.

    An identifier is looked for in each episode's whole text, in every spelling
    ``find_identifiers`` knows, so a line break or a sentence cut inside an
    address can't hide it.
    """
    d = describe(text)
    if d.exact:
        return [
            episode for episode, body in episode_texts(conn, space) if _holds_identifier(d, body)
        ]
    scope = resolve(conn, space, text, hidden=True, meaning=meaning)
    return sorted({line.episode_id for line in scope.lines})


def _holds_identifier(d: Description, body: str) -> bool:
    """Every identifier (or its leading part) and code of ``d`` is in ``body``."""
    return d.anchors_in(Line(0, body, False))
