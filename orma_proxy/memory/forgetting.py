"""Forgetting on request: correct a fact, stop recalling a topic, erase for good, and the audit.

``AsyncMemory``'s side of ``orma_proxy.forget``: each method checks its
arguments, settles what must be settled first (every line's vector and the
description's own, so a person's lines can be ranked by meaning and the closest
lines named when nothing matches; recall's log before a purge), runs the
operation and wakes the indexer when it stored a line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import TYPE_CHECKING

from orma_proxy.errors import InputError
from orma_proxy.inputs import DEFAULT_SPACE, check_space, check_text
from orma_proxy.memory.lifecycle import Lifecycle

if TYPE_CHECKING:  # orma_proxy.forget loads with the first of these calls, not with every memory
    from orma_proxy.forget import AuditEntry, Described, ForgetResult


class Forgetting(Lifecycle):
    """``AsyncMemory``'s forgetting on request, kept apart from what it remembers and recalls."""

    async def supersede(
        self, old: str | int, new: str, space: str = DEFAULT_SPACE, *, dry_run: bool = False
    ) -> ForgetResult:
        """Correct a fact: what says ``old`` (a text, or a state id) gives way to ``new``.

        ``new`` is stored as a note. Recall never shows the old lines again nor
        returns the old value as current; ``facts(include_history=True)`` keeps it.
        """
        from orma_proxy.forget.supersede import supersede

        db = self._opened()
        if not isinstance(old, int) or isinstance(old, bool):
            old = check_text(old, "old").strip()
        new, space = check_text(new, "new"), check_space(space)
        meaning = None
        if not isinstance(old, int):
            described = await self._described(old, space)
            said = await self._described(new, space)
            meaning = dataclasses.replace(described, correction=said)
        result = await supersede(db, old, new, space, self.config, dry_run=dry_run, meaning=meaning)
        self._index_new()
        return result

    async def release(
        self,
        query: str,
        space: str = DEFAULT_SPACE,
        *,
        threshold: float | None = None,
        max_items: int | None = None,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Stop recalling what ``query`` describes (``forget/resolve.py``).

        A bare topic also takes what is near it in meaning. Nothing is deleted;
        ``unrelease(result.release_id)`` brings it all back.
        """
        from orma_proxy.forget.release import release

        db = self._opened()
        query, space = check_text(query, "query"), check_space(space)
        threshold = self.config.release_threshold if threshold is None else threshold
        max_items = self.config.release_max_items if max_items is None else max_items
        if not -1.0 <= threshold <= 1.0 or max_items < 1:
            raise InputError("threshold must lie in [-1, 1] and max_items be at least 1")
        meaning = await self._described(query, space)
        return await release(
            db, query, meaning, space, threshold=threshold, max_items=max_items, dry_run=dry_run
        )

    async def unrelease(self, release_id: int, space: str = DEFAULT_SPACE) -> ForgetResult:
        """Undo release ``release_id``: its passages, states and events are recalled again."""
        if isinstance(release_id, bool) or not isinstance(release_id, int):
            raise InputError(f"release_id must be an integer, not {release_id!r}")
        from orma_proxy.forget.release import unrelease

        return await unrelease(self._opened(), release_id, check_space(space))

    async def purge(
        self,
        query_or_ids: str | Iterable[int],
        space: str = DEFAULT_SPACE,
        *,
        dry_run: bool = False,
    ) -> ForgetResult:
        """Erase the episodes containing a text (or with these ids), down to the file's bytes.

        Their sentences, index entries, vectors and every state and event drawn
        from them go too. Irreversible; audited by ids and counts, never the text.
        """
        from orma_proxy.forget.purge import purge

        db = self._opened()
        target: str | list[int]
        meaning = None
        if isinstance(query_or_ids, str):
            target = check_text(query_or_ids, "query")
            meaning = await self._described(target, check_space(space))
        else:
            target = list(query_or_ids)
            if not target or any(isinstance(i, bool) or not isinstance(i, int) for i in target):
                raise InputError("purge takes a text or a non-empty list of episode ids")
        assert self._access is not None
        await self._access.flush()  # no queued access row may name a purged item afterwards
        return await purge(
            db, target, check_space(space), self.config, dry_run=dry_run, meaning=meaning
        )

    async def _described(self, text: str, space: str) -> Described:
        """The description's vector and its names' (as ``space`` spells them), once every
        stored line has its own."""
        from orma_proxy.forget import Described, names_said

        await self.flush()
        vector = await self.embed_query(text[: self.config.max_query_chars])
        said = await self._opened().reader.execute_fn(lambda conn: names_said(conn, space, text))
        names = " ".join(said)
        return Described(vector, await self.embed_query(names) if names else None)

    async def audit(self, space: str | None = None, limit: int | None = None) -> list[AuditEntry]:
        """Audited supersedes, releases, unreleases and purges, newest first."""
        from orma_proxy.forget.audit import read_audit

        space = None if space is None else check_space(space)
        return await read_audit(self._opened().reader, space, limit)
