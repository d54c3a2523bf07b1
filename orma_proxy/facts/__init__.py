"""Facts: the states, events and entities sleep consolidates, below recall and sleep.

What a state and an event are, the SQL that reads them (by column name), what
makes a state a rule, and the writes of the state graph (entities, links,
closing a state) that sleep, forgetting, ``orma rebuild`` and the viz page
share. Recall and sleep build on this; it imports neither.
"""

from orma_proxy.facts.counts import FactCounts, fact_counts
from orma_proxy.facts.entities import USER, entity_id, link_event, link_state
from orma_proxy.facts.events import EVENTS, EVENTS_WITH_TIMES, Event, event_from, list_events
from orma_proxy.facts.links import Link, entities_named, links_from, links_of
from orma_proxy.facts.marks import CORRECTED, FORBID_MARK, FORGOTTEN, SUPERSEDE_MARK
from orma_proxy.facts.rules import FORBIDDEN_PREFIX, RULE_SQL, is_rule
from orma_proxy.facts.select import Row, Select
from orma_proxy.facts.sources import (
    Citing,
    HeldBy,
    Naming,
    Rules,
    StateMatch,
    StateSource,
    Successor,
    TimedEvent,
    TimedState,
    active_states,
    events_by_id,
    events_matching,
    gather_events,
    gather_states,
    states_matching,
    successors,
)
from orma_proxy.facts.states import (
    ANY_STATES,
    STATES,
    STATES_WITH_TIMES,
    NewState,
    State,
    close_state,
    insert_state,
    list_facts,
    state_by_id,
    state_from,
)

__all__ = [
    "ANY_STATES",
    "CORRECTED",
    "EVENTS",
    "EVENTS_WITH_TIMES",
    "FORBIDDEN_PREFIX",
    "FORBID_MARK",
    "FORGOTTEN",
    "RULE_SQL",
    "STATES",
    "STATES_WITH_TIMES",
    "SUPERSEDE_MARK",
    "USER",
    "Citing",
    "Event",
    "FactCounts",
    "HeldBy",
    "Link",
    "Naming",
    "NewState",
    "Row",
    "Rules",
    "Select",
    "State",
    "StateMatch",
    "StateSource",
    "Successor",
    "TimedEvent",
    "TimedState",
    "active_states",
    "close_state",
    "entities_named",
    "entity_id",
    "event_from",
    "events_by_id",
    "events_matching",
    "fact_counts",
    "gather_events",
    "gather_states",
    "insert_state",
    "is_rule",
    "link_event",
    "link_state",
    "links_from",
    "links_of",
    "list_events",
    "list_facts",
    "state_by_id",
    "state_from",
    "states_matching",
    "successors",
]
