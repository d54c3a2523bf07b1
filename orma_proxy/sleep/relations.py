"""Who the user's people are: "my sister Asha" is ``user · sister: Asha``, whoever extracted.

A small model records what Asha does and forgets that she is the user's
sister; the rules look for the user's own facts only. The relation is said
outright in the line, so every batch proposes it, whatever else proposed the
batch's facts, and verification checks it as it checks the rest (the holder
of "my" on a line a named speaker said is that speaker).
"""

from __future__ import annotations

from orma_proxy.facts import USER
from orma_proxy.sleep.batch import Batch
from orma_proxy.sleep.extract import Extraction, RawState
from orma_proxy.sleep.persons import relatives

__all__ = ["relations_said"]


def relations_said(batch: Batch) -> Extraction:
    """A state for each named relation of the speaker's on the batch's citable lines."""
    found = Extraction()
    for line in batch.lines:
        if not line.citable:
            continue
        for relation, name in relatives(line.text):
            found.states.append(
                RawState(
                    line=line.number,
                    about=line.speaker or USER,
                    attribute=relation,
                    value=name,
                )
            )
    return found
