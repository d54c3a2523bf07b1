"""``supersede(old, new)``: the user corrects a fact.

``old`` is a description ("Meera's employer", "my previous address", "Pune")
or a state id. The correction is stored as a normal note episode; every line
it describes is marked ``superseded_by`` it (recall never shows those lines
again; a line holding another kind of fact too is cut at its clauses first, so
only the described clause goes), and the active states holding it are closed
as ``corrected``. A state named by id, by its value, or as the described
person's described kind of fact is replaced at once by a state of the same slot
holding the phrase of the new text that answers it (``forget/answer.py``), so
the next recall already answers with it; the correction's episode records which
person, kind and words it corrects, so the next correction of that slot finds it
(drift, a chain of corrections), before sleep has made a state of it. When no
state holds the old text, the user's lines saying it give the correction its
subject: read with the old text corrected, "I moved to Bangalore" makes
``home_city: Mysore`` (``sleep.correct_lines``), not a bare "Mysore".
``orma facts --history`` keeps the old ones.
"""

from __future__ import annotations

import time

from orma_proxy.config import OrmaConfig
from orma_proxy.facts import (
    CORRECTED,
    SUPERSEDE_MARK,
    NewState,
    OpenState,
    Slot,
    close_state,
    insert_state,
    link_state,
    state_by_id,
)
from orma_proxy.forget.answer import answer
from orma_proxy.forget.audit import write_audit
from orma_proxy.forget.closest import nothing_matched
from orma_proxy.forget.match import Correction, correction, cut_lines
from orma_proxy.forget.meaning import Described
from orma_proxy.forget.results import ForgetResult
from orma_proxy.store import (
    Connection,
    Database,
    NewEpisode,
    first_sentence,
    insert_episode,
    mark_superseded,
)
from orma_proxy.text.segment import split_sentences


async def supersede(
    db: Database,
    old: str | int,
    new: str,
    space: str,
    config: OrmaConfig,
    *,
    dry_run: bool,
    meaning: Described | None = None,
) -> ForgetResult:
    """Correct ``old`` (a text, or a state id) to ``new`` in ``space``; see the module docstring.

    ``meaning``: the embedding of ``old``, to find a person's line by meaning.
    Nothing found raises ``NothingMatchedError`` (a dry run too).
    """

    def find(conn: Connection) -> Correction:
        found = correction(conn, space, old, new, meaning)
        if not found.sentences and not found.states:
            raise nothing_matched(conn, space, str(old), meaning, "changed")
        return found

    if dry_run:
        seen = await db.reader.execute_fn(find)
        return ForgetResult("supersede", space, True, seen.affected, seen.preview, facts=seen.facts)
    # Sleep's rule tables load with the first correction, not with every memory.
    from orma_proxy.sleep import correct_lines

    now = time.time()
    segments = split_sentences(new, config.max_sentence_chars)

    def job(raw: Connection) -> ForgetResult:
        found = find(raw)
        metadata: dict[str, object] = {"orma": SUPERSEDE_MARK}
        if found.corrects is not None:
            metadata["corrects"] = found.corrects.as_json()
        episode = NewEpisode(
            space=space, role="note", text=new, said_at=now, created_at=now, metadata=metadata
        )
        episode_id = insert_episode(raw, episode, segments)
        mark_superseded(raw, cut_lines(raw, found.sentences, found.cuts), episode_id)
        first_line = first_sentence(raw, episode_id)
        value = " ".join(new.split())
        subjects: dict[Slot, int] = {}
        if isinstance(old, str) and not any(t.replace for t in found.states):
            # No state holds the old text: the lines saying it give the correction its slot.
            subjects = correct_lines(raw, space, found.sentences, old, value, first_line, config)
        for target in found.states:
            state = target.state
            slot = Slot(space, state.entity_id, state.attribute, state.condition)
            successor = subjects.get(slot)
            if target.replace:
                held = state_by_id(raw, space, state.id)
                phrase = answer(value, held.entity if held else "", state.attribute)
                successor = _replacement(raw, space, state, phrase, first_line, episode_id, now)
            close_state(raw, state.id, successor, now, CORRECTED)
        audit_id = write_audit(
            raw, space, "supersede", found.affected, now, extra={"corrected_by": [episode_id]}
        )
        return ForgetResult(
            "supersede",
            space,
            False,
            found.affected,
            found.preview,
            audit_id=audit_id,
            episode_id=episode_id,
            facts=found.facts,
        )

    return await db.writer.execute_write_fn(job)


def _replacement(
    conn: Connection,
    space: str,
    state: OpenState,
    value: str,
    sentence_id: int,
    episode_id: int,
    now: float,
) -> int:
    """The same slot (holder, attribute, condition) holding the new value, citing the correction."""
    new = NewState(
        space=space,
        entity_id=state.entity_id,
        attribute=state.attribute,
        value=value,
        condition=state.condition,
        prohibited=state.prohibited,
        active=True,
        since=None,
        stated_at=now,
        valid_from=now,
        sentence_id=sentence_id,
        episode_id=episode_id,
        created_at=now,
    )
    new_id = insert_state(conn, new)
    link_state(conn, space, state.entity_id, new_id, value, now)
    return new_id
