"""When no line holds what a description says: the line it means, by its words and meaning.

People describe a line in their own words: "my car" for "I drive a silver
Corolla", "the spotify login" for "Spotify pw is Lantern88", "where hiroshi is
based" for "Hiroshi moved to Nagoya". When the strict reading
(``forget/resolve.py``) finds no line, each line that shares a word with the
description or is near it in meaning is scored: how much of the description's
words it holds (rarer words weigh more, a short word may be the start of the
line's: "info", "information") and how far its meaning stands above a typical
line of the space (deviations over the median, never a fixed cosine). A name
the space writes capitalised is required ("amara" is "Amara"), accents aside
("Sofia" is "Sofía"); "my" leaves out lines about someone else ("Priyanka's
car"). Which line that makes the one meant, a question back
(``AmbiguousDescriptionError``) or nothing found is the fitted choice's to say
(``forget/choice.py``), from these scores and a few more (``candidate_rows``).
"""

from __future__ import annotations

import itertools
import math
import re
import unicodedata
from dataclasses import dataclass

import numpy as np

from orma_proxy.forget.choice import FEATURES, load_choice
from orma_proxy.forget.describe import Description, Line, content_words, describe
from orma_proxy.forget.kin import RELATIONS, alike
from orma_proxy.forget.meaning import (
    MIN_SAMPLE,
    Described,
    others_sample,
    similarities,
)
from orma_proxy.forget.mentions import mentions
from orma_proxy.store import (
    Connection,
    StoredLine,
    nearest_passages,
    space_lines,
)
from orma_proxy.text import NOT_NAMES, evidence_of, expanded, group_stems, kinds_by_shape, stem

__all__ = [
    "about_kin",
    "another_one",
    "best_match",
    "candidate_rows",
    "fold",
    "names_said",
    "not_the_kin",
    "with_names",
]

_TOKEN = re.compile(r"[^\W_][\w'’-]*")
_NEAR = 16  # lines taken by meaning alone, besides those sharing a word
_ENOUGH = 2  # words of typical weight that say all a description says
_PREFIX = 4  # a word this long or longer may be the start of a line's word
_TYPO_LENGTH = 7  # a word this long may be typed with one letter wrong
# People someone has: "Ilse's husband is a carpenter" is a fact about the husband.
_KIN = RELATIONS | frozenset(
    """gran nan kid kids child children baby boyfriend girlfriend fiance fiancee flatmate roommate
    housemate assistant teacher tutor dentist doctor gp therapist nanny sibling siblings parents
    twin stepson stepdaughter""".split()  # noqa: SIM905
)
_OWNED = re.compile(r"(?<![\w])([A-Za-z][\w]*)['’]s\b|(?<![\w])([A-Za-z]\w*s)['’](?!\w)")


_KIN_OF = re.compile(r"(?<![\w])([A-Za-z][\w-]*)['’]s?\s+([a-z]+)\b", re.I)


def fold(text: str) -> str:
    """``text`` in lower case without accents: "Sofía" and "sofia" are one word."""
    if text.isascii():
        return text.lower()  # no accent to take off: the same, without the per-letter walk
    plain = unicodedata.normalize("NFKD", text)
    return "".join(c for c in plain if not unicodedata.combining(c)).casefold()


@dataclass(frozen=True)
class _Word:
    raw: str
    stem: str


def _words(text: str) -> list[_Word]:
    return [_Word(w, stem(fold(w))) for w in content_words(text)]


def _line_stems(text: str) -> set[str]:
    return {stem(fold(t)) for t in _TOKEN.findall(expanded(text))}


def _holds(word: str, stems: set[str]) -> bool:
    if word in stems:
        return True
    if len(word) < _PREFIX:
        return False
    return any(
        s.startswith(word) or (len(s) >= _PREFIX and word.startswith(s)) or _typo(word, s)
        for s in stems
    )


def _typo(a: str, b: str) -> bool:
    """One letter added, dropped or changed in a long word ("portugese", "colonscopy")."""
    if min(len(a), len(b)) < _TYPO_LENGTH or abs(len(a) - len(b)) > 1 or a[0] != b[0]:
        return False
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[i + 1 :] == b[i + 1 :] or a[i + 1 :] == b[i:] or a[i:] == b[i + 1 :]


def _is_name(word: str, lines: list[StoredLine]) -> bool:
    """Does the space write ``word`` as a name: capitalised inside a line, or owning something?"""
    folded = fold(word)
    named = False
    for line in lines:
        if folded not in fold(line.text):
            continue  # a cheap test first: most lines of a pool don't hold the word
        tokens = list(_TOKEN.finditer(line.text))
        for i, m in enumerate(tokens):
            token = m[0].removesuffix("'s").removesuffix("’s")
            if fold(token) != folded or _in_identifier(line.text, m.start(), m.end()):
                continue  # "thabo.m@zulumail.fake" does not spell the name "Thabo"
            if not token[:1].isupper():
                return False  # written in lower case too: a plain word
            after = tokens[i + 1][0] if i + 1 < len(tokens) else ""
            surname = after[:1].isupper() and after.lower() not in NOT_NAMES
            named = named or i > 0 or token != m[0] or surname  # "Kate Hughes is ..."
    return named and folded not in NOT_NAMES


def _in_identifier(text: str, start: int, end: int) -> bool:
    """Is ``text[start:end]`` part of an address or handle ("thabo.m@mail.fake")?"""
    after = text[end : end + 2]
    before = text[max(start - 2, 0) : start]
    joined = len(after) == 2 and after[0] in ".@" and not after[1].isspace()
    return joined or (len(before) == 2 and before[1] in ".@" and not before[0].isspace())


def with_names(conn: Connection, space: str, text: str, hidden: bool) -> str:
    """``text`` with each word the space writes only as a name written so: "forget kate" ->
    "forget Kate", so "kate" is a person who must be in the line, not a word to find."""
    out = text
    if describe(text).exact:
        return text  # an identifier or a code names the line whatever else is said
    for word in content_words(text):
        if word[:1].isupper() or len(word) < 3 or not word.isalpha() or evidence_of(word):
            continue
        if not word.isascii():
            continue
        lines = list(space_lines(conn, space, hidden=hidden, holding=(word,)))
        if lines and _is_name(word, lines):
            spelled = _spelling(word, lines)
            out = re.sub(rf"(?<![\w'’]){re.escape(word)}(?![\w])", spelled, out)
    names = describe(out).names
    if len(names) > 1:
        # "the villa rosa wifi from our Lisbon trip": a name no line holds, beside one that
        # some do, is a word saying which of their lines, not a person who must be there
        for name in names:
            held = space_lines(conn, space, hidden=hidden, holding=(name.lower(),))
            if name.isascii() and not any(mentions(line.text, name) for line in held):
                out = re.sub(rf"(?<![\w'’]){re.escape(name)}(?![\w])", name.lower(), out)
    return out


def names_said(conn: Connection, space: str, text: str) -> tuple[str, ...]:
    """The people ``text`` names, as the space spells them: whose direction meaning leaves out."""
    return describe(with_names(conn, space, text, hidden=False)).names


def _spelling(word: str, lines: list[StoredLine]) -> str:
    for line in lines:
        for m in _TOKEN.finditer(line.text):
            token = m[0].removesuffix("'s").removesuffix("’s")
            if fold(token) == fold(word):
                return token
    return word


def about_kin(text: str, names: tuple[str, ...], asked: str) -> bool:
    """Is ``text`` about one of these people's kin ("Ilse's husband ..."), not asked about?"""
    if "'s" not in text and "’s" not in text:
        return False  # a plain test first: most lines own nothing
    said = alike(stem(fold(w)) for w in _TOKEN.findall(asked))  # "partner": the girlfriend
    for name in names:
        pattern = rf"(?<!\w){re.escape(fold(name))}['’]s\s+(\w+)"
        for m in re.finditer(pattern, fold(text)):
            if m[1] in _KIN and stem(m[1]) not in said:
                return True
    return False


_MY_KIN = re.compile(r"(?i)(?<![\w'’])my(\s+)(\w+)")


def their_kin(said: str) -> str:
    """``said`` with "my sister" as "the sister": a fact of the user's relative is the
    relative's, whose lines need not be the user's."""
    return _MY_KIN.sub(lambda m: f"the{m[1]}{m[2]}" if m[2].lower() in _KIN else m[0], said)


def not_the_kin(said: str, text: str) -> bool:
    """Is ``text`` silent on the relative ``said`` asks of ("Olu's sister": "Olu's brother
    Dayo plays drums", "Olu plays sax"), so about the person, not the one meant?"""
    stems = _line_stems(text)
    return any(
        m[2].lower() in _KIN and not any(_holds(s, stems) for s in alike([stem(fold(m[2]))]))
        for m in _KIN_OF.finditer(said)
    )


def another_one(said: str, text: str) -> bool:
    """Is ``text`` about another thing of the kind ``said`` names, so never the line meant?

    "my cat's vet appointment": whatever a lowercase owner owns is the owner's, so a
    line without a cat is not it ("Vet is Dr. Amsel"). "my shoe size": a line naming
    its size with another word before it ("My hat size is 58") is about another size.
    """
    return _Asked.of(said).another(text, _line_stems(text))


@dataclass(frozen=True)
class _Asked:
    """What ``another_one`` reads of a description, read once for all of a pool's lines."""

    owners: tuple[str, ...]  # lowercase owners a line must hold ("my cat's vet")
    asked: frozenset[str]  # the stems of its words
    pairs: tuple[tuple[str, str], ...]  # a plain word before a word ("shoe size")

    @classmethod
    def of(cls, said: str) -> _Asked:
        content = _content(said)
        owners = []
        for m in _OWNED.finditer(said):
            owner = fold(m[1] or m[2])
            lowercase = (m[1] or m[2])[:1].islower() and owner in content
            if lowercase and owner not in _KIN:
                owners.append(stem(owner))
        tokens = [fold(t.removesuffix("'s").removesuffix("’s")) for t in _TOKEN.findall(said)]
        pairs = tuple(
            (a, b)
            for a, b in itertools.pairwise(tokens)
            if a in content and b in content and a.isalpha() and not _is_capital(said, a)
        )
        return cls(tuple(owners), frozenset(stem(t) for t in tokens), pairs)

    def another(self, text: str, stems: set[str]) -> bool:
        """``another_one`` for a line of ``text`` whose stems (``_line_stems``) are ``stems``."""
        if any(not _holds(owner, stems) for owner in self.owners):
            return True
        if not self.pairs or not {stem(b) for _, b in self.pairs} & stems:
            return False  # most lines hold none of the words a modifier is asked of
        line = [fold(t) for t in _TOKEN.findall(text)]
        written = _content(text)
        for a, b in self.pairs:
            for before, word in itertools.pairwise(line):
                if stem(word) != stem(b) or not before.isalpha() or before not in written:
                    continue
                if stem(before) not in self.asked and not _holds(stem(a), {stem(before)}):
                    return True  # "hat size" where "shoe size" was asked
        return False


def _content(text: str) -> set[str]:
    return {fold(w) for w in content_words(text)}


def _is_capital(text: str, word: str) -> bool:
    return any(fold(t) == word and t[:1].isupper() for t in _TOKEN.findall(text))


def _someone_else(text: str) -> bool:
    """A line about another person: it names what someone owns ("Priyanka's car", "Mum's GP")."""
    for m in _OWNED.finditer(text):
        word = m[1] or m[2]  # "Mum's GP", "Kids' shoe sizes"
        if word.lower() in _KIN or (word[:1].isupper() and word.lower() not in NOT_NAMES):
            return True
    return False


def _pool(
    conn: Connection, space: str, words: list[_Word], meaning: Described, hidden: bool
) -> list[StoredLine]:
    near = nearest_passages(conn, meaning.vector, space, k=_NEAR, oversample=4, use_floor=False)
    starts = sorted({fold(w.stem)[:_PREFIX] for w in words if len(w.stem) >= 3})
    starts = [s for s in starts if s.isascii()]
    ids = [row.sentence_id for row in near]
    if not starts and not ids:
        return []
    return list(
        space_lines(conn, space, hidden=hidden, holding_any=starts or ("\0",), with_ids=ids)
    )


def best_match(
    conn: Connection,
    space: str,
    d: Description,
    meaning: Described | None,
    *,
    hidden: bool = False,
) -> list[StoredLine]:
    """The line ``d`` clearly means, [] when none stands out; close ones raise an ambiguity."""
    if meaning is None or d.exact:
        return []
    words = _words(d.text)
    if not words and not d.names:
        return []
    pool = _pool(conn, space, words, meaning, hidden)
    names = [fold(n) for n in d.names]
    names += [w.raw for w in words if not w.raw[:1].isupper() and _is_name(w.raw, pool)]
    named = {fold(n) for n in names}
    if named:
        pool = [line for line in pool if all(_holds_name(line.text, n) for n in named)]
    elif d.user:
        pool = [line for line in pool if not _someone_else(line.text)]
    words = [w for w in words if w.stem not in named and fold(w.raw) not in named]
    if named and not words and not d.groups:
        return pool  # "forget about bjorn": everything about Björn
    if named:
        pool = [
            line
            for line in pool
            if not about_kin(line.text, tuple(named), d.text)
            and not d.other_kind(line.text)
            and not not_the_kin(d.text, line.text)
        ]
    # "my console login": of the lines, those showing the kind named (a password), if any
    showing = [line for line in pool if d.kind_here(Line(line.id, line.text, False))]
    pool = showing or pool
    if not pool:
        return []
    return load_choice().decide(d.text, *candidate_rows(conn, space, d, pool, meaning, words))


def _holds_name(text: str, name: str) -> bool:
    folded = fold(text)
    return re.search(rf"(?<!\w){re.escape(fold(name))}(?!\w)", folded) is not None


def candidate_rows(
    conn: Connection,
    space: str,
    d: Description,
    pool: list[StoredLine],
    meaning: Described,
    words: list[_Word] | None = None,
) -> tuple[list[StoredLine], np.ndarray]:
    """The lines of ``pool`` with a vector, and one row of ``choice.FEATURES`` for each.

    ``words``: the description's words to look for (by default its content words
    but the names).
    """
    lines, sims, found = similarities(conn, space, pool, meaning)
    if not lines:
        return [], np.zeros((0, len(FEATURES)))
    others = others_sample(conn, space, found, meaning)
    if len(others) < MIN_SAMPLE:  # too few other lines: the candidates' own spread
        others = np.concatenate([sims, others])
    # Fewer lines than that in all: nothing says what is typical, so meaning says nothing.
    measured = len(others) >= MIN_SAMPLE
    typical = float(np.median(others))
    spread = float(np.std(others)) or 1.0
    if words is None:
        named = {fold(n) for n in d.names}
        words = [w for w in _words(d.text) if w.stem not in named and fold(w.raw) not in named]
    held = [_line_stems(line.text) for line in lines]
    weights = {w.stem: math.log(1 + len(lines) / (1 + sum(_holds(w.stem, h) for h in held)))
               for w in words}  # fmt: skip
    # Two words of typical weight say it all: a long description's extra words are what the
    # person adds ("... we hid under the blue pot last summer"), not a checklist.
    total = min(sum(weights.values()), _ENOUGH * sum(weights.values()) / max(len(weights), 1))
    total = total or 1.0
    cosine = np.asarray(sims, dtype=np.float64)
    z = (cosine - typical) / spread * measured
    shares, kinds = [], []
    for line, stems in zip(lines, held, strict=True):
        shares.append(min(1.0, sum(wt for w, wt in weights.items() if _holds(w, stems)) / total))
        if not d.kind_words:
            kinds.append(0.0)
            continue
        shape = kinds_by_shape(line.text)
        shown = all(stems & group_stems(k) or k & shape for k in d.kind_words)
        kinds.append(1.0 if shown else -1.0)
    # Never meant: a line about another thing of the kind named ("my hat size" for "my shoe
    # size"), and, when meaning can't be measured, a line holding none of the words.
    asked = _Asked.of(d.text)
    kept = [
        i
        for i, line in enumerate(lines)
        if (measured or shares[i] > 0) and not asked.another(line.text, held[i])
    ]
    if not kept:
        return [], np.zeros((0, len(FEATURES)))
    lines, z, cosine = [lines[i] for i in kept], z[kept], cosine[kept]
    share, kinds = np.array(shares)[kept], [kinds[i] for i in kept]
    rows = np.column_stack(
        [
            z,
            _lead(z),
            cosine,
            share,
            _lead(share),
            np.array(kinds),
            np.full(len(lines), float(len(words))),
            np.full(len(lines), math.log(len(lines))),
        ]
    )
    return lines, rows


def _lead(values: np.ndarray) -> np.ndarray:
    """Each value over the best of the others (a lone candidate: its own value)."""
    if len(values) < 2:
        return np.array(values, dtype=np.float64)
    order = np.argsort(-values, kind="stable")
    first, second = values[order[0]], values[order[1]]
    best_other = np.where(np.arange(len(values)) == order[0], second, first)
    lead: np.ndarray = values - best_other
    return lead
