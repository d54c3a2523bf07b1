"""Whether a value says something by itself: no word pointing elsewhere, no empty lead-in.

A fact is read later, alone, far from its line. "I had a blast there", "I
learned that the hard way", "I just submitted a few more" and "we go a few
times a week" lean on something outside them (where? what? go where?): alone
they are meaningless, and a reader would guess. "I had a setback", "We had a
great time" and "I had an experience that reminded me of ..." only announce
what the next clause says: alone they say nothing, and neither does who it was
with or against ("a brilliant day out with the crew"). "These dogs" and "that photo"
point at people named before or a picture the listener was shown. ``unresolved`` and
``lead_in`` name why such a value is no fact; sleep then draws nothing from it
and the words stay in their episode for recall. The word lists below are data:
short, general English, each with why it is there.
"""

from __future__ import annotations

import re

from orma_proxy.text.stopwords import STOPWORDS

__all__ = ["EVALUATIVE", "lead_in", "unresolved"]

# Judgements of how something was: they say how it felt, not what happened. (Also what
# ``passing`` calls a judgement of the moment.)
EVALUATIVE = frozenset(
    """good fine great okay ok alright bad terrible awful horrible nice amazing awesome cool
    funny hilarious lovely wonderful brilliant perfect weird strange crazy sad boring
    interesting cute silly lame meh well better worse excellent fantastic fun tough hard
    rough incredible intense wild wicked busy unexpected""".split()  # noqa: SIM905
)
# Nouns that name an occasion without saying what it was: "a great time", "a setback".
# "game" is one: for someone who plays, "I had a crazy game" says only that a game was.
_GENERIC = frozenset(
    """time times experience experiences day days night moment moments thing things stuff
    news setback blast one lot bit game week weekend incident incidents battle""".split()  # noqa: SIM905
)
# Verbs that carry no content of their own: the content is their object.
_LIGHT = frozenset(
    """have has had having get gets got gotten getting make makes made making do does did
    done doing be am is are was were been being go goes went gone going""".split()  # noqa: SIM905
)
# Words that only grade or place in time what another word says.
_DEGREE = frozenset(
    """really so very pretty super quite such just actually finally also totally truly
    absolutely kind sort bit little real most out""".split()  # noqa: SIM905
)
# Verbs whose object or destination must be said: "we went", "I did", "I got".
_NEEDS_OBJECT = re.compile(
    r"\b(?:go|goes|went|gone|going|do|does|did|done|doing|get|gets|got|getting|come|comes|came|"
    r"coming)\b",
    re.I,
)
# What may follow such a verb and still leave it without an object: how often, when, how.
_NO_OBJECT = (
    frozenset(
        """a an the few several couple many some times time once twice again every each week
    weeks day days month months year years weekend weekends too also often usually always
    sometimes regularly now then there here back together lately recently already just
    really so""".split()  # noqa: SIM905
    )
    | STOPWORDS
)
# "there"/"here" are adverbs of a place said elsewhere, unless they open "there is ...".
_PLACE = re.compile(r"\b(?:there|here)\b(?!\s+(?:is|are|was|were|has|have|had|will)\b)", re.I)
# "it" and "them" point at a thing said before, unless a subject of their own ("it was").
_THING = re.compile(r"\b(?:it|them)\b(?!\s+(?:is|was|has|had|will|would|am|are|were)\b)", re.I)
# A count of things named elsewhere: "a few more", "some more", "another one", "I bought one".
_ELLIPSIS = re.compile(
    r"\b(?:(?:a\s+few|few|some|many|several|one|two|three|a\s+couple|a\s+lot)\s+more"
    r"|(?:another|a\s+new|the\s+other|a\s+different|the\s+same|this|that)\s+ones?)\b"
    r"(?!\s+(?!(?:last|this|next|yesterday|today|too|again|and|but)\b)[a-z]{3,})"
    r"|\bones?(?:\s+(?:too|again|as\s+well))?\s*$",
    re.I,
)
# A demonstrative is a pronoun when nothing it could qualify follows it ("I loved that",
# "I learned that the hard way"); "that lake sunrise", "these kids" name their thing.
_DEMONSTRATIVE = re.compile(r"\b(?P<word>this|that|these|those)\b(?P<rest>.*)$", re.I)
_AFTER_PRONOUN = frozenset(
    """too again so really very a an the my our his her their in on at for with to from
    about as up out off down back over and but or last yesterday today now once""".split()  # noqa: SIM905
)
_OPENS_NOUN = frozenset({"a", "an", "the", "my", "our", "his", "her", "their"})
# A clause after "that": a finite verb says one follows ("I heard that the shop closed").
_FINITE = re.compile(
    r"\b(?:\w+ed|is|are|was|were|has|have|had|will|would|can|could|did|does|do|got|went|"
    r"made|took|came|said|left|won|lost|found|gave|saw|ran|sold|bought|began|became)\b",
    re.I,
)
# Where what a generic noun was begins: "an experience that reminded me of ...".
_RELATIVE = re.compile(r"\s(?:that|which|who|where|when|whose)\s", re.I)
_WORD = re.compile(r"[a-z][a-z'-]*", re.I)
# "these dogs", "those folk": a plural demonstrative picks out a set named elsewhere.
_PLURAL_DEMONSTRATIVE = re.compile(r"\b(?:these|those)\s+[a-z]", re.I)
# "this photo", "that snap": a picture the listener was shown and the fact's reader never sees.
_SHOWN = re.compile(
    r"\b(?:this|that|these|those)\s+(?:\w+\s+)?(?:pics?|pictures?|photos?|shots?|snaps?|images?|"
    r"videos?|selfies?|screenshots?)\b",
    re.I,
)
_QUOTES = ('"', "\u201c\u201d")
# Whom one was with or against, on the way where: the circumstances of an occasion, not
# what it was, unless they name someone or somewhere (a capital stops the phrase).
_CIRCUMSTANCE = re.compile(r"\b(?:with|against|on\s+(?:my|our|the)\s+way)(?:\s+[a-z][\w'-]*)*")


def _pronoun_demonstrative(value: str) -> bool:
    for m in _DEMONSTRATIVE.finditer(value):
        rest = m["rest"].strip(" ,.!?;")
        following = rest.split()[0].lower() if rest else ""
        if not following:
            return True
        if following not in _AFTER_PRONOUN:
            continue  # "that lake sunrise": a determiner with its noun
        if m["word"].lower() == "that" and following in _OPENS_NOUN and _FINITE.search(rest):
            continue  # "that the shop closed": a clause follows
        return True
    return False


def unresolved(value: str) -> str | None:
    """Why ``value`` leans on something outside it (a place, a thing, a verb's object), or None."""
    text = " ".join(value.split())
    if _PLACE.search(text):
        return "it says 'there' or 'here' without the place"
    if _THING.search(text) or _pronoun_demonstrative(text):
        return "it points at a thing said elsewhere"
    if _ELLIPSIS.search(text):
        return "it counts things named elsewhere"
    if _PLURAL_DEMONSTRATIVE.search(text) or _SHOWN.search(text):
        return "it points at people or a picture shown or named elsewhere"
    if text.count(_QUOTES[0]) % 2 or sum(text.count(q) for q in _QUOTES[1]) % 2:
        return "it was cut inside a quotation"
    for m in _NEEDS_OBJECT.finditer(text):
        if m[0].isupper() or text[max(0, m.start() - 1) : m.start()] in (":", "-", "/", "."):
            continue  # "CS:GO", "Pokemon GO": a name, not the verb
        after = _WORD.findall(text[m.end() :].split(",")[0])
        if all(w.lower() in _NO_OBJECT for w in after):
            return f"'{m[0]}' says nothing of where or what"
    return None


def lead_in(value: str) -> bool:
    """Whether ``value`` only announces: "I had a setback", "We had a great time".

    What is left once function words, light verbs, judgements and nouns of a
    mere occasion are gone is nothing; a relative clause after the occasion
    ("an experience that reminded me of ...") says what it did, not what it was.
    """
    head = _CIRCUMSTANCE.sub(" ", _RELATIVE.split(f" {value} ", maxsplit=1)[0])
    left = [
        w
        for w in (x.lower().strip("'") for x in _WORD.findall(head))
        if w not in STOPWORDS
        and w not in _LIGHT
        and w not in EVALUATIVE
        and w not in _GENERIC
        and w not in _DEGREE
        and w not in ("our", "us", "he", "she", "his", "her", "an")
    ]
    return not left
