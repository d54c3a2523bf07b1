"""Facts and rules drawn from a line the moment it is recorded, before any sleep.

"Never chain commands with semicolons" said in chat must bind the very next
request, and "I moved to Bangalore" must outdate "I live in Pune" before sleep
has run (120 s idle or 20 episodes by default). So as a user's turn or note is
committed, sleep's rule-based extractor reads its lines, the same verification
checks what it proposes and the same apply step writes it: a rule with its
alternative split off, and a new value that closes the slot's old one exactly as
sleep would. The watermark does not move: sleep reads the lines again later, and
what it draws from a line already drawn from is that very state (confirmed, not
rehearsed again) or, for another value of a single-valued slot, that state read
better (``apply._fact_drawn``, ``apply._rule_drawn``).

Only the user's own words are read here: user turns and notes, never what the
assistant, a tool, a document or a named speaker ("Asha: I moved to Pune") said.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from orma_proxy.config import OrmaConfig
from orma_proxy.errors import OrmaError
from orma_proxy.facts import list_facts
from orma_proxy.offload import in_thread
from orma_proxy.sleep.apply import apply_drawn
from orma_proxy.sleep.batch import OWN_WORDS, Batch, Line
from orma_proxy.sleep.consolidate import Sleeper
from orma_proxy.sleep.extract import RawState
from orma_proxy.sleep.heuristic import extract_by_rules
from orma_proxy.sleep.report import BatchOutcome
from orma_proxy.sleep.verify import Verified
from orma_proxy.store import Connection, DatabaseError, said_before, transcript

__all__ = ["draw_on_record"]

log = logging.getLogger(__name__)


def _known(conn: Connection, space: str) -> list[RawState]:
    """The space's active facts, as the rules read what a new line adds to them."""
    return [
        RawState(
            line=0, about=s.entity, attribute=s.attribute, value=s.value, condition=s.condition
        )
        for s in list_facts(conn, space)
    ]


def _batch(conn: Connection, space: str, episode_ids: Sequence[int], config: OrmaConfig) -> Batch:
    """The user's lines of these episodes, numbered as a batch, with what was said before
    (at most ``facts_on_record_max_lines`` of them: one draw's work is bounded)."""
    rows = [r for r in transcript(conn, episode_ids) if r.role in OWN_WORDS and not r.speaker]
    most = config.facts_on_record_max_lines
    if len(rows) > most:  # a pasted document: its ends now, all of it at sleep
        rows = rows[: most // 2] + rows[len(rows) - (most - most // 2) :]
    lines = tuple(
        Line(n, r.sentence_id, r.episode_id, r.role, r.text, r.said_at, r.speaker)
        for n, r in enumerate(rows, start=1)
    )
    context: tuple[str, ...] = ()
    if lines and config.sleep_context_lines:
        context = tuple(said_before(conn, space, lines[0].sentence_id, config.sleep_context_lines))
    return Batch(space, 0, tuple(episode_ids), lines, context)


async def draw_on_record(
    sleeper: Sleeper, space: str, episode_ids: Sequence[int], config: OrmaConfig
) -> BatchOutcome | None:
    """Draw the rule-based states of these just-recorded episodes now; None if none came.

    A failure is logged, never raised: the episodes are stored, and sleep will
    read them all the same.
    """
    if not episode_ids or not (config.enable_facts_on_record and config.enable_semantic):
        return None
    try:
        work = await sleeper.reader.execute_fn(
            lambda conn: _batch(conn, space, episode_ids, config)
        )
        known = await sleeper.reader.execute_fn(lambda conn: _known(conn, space))
        extraction = await in_thread(lambda: extract_by_rules(work, known))
        verified = Verified()
        if extraction.states or extraction.user_name:
            verified = await sleeper.verify(work, extraction)
        verified = await sleeper.with_relations(work, verified)  # "my sister Asha"
        if not verified.states:
            return None
        return await sleeper.writer.execute_write_fn(
            lambda conn: apply_drawn(conn, space, verified, config)
        )
    except (OrmaError, DatabaseError) as exc:
        log.warning("drawing facts from new lines of space %r failed: %s", space, exc)
        return None
