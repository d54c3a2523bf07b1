"""Is this state a rule? Decided here only, in Python and in SQL.

A rule (``[FORBIDDEN: ...]``) is a state marked ``prohibited`` or named
``forbidden_*``; every recall carries the active ones, whatever the query.
"""

from __future__ import annotations

from orma_proxy.facts.states import State

__all__ = ["FORBIDDEN_PREFIX", "RULE_SQL", "is_rule"]

FORBIDDEN_PREFIX = "forbidden_"

# The same test as ``is_rule``, over the states table aliased ``s``.
RULE_SQL = "(s.prohibited = 1 OR s.attribute LIKE 'forbidden\\_%' ESCAPE '\\')"


def is_rule(state: State) -> bool:
    """A rule every recall carries: prohibited, or named ``forbidden_*``."""
    return state.prohibited or state.attribute.startswith(FORBIDDEN_PREFIX)
