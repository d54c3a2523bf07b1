"""Which line a correction replaces, read from the correction too: the line nearest it.

A correction says its slot again with a new value: "Oscar works at Spotify now."
replaces "Oscar works at Ericsson.", whatever words its description used ("my
brother's company"). So the line nearest the new text in meaning is, most often,
the line meant (on the development sets, for 131 of 138 single corrections). It is
taken in place of what the description found only when both agree on it: the line
holds the description's anchors (its person, its identifier, the user) and is one
the description found or names as closest (asked back: one of the lines asked
about); and its lead over the next nearest line is at least ``LEAD`` of its height
above the space's typical line (relative to the best and to the rest, never a fixed
cosine), so two lines the correction fits alike ("moved to Friday" of two dentist
visits) stay a question. A line about people (named first, or as owners) must share
one with the correction; names that are its value ("the vet is Greenway Vets") need
not. A note naming no one is the user's own. What the description says of the new
value (a name, a number, a day no shown line holds, said again in the correction) is
no anchor the old line must hold (``without_new_value``).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from orma_proxy.errors import AmbiguousDescriptionError
from orma_proxy.forget.closest import closest, nearest_lines
from orma_proxy.forget.describe import Description, Line, describe
from orma_proxy.forget.kin import RELATIONS
from orma_proxy.forget.meaning import MIN_SAMPLE, Described
from orma_proxy.forget.mentions import mentions
from orma_proxy.forget.rank import names_said, their_kin, with_names
from orma_proxy.forget.resolve import Scope, line_of, resolve
from orma_proxy.store import (
    Connection,
    StoredLine,
    float_vectors,
    recent_vectors,
    space_lines,
)
from orma_proxy.text import stem

__all__ = ["LEAD", "corrected_scope", "without_new_value"]

# The nearest line's lead over the next, as a share of its height above the space's typical
# line (its newest lines): set on the development sets bench/forgetting_fit fits on (FIT).
LEAD = 0.25
_SAMPLE = 64
_NEAR = 10  # lines nearest the correction by the index, then compared without names
_KIN = frozenset(stem(w) for w in RELATIONS)


def corrected_scope(
    conn: Connection, space: str, old: str, new: str, meaning: Described | None
) -> Scope:
    """``resolve(old)``, or the line nearest the correction when both agree on it (above)."""
    asked: AmbiguousDescriptionError | None = None
    scope: Scope | None = None
    old = without_new_value(conn, space, old, new)
    try:
        scope = resolve(conn, space, old, meaning=meaning)
    except AmbiguousDescriptionError as error:
        asked = error
    nearest = None if meaning is None else _replaced(conn, space, old, new, meaning, scope, asked)
    if nearest is not None:
        line, d = nearest
        cuts = d.clause_cuts(line.text)
        return Scope(d, [line], {line.id: cuts} if len(cuts) > 1 else {})
    if asked is not None:
        raise asked
    assert scope is not None
    return scope


def _replaced(
    conn: Connection,
    space: str,
    old: str,
    new: str,
    meaning: Described,
    scope: Scope | None,
    asked: AmbiguousDescriptionError | None,
) -> tuple[StoredLine, Description] | None:
    said = meaning.correction
    if said is None:
        return None
    near = {row.sentence_id: row.text for row in nearest_lines(conn, space, said.vector, _NEAR)}
    vectors = float_vectors(conn, list(near))
    ids = [i for i in near if i in vectors]
    if len(ids) < 2:
        return None
    # Compared as the description's lines are (``meaning.py``): the names' direction out.
    query = said.without_anchor(said.vector)[0]
    sims = said.without_anchor(np.stack([vectors[i] for i in ids])) @ query
    order = np.argsort(-sims, kind="stable")
    first = ids[order[0]]
    if scope is not None and first in scope.sentence_ids:
        return None  # the description found it already
    pair = {first, ids[order[1]]}
    sample = [v for i, v in recent_vectors(conn, space, _SAMPLE).items() if i not in pair]
    if len(sample) < MIN_SAMPLE:
        return None  # too few other lines to say what stands out
    # Its lead over the next, as a share of how far it stands above the typical line.
    above = float(sims[order[0]] - np.median(said.without_anchor(np.stack(sample)) @ query))
    if above <= 0 or (sims[order[0]] - sims[order[1]]) / above < LEAD:
        return None
    if asked is not None:
        # Asked back: the correction settles it only as one of the lines asked about (a
        # question of which person, "Emeka Okafor" or "Emeka Eze", it cannot answer).
        named = set(asked.candidates)
    else:
        named = set(closest(conn, space, old, meaning))
        named.update(line.text for line in (scope.lines if scope is not None else ()))
    if near[first] not in named:
        return None
    rows = space_lines(conn, space, hidden=False, holding=(near[first],))
    stored = next((row for row in rows if row.id == first), None)
    if stored is None:
        return None
    d = scope.description if scope is not None else describe(with_names(conn, space, old, False))
    people = [n for n in names_said(conn, space, stored.text) if _subject(stored.text, n, new)]
    line = line_of(stored)
    if d.user and not people and not (line.words & _KIN):
        # a note naming no one ("gym is puregym on the retail park") is the user's own
        line = replace(line, about_user=True)
    if not _held_anchors(conn, space, d).anchors_in(line):
        return None
    if people and not any(mentions(new, name) for name in people):
        return None  # "Ines works at Lufthansa." is not what "Tomas works at Zalando" corrects
    return stored, d


def _subject(text: str, name: str, new: str) -> bool:
    """Is ``name`` whom ``text`` is about (its start, or an owner: "Ines's"), not its value
    ("the cat's vet is Greenway Vets": the vets are what the correction replaces)? A
    capitalised first word the correction writes in lower case ("Gym is PureGym", "my gym
    is ...") is a plain word."""
    at = re.search(rf"(?<![\w'’]){re.escape(name)}(?![\w])", text)
    plain = re.compile(rf"(?<!\w){re.escape(name.lower())}(?!\w)")
    if at is None or (at.start() == 0 and plain.search(new)):
        return False
    before = re.sub(r"(?i)\b(?:my|our|the|his|her|their)\b", "", text[: at.start()])
    return text[at.end() : at.end() + 2] in ("'s", "’s") or not re.search(r"\w", before)


def without_new_value(conn: Connection, space: str, old: str, new: str) -> str:
    """``old`` less the anchors that are the correction's new value: said again in ``new``
    and held by no shown line ("Quentin's fee went up to 500", "he's at Bosch now"). The
    line corrected cannot hold its new value, so it is no anchor that line must hold. A
    name said as an owner ("Farhiya's address") is whose fact it is, and stays."""
    d = describe(old)
    spans = [(i.start, i.end) for i in d.identifiers]
    for anchor in [*d.names, *d.codes]:
        # "Farhiya's address": whose fact is corrected, never the new value
        found = re.search(rf"(?<![\w'’]){re.escape(anchor)}(?![\w'’])", old, re.I)
        if found is not None:
            spans.append(found.span())
    said = Line(0, new, about_user=False)
    kept, last = old, len(old) + 1
    for start, end in sorted(spans, reverse=True):
        if end > last:
            continue  # within an anchor taken already
        last = start
        part = describe(old[start:end])
        if not part.anchored or not (part.anchors_in(said) or _number_in(old[start:end], new)):
            continue
        rows = space_lines(conn, space, hidden=False, holding=part.hints())
        if any(part.anchors_in(line_of(row)) for row in rows):
            continue
        kept = kept[:start] + kept[end:]
    return old if describe(kept).empty else kept


def _number_in(anchor: str, new: str) -> bool:
    """A number ``new`` says another way: "the 13th" as "13 March", a phone that "ends
    977" as "07700 900977" (the digits end a number of it)."""
    number = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", anchor, re.I)
    return number is not None and re.search(rf"{number[1]}(?!\d)", new) is not None


def _held_anchors(conn: Connection, space: str, d: Description) -> Description:
    """``d`` without the names no shown line holds ("she's in Bursa" names the new value,
    which the line it corrects cannot hold, not a person it must), and with "my sister's
    company" the sister's, not the user's."""
    text = their_kin(d.text)
    for name in d.names:
        held = space_lines(conn, space, hidden=False, holding=(name.lower(),))
        if not any(mentions(row.text, name) for row in held):
            text = re.sub(rf"(?<![\w'’]){re.escape(name)}(?![\w])", name.lower(), text)
    return d if text == d.text else describe(text)
