"""The user's core facts before sleep has read them: their newest lines, by sleep's rules.

The core (``recall_core_facts``: name, home, job) is in every block. Once sleep has
run it is the user's core states (``relevance.is_core``); until then, nothing has
been consolidated, and "I'm Sahil.", "I moved to Tartu." are lines like any other,
found only when a query happens to match them. So recall previews sleep: of the
user's newest lines it has not read yet, those its rules read as a core fact
(``sleep.rule_attributes``: "I live in ...", "I work as ... at ...", "My name is
..."), the newest for each kind, join the candidates as passages. A line sleep
has read is its states' business: then the core states stand for it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import cache

from orma_proxy.facts import USER, State
from orma_proxy.recall.search import Passage
from orma_proxy.sleep import rule_attributes
from orma_proxy.store import Connection, latest_unconsolidated
from orma_proxy.text.attributes import groups_of, state_attributes

__all__ = ["CORE_ROLES", "PENDING_LINES", "core_kinds", "is_core", "pending_core"]

CORE_ROLES = ("user", "note")  # whose lines state the user's facts (not the assistant's)
PENDING_LINES = 100  # newest unconsolidated lines read for them, at most (sleep reads
# a space after 20 episodes: its pending lines are fewer unless it never sleeps)
# A cheap first look: only a line with one of these can hold a core fact by the rules
# (the rules themselves are a dozen patterns, ten times slower over every line).
_MAY_STATE = re.compile(
    r"(?i:\b(?:name|call|home|live|living|based|staying|moved|relocated|shifted|work)\b)"
    r"|\b(?:I'm|I am|i'm|i am)\s+(?:now\s+)?(?:an?\s+[a-z][\w -]*\s(?:at|for)\s+)?[A-Z]"
)


@cache
def core_kinds(names: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """The kinds the configured core names stand for ("job" -> work), and their attributes.

    The attributes are the configured names themselves and those sleep writes for
    each kind (``employer``, ``job_title``; ``home_city``, ``hometown``, ``address``).
    """
    kinds = {kind for name in names for kind in groups_of(name) or {name}}
    attributes = set(names) | {a for kind in kinds for a in state_attributes(kind)}
    return frozenset(kinds), frozenset(attributes)


def is_core(state: State, names: tuple[str, ...]) -> bool:
    """Whether ``state`` is one of the user's active core facts.

    Its attribute is a core one, or every word of it names only core kinds
    ("city", "occupation"; not "pet name", nor "salary", which is income too).
    """
    if state.entity != USER or not state.active:
        return False
    kinds, attributes = core_kinds(names)
    if state.attribute in attributes:
        return True
    words = state.attribute.replace("_", " ").split()
    return bool(words) and all(groups_of(w) and groups_of(w) <= kinds for w in words)


def _kinds(attribute: str, names: tuple[str, ...]) -> frozenset[str]:
    """The core kinds an attribute the rules found stands for (none: not a core fact)."""
    kinds, attributes = core_kinds(names)
    if attribute not in attributes:
        return frozenset()
    found = frozenset(k for w in attribute.split("_") for k in groups_of(w)) & kinds
    return found or frozenset({attribute})


def pending_core(conn: Connection, space: str, names: tuple[str, ...]) -> list[Passage]:
    """For each core kind, the newest line sleep has not read that states it (if any)."""
    if not names:
        return []
    found: dict[str, Passage] = {}
    for row in latest_unconsolidated(conn, space, CORE_ROLES, PENDING_LINES):
        if row.speaker or not _MAY_STATE.search(row.text):
            continue  # someone else's line ("Asha: I live in Goa"), or no core fact in it
        for attribute in rule_attributes(row.text):
            for kind in _kinds(attribute, names):
                found.setdefault(
                    kind,
                    Passage(
                        text=row.text,
                        episode_id=row.episode_id,
                        sentence_id=row.sentence_id,
                        said_at=datetime.fromtimestamp(row.said_at, UTC),
                        score=0.0,
                        role=row.role,
                        speaker=row.speaker,
                    ),
                )
    return list({p.sentence_id: p for p in found.values()}.values())
