"""Facts: the states, events and entities sleep consolidates, below recall and sleep.

What a state and an event are, the SQL that reads them (by column name), what
makes a state a rule, and the writes of the state graph (entities, links,
closing a state) that sleep, forgetting, ``orma rebuild`` and the viz page
share, with the reads the viz page draws from (links, sizes, times) and what
forgetting finds and marks among them. Recall and sleep build on this; it
imports neither.
"""

from orma_proxy.facts.drawn import (
    Drawn,
    drawn_from_episodes,
    drawn_from_lines,
    mark_drawn_released,
    released_drawn,
)
from orma_proxy.facts.entities import (
    USER,
    Entity,
    EntityLink,
    entity_by_id,
    entity_id,
    entity_links,
    entity_names,
    link_event,
    link_state,
    linked_entities,
    links_of_entity,
)
from orma_proxy.facts.events import (
    EVENTS,
    EVENTS_WITH_TIMES,
    Event,
    NewEvent,
    event_from,
    insert_event,
    list_events,
)
from orma_proxy.facts.graph import (
    EventToLink,
    StateToLink,
    clear_links,
    count_links,
    events_to_link,
    states_to_link,
)
from orma_proxy.facts.marks import CORRECTED, FORBID_MARK, FORGOTTEN, SUPERSEDE_MARK
from orma_proxy.facts.open_states import (
    OpenState,
    active_states_citing,
    active_states_of,
    active_states_valued,
    unreleased_state,
)
from orma_proxy.facts.redo import HandRule, HandState, clear_facts, hand_rules, hand_states
from orma_proxy.facts.rules import FORBIDDEN_PREFIX, RULE_SQL, is_rule
from orma_proxy.facts.slots import (
    Slot,
    SlotState,
    active_in_slot,
    forgotten_values,
    is_active,
    rehearse,
    rule_from_line,
)
from orma_proxy.facts.spaces import SpaceSize, graph_version, space_sizes
from orma_proxy.facts.states import (
    ANY_STATES,
    STATES,
    STATES_WITH_TIMES,
    NewState,
    State,
    close_state,
    insert_state,
    list_facts,
    predecessors,
    state_by_id,
    state_from,
)
from orma_proxy.facts.times import ItemTimes, item_times
from orma_proxy.facts.vocabulary import current_value, known_attributes, known_entities
from orma_proxy.store.select import Row, Select

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
    "Drawn",
    "Entity",
    "EntityLink",
    "Event",
    "EventToLink",
    "HandRule",
    "HandState",
    "ItemTimes",
    "NewEvent",
    "NewState",
    "OpenState",
    "Row",
    "Select",
    "Slot",
    "SlotState",
    "SpaceSize",
    "State",
    "StateToLink",
    "active_in_slot",
    "active_states_citing",
    "active_states_of",
    "active_states_valued",
    "clear_facts",
    "clear_links",
    "close_state",
    "count_links",
    "current_value",
    "drawn_from_episodes",
    "drawn_from_lines",
    "entity_by_id",
    "entity_id",
    "entity_links",
    "entity_names",
    "event_from",
    "events_to_link",
    "forgotten_values",
    "graph_version",
    "hand_rules",
    "hand_states",
    "insert_event",
    "insert_state",
    "is_active",
    "is_rule",
    "item_times",
    "known_attributes",
    "known_entities",
    "link_event",
    "link_state",
    "linked_entities",
    "links_of_entity",
    "list_events",
    "list_facts",
    "mark_drawn_released",
    "predecessors",
    "rehearse",
    "released_drawn",
    "rule_from_line",
    "space_sizes",
    "state_by_id",
    "state_from",
    "states_to_link",
    "unreleased_state",
]
