"""Is this state a rule, or a rule's alternative? Decided here only, in Python and in SQL.

A rule (``[FORBIDDEN: ...]``) is a state marked ``prohibited`` or named
``forbidden_*``; every recall carries the active ones, whatever the query.
What to do instead ("..., use newlines instead") is a state of its own,
``instead_of_<name>`` beside the rule's ``forbidden_<name>``: shown with its
rule as ``[PREFER: ...]``, never forbidden with it, and carried with it.
"""

from __future__ import annotations

from orma_proxy.facts.states import State

__all__ = [
    "CARRIED_SQL",
    "FORBIDDEN_PREFIX",
    "INSTEAD_PREFIX",
    "RULE_SQL",
    "alternative_attribute",
    "is_alternative",
    "is_rule",
]

FORBIDDEN_PREFIX = "forbidden_"
INSTEAD_PREFIX = "instead_of_"

# The same test as ``is_rule``, over the states table aliased ``s``.
RULE_SQL = "(s.prohibited = 1 OR s.attribute LIKE 'forbidden\\_%' ESCAPE '\\')"
# A rule or a rule's alternative: what every recall carries, whatever the query.
CARRIED_SQL = f"({RULE_SQL} OR s.attribute LIKE 'instead\\_of\\_%' ESCAPE '\\')"


def is_rule(state: State) -> bool:
    """A rule every recall carries: prohibited, or named ``forbidden_*``."""
    return state.prohibited or state.attribute.startswith(FORBIDDEN_PREFIX)


def is_alternative(state: State) -> bool:
    """What a rule says to do instead (``instead_of_*``), carried with its rule."""
    return not is_rule(state) and state.attribute.startswith(INSTEAD_PREFIX)


def alternative_attribute(rule_attribute: str) -> str:
    """``forbidden_semicolons_powershell`` -> ``instead_of_semicolons_powershell``."""
    return INSTEAD_PREFIX + rule_attribute.removeprefix(FORBIDDEN_PREFIX)
