"""How a state or an episode was set by hand, as recorded in the store.

``metadata["orma"]`` of an episode says what recorded it; ``states.end_reason``
why a state was closed (sleep closes states as ``superseded`` or ``ended``).
"""

from __future__ import annotations

__all__ = ["CORRECTED", "FORBID_MARK", "FORGOTTEN", "SUPERSEDE_MARK"]

# ``metadata["orma"]`` of the episode recording a rule registered by hand (``orma_forbid``).
FORBID_MARK = "forbid"
# ``metadata["orma"]`` of the episode recording a user's correction (``supersede``).
SUPERSEDE_MARK = "supersede"
# ``states.end_reason`` of a state the user closed (``orma forget``).
FORGOTTEN = "forgotten"
# ``states.end_reason`` of a state the user corrected (``supersede``).
CORRECTED = "corrected"
