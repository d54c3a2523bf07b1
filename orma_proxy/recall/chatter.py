"""What recall never shows: chatter, the user's old questions, and replies echoing memory.

Everything said stays stored and searchable (``orma search`` still finds it); this
only decides which found sentences may become lines of the memory block, by rules
a test can pin down (no LLM):

- **chatter**: a sentence whose words are all stop words or the words of greetings,
  thanks, acknowledgements and the assistant's filler ("Hi!", "Got it, thanks for
  sharing.", "How can I help you today?"), or a short one of those words plus a
  name ("Thanks, Asha!", "Nice to meet you, Sahil!"). Any other word is content:
  "Biscuit, after my favourite snack." is an answer, however short;
- **a reply's courtesy** (the assistant's sentences only): an offer of help
  ("If you need anything else, please don't hesitate to ask."), a wish or hope
  for the user ("I hope this helps!", "Have a wonderful day!") or a reaction to
  what the user said ("That sounds like a great plan!"): found by the shape of
  the sentence (an offer's condition on what the user may want, an invitation
  to ask, a wish addressed to the user, a short "That's ..." with no one in it),
  so a model's own wording of them is screened as ours is. A name or a number
  makes it content ("If you need a vet, Dr. Rao at Paws Clinic is good.");
- **a question of the user's** ("Where do I live now?"): a question is not a
  memory of a fact, so it is shown only for a query about what was asked ("What
  did I ask you about my back?"). The assistant's own questions ("Anything
  else?") are filler;
- **an echo**: an assistant sentence holding a line of the memory block
  (``[LOG: ...]``, ``[user.home city: ...]``, ``[FORBIDDEN: ...]``: small models
  copy them into replies), or restating what the user said before ("You live in
  Pune." after "I live in Pune."): the reply adds nothing the user's own line
  does not say, and recalled again it would come back as if it were news. A
  sentence in the first person that does not address the user ("I set up a 5K
  run in our street.") is the speaker's own news, never an echo, however many
  words it shares with a line of the user's.

Echoes are found at recall time, not when a reply is stored: the reply is kept
whole, and "what the user said before" is the user's own lines the same search
found, so nothing has to be marked or re-indexed when memory changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from orma_proxy.text.attributes import stem
from orma_proxy.text.stopwords import STOPWORDS

__all__ = [
    "Said",
    "asks_what_was_asked",
    "content_words",
    "echoes_memory",
    "is_chatter",
    "is_courtesy",
    "is_question",
    "needs_statements",
    "restates",
    "screen",
    "speaks_of_self",
    "words_of",
]

_WORD = re.compile(r"[\w'’]+")
# Greetings, thanks, acknowledgements, courtesy and the assistant's filler: words that
# say nothing about anyone. A sentence made of them and stop words alone is chatter.
FILLER = frozenset(
    """hi hello hey hiya howdy morning afternoon evening night good bye goodbye byebye thanks
    thank thx cheers ok okay k alright right sure yes yeah yep yup no nope nah got noted
    understood understand gotcha cool great nice fine fantastic awesome perfect
    wonderful lovely excellent sounds sound glad happy pleased welcome anytime pleasure
    help helps helping helped helpful can could would should shall may might must let
    lets let's me us our ours i'm i'll i've i'd you're you'll you've you'd it's that's
    there's here's what's how's how are am been being doing well just really very so too
    also much many more all any anything else something everything there here now today
    tonight again later soon see talk take care day have has had having know knowing
    letting sharing share told tell telling mentioned mention remember noted note follow
    stick from on off up out about over keep keeping will won't don't do does did done
    go going get getting thing things way one please sorry oh ah ahh hmm um uh wow haha
    lol meet meeting say said saying ask asking questions question other
    assist assistance free further luck best regards time""".split()  # noqa: SIM905
)
_VOCATIVE_MAX_WORDS = 6  # "Thanks so much, Asha!": filler and a name, no more
# What makes a name a form of address ("Thanks, Asha!"), not a statement ("I'm Asha.").
_ADDRESSING = frozenset(
    """hi hello hey hiya thanks thank thx cheers bye goodbye meet welcome morning
    afternoon evening night sorry congrats congratulations""".split()  # noqa: SIM905
)
_NAME = re.compile(r"[A-Z][\w'’-]*")
_VOCATIVE = re.compile(r",\s*([\w'’-]+)\s*[!.]*\s*$")
# A line of the memory block, as the block writes it (Sutra or classic): a model that
# copies one into its reply is quoting memory, not saying something new.
_MEMORY_LINE = re.compile(
    r"\[\s*(?:LOG|EVENT|FORBIDDEN|PREFER|outdated)\b"
    r"|\[[\w'’ -]+\.[\w'’ -]+(?::|\s*\|\s*cond:)"
    r"|^\s*-?\s*\d{4}-\d{2}-\d{2},?\s+(?:user|assistant|note|document|tool)\b"
)
# A query about what the user asked ("What did I ask you about my back?", "my questions").
_ASKED = re.compile(
    r"\b(?:i|we)\s+(?:\w+\s+){0,2}(?:ask|asked|asking|enquired|inquired|wondered)\b"
    r"|\b(?:my|our)\s+(?:\w+\s+)?(?:questions?|queries)\b"
    r"|\b(?:questions?|queries)\s+(?:\w+\s+){0,2}(?:i|we)\b",
    re.IGNORECASE,
)
_ECHO_SHARE = 0.5  # of a reply's content words that must be in one line of the user's
_ECHO_WORDS = 2  # shared, unless the reply addresses the user (all, for fewer)
_FIRST_PERSON = frozenset(
    "i i'm i've i'd i'll me my mine myself we we're we've we'd our ours".split()  # noqa: SIM905
)
_SECOND_PERSON = frozenset(
    "you you're you've you'd you'll your yours yourself yourselves".split()  # noqa: SIM905
)
# An offer of help: a condition on what the listener may want, or an invitation to ask.
_OFFER = re.compile(
    r"\b(?:if|whenever|should|in case|anytime|any time)\s+you(?:'d| would)?\s+(?:ever\s+|still\s+)?"
    r"(?:need|want|like|have|require|wish|feel|get|are looking|run into|think of)\b"
    r"|\b(?:let me know|feel free|hesitate|reach out|just ask|ask me|here (?:to|for) you"
    r"|here to (?:help|assist|support)|(?:happy|glad|ready|willing) to (?:help|assist|answer)"
    r"|(?:can|could|may) i (?:help|assist))\b",
    re.IGNORECASE,
)
# A wish or a hope for the listener, or thanks and pleasure at having helped.
_WISH = re.compile(
    r"^\W*(?:(?:i|we)\s+(?:really\s+|truly\s+|sincerely\s+)?(?:hope|wish|trust)\b"
    r"|(?:have|enjoy)\s+(?:a|an|your|the)\b|(?:good|best of) luck\b|take care\b"
    r"|all the best\b|best wishes\b|stay (?:safe|well|healthy)\b|happy\s+\w+ing\b"
    r"|(?:i'm|i am|we're|we are)\s+(?:so\s+|really\s+)?(?:glad|happy|pleased)\s+"
    r"(?:to|that|i|you|it)\b"
    # sympathy and apology formulas: "I'm so sorry to hear that", "Sorry for the confusion"
    r"|(?:i'm|i am|we're|we are)?\s*(?:so\s+|really\s+|very\s+|truly\s+)?sorry\s+"
    r"(?:to hear|for (?:the|any|that|my)|about (?:the|any|that))\b"
    # "It's always a pleasure to help", "Greetings, it's my pleasure to ..."
    r"|(?:[\w ]+,\s*)?it(?:'s| is)\s+(?:always\s+)?(?:a|my|our)\s+pleasure\b)",
    re.IGNORECASE,
)
# The assistant on itself: "I'm a helpful assistant", "As a chatbot designed to assist users,
# I ...", "My name is Kiri, and I'll be here to help": what it is, no memory of anyone.
_SELF = re.compile(
    r"\b(?:(?:an?|your|helpful|friendly)\s+(?:\w+\s+)?(?:assistant|chatbot|ai)\b"
    r"|as\s+(?:an?\s+)?(?:ai|chatbot|language model|assistant)\b"
    r"|(?:designed|trained|programmed|here)\s+to\s+(?:help|assist|support)\b"
    r"|(?:continue|keep)\s+(?:assisting|helping)\b)",
    re.IGNORECASE,
)
# Stage directions and list openers: "(smiling)", "*waves*", "Here's a suggested timeline:".
_ASIDE = re.compile(r"^\s*(?:\([^()]*\)|\*[^*]*\*)\s*[.!]?\s*$|:\s*$")
# A reaction to what was said: "That's a great idea!", "What a lovely plan.", "Sounds fun!"
_REACTION = re.compile(
    r"^\W*(?:that(?:'s|’s| is| was| sounds| seems)|this (?:sounds|is)|what an?|how|sounds)\b",
    re.IGNORECASE,
)
_REACTION_MAX_WORDS = 8
_QUESTION_END = re.compile(r"\?[\"'’”)\]]*\s*$")
_NUMBER = re.compile(r"\d")


def _words(text: str) -> list[str]:
    return [w.replace("’", "'").strip("'").lower() for w in _WORD.findall(text)]


def words_of(text: str) -> set[str]:
    """``text``'s words that are neither stop words nor filler, lower-cased."""
    return {w for w in _words(text) if w and w not in STOPWORDS and w not in FILLER}


def content_words(text: str) -> set[str]:
    """The stems of ``words_of(text)``."""
    return {stem(w) for w in words_of(text)}


def is_chatter(text: str) -> bool:
    """Greetings, thanks, acknowledgements, filler: no word that says anything about anyone."""
    words = [w for w in _words(text) if w]
    rest = [w for w in words if w not in STOPWORDS and w not in FILLER]
    if not rest:
        return True
    if len(words) > _VOCATIVE_MAX_WORDS or not _ADDRESSING.intersection(words):
        return False
    # "Thanks, Asha!": filler and a name. A name alone ("Asha.") or with other words is not.
    # A small model writes the name in lower case: one word addressed after a comma.
    names = {m.lower().replace("’", "'") for m in _NAME.findall(text)}
    vocative = _VOCATIVE.search(text)
    if vocative and len(rest) == 1:
        names.add(vocative[1].lower().replace("’", "'"))
    return all(w in names for w in rest)


def is_courtesy(text: str) -> bool:
    """An offer of help, a wish for the listener or a short reaction, naming no one and no number.

    Meant for the assistant's sentences: said by a model, they are manners, not
    memories ("Feel free to reach out if you have more questions!").
    """
    if _NUMBER.search(text):
        return False
    if _SELF.search(text) and set(_words(text)) & _FIRST_PERSON:
        return True  # its own name is no one else's ("I'm Kiri, a helpful assistant")
    if _marked(text):
        return False
    if _OFFER.search(text) or _WISH.search(text) or _ASIDE.search(text):
        return True
    words = _words(text)
    return (
        len(words) <= _REACTION_MAX_WORDS
        and _REACTION.search(text) is not None
        and not set(words) & _FIRST_PERSON
    )


def is_question(text: str) -> bool:
    """Whether a sentence asks (it ends with a question mark)."""
    return _QUESTION_END.search(text) is not None


def asks_what_was_asked(query: str) -> bool:
    """Whether ``query`` asks about the user's own questions ("What did I ask about X?")."""
    return _ASKED.search(query) is not None


def echoes_memory(text: str) -> bool:
    """Whether a sentence holds a line of the memory block (``[LOG: ...]``, ``[user.x: y]``)."""
    return _MEMORY_LINE.search(text) is not None


def _marked(text: str) -> set[str]:
    """The words a reply cannot restate without: numbers and names inside the sentence."""
    words = _WORD.findall(text)
    return {
        stem(w.replace("’", "'").strip("'").lower())
        for i, w in enumerate(words)
        if _NUMBER.search(w) or (i > 0 and w[:1].isupper() and w.lower() not in FILLER)
    }


def restates(reply: str, said: str) -> bool:
    """Whether ``reply`` only says back what ``said`` (a line of the user's) says.

    Every number and name of the reply is in the line, and so is at least half of
    what it says ("So you live in Tartu now." after "I moved from Aarhus to Tartu.").
    A reply adding a name, a number or mostly words of its own is new ("The capital
    is Canberra.", "Tartu often gets showers this time of year.").
    """
    mine = content_words(reply)
    if not mine or speaks_of_self(reply):
        return False
    theirs = content_words(said)
    if not _marked(reply) <= theirs | {stem(w) for w in _words(said)}:
        return False
    shared = len(mine & theirs)
    # Said back to the user ("So you live in Moss now."), one word of theirs is enough.
    least = 1 if set(_words(reply)) & _SECOND_PERSON else min(_ECHO_WORDS, len(mine))
    return shared >= least and shared >= _ECHO_SHARE * len(mine)


def speaks_of_self(text: str) -> bool:
    """Whether a sentence is its speaker's own news: in the first person, never addressing
    the listener ("I set up a 5K run in our street."; not "I see you moved to Tartu.")."""
    words = set(_words(text))
    return bool(words & _FIRST_PERSON) and not words & _SECOND_PERSON


@dataclass(frozen=True)
class Said:
    """A found sentence as the screen sees it."""

    text: str
    role: str
    episode_id: int


def needs_statements(s: Said) -> bool:
    """Whether only the user's earlier lines can tell if this sentence is an echo."""
    return s.role == "assistant" and not (
        is_chatter(s.text) or is_question(s.text) or echoes_memory(s.text) or is_courtesy(s.text)
    )


def screen(
    found: Sequence[Said],
    query: str,
    *,
    chat_roles: Iterable[str],
    statements: Sequence[Said] = (),
) -> list[bool]:
    """For each found sentence, whether it may be shown for ``query``.

    ``chat_roles`` are the roles whose chatter and questions are screened (a
    note's or a document's text is whatever its author wrote down). An
    assistant sentence is an echo when it holds a memory line or restates a
    statement of the user's said before it, among ``found`` and ``statements``
    (the lines sharing its words, looked up for it).
    """
    roles = frozenset(chat_roles)
    asked = asks_what_was_asked(query)
    said = [
        s
        for s in [*found, *statements]
        if s.role != "assistant" and not is_question(s.text) and not is_chatter(s.text)
    ]
    keep = []
    for s in found:
        if s.role == "assistant":
            shown = needs_statements(s) and not any(
                u.episode_id < s.episode_id and restates(s.text, u.text) for u in said
            )
        elif s.role in roles:
            shown = not is_chatter(s.text) and (asked or not is_question(s.text))
        else:
            shown = True
        keep.append(shown)
    return keep
