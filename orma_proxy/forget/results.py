"""What a forgetting action touched, and what it did: the same shape for a dry run and a real one.

A dry run answers with exactly the ids the real action would touch, so a user
(or an agent) can look before deleting anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Operation = Literal["supersede", "release", "unrelease", "purge"]
KINDS = ("episodes", "sentences", "states", "events")


def _ids(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted(set(values)))


@dataclass(frozen=True)
class Affected:
    """Ids touched by one action, by kind, each sorted and unique."""

    episodes: tuple[int, ...] = ()
    sentences: tuple[int, ...] = ()
    states: tuple[int, ...] = ()
    events: tuple[int, ...] = ()

    @classmethod
    def of(
        cls,
        *,
        episodes: Iterable[int] = (),
        sentences: Iterable[int] = (),
        states: Iterable[int] = (),
        events: Iterable[int] = (),
    ) -> Affected:
        return cls(_ids(episodes), _ids(sentences), _ids(states), _ids(events))

    @property
    def count(self) -> int:
        """How many items in all."""
        return sum(len(getattr(self, kind)) for kind in KINDS)

    def as_dict(self) -> dict[str, list[int]]:
        return {kind: list(getattr(self, kind)) for kind in KINDS}


def counted(operation: Operation, affected: Affected) -> int:
    """A result's ``count``: a purge counts the episodes it erases (one message is one,
    whatever passages it held); the others count every item they touch."""
    return len(affected.episodes) if operation == "purge" else affected.count


@dataclass(frozen=True)
class ForgetResult:
    """The outcome of ``supersede``, ``release``, ``unrelease`` or ``purge``.

    ``preview`` holds the affected passages' text for the caller to read, and
    ``facts`` the states it closes or hides ("Meera · employer: Infosys"); they
    are never written anywhere (a real purge returns none: that text is gone).
    """

    operation: Operation
    space: str
    dry_run: bool
    affected: Affected
    preview: tuple[str, ...] = ()
    audit_id: int | None = None
    release_id: int | None = None
    episode_id: int | None = None  # supersede: the episode holding the correction
    compacted: bool | None = None  # purge: VACUUM ran and the write-ahead log was emptied
    facts: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return counted(self.operation, self.affected)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready, for ``--json``, MCP and the proxy's ``/_orma/forget``."""
        return {
            "operation": self.operation,
            "space": self.space,
            "dry_run": self.dry_run,
            "count": self.count,
            "affected": self.affected.as_dict(),
            "preview": list(self.preview),
            "facts": list(self.facts),
            "audit_id": self.audit_id,
            "release_id": self.release_id,
            "episode_id": self.episode_id,
            "compacted": self.compacted,
        }


@dataclass(frozen=True)
class AuditEntry:
    """One audited action: when, where, which operation, which ids and how many."""

    id: int
    at: datetime
    space: str
    operation: Operation
    count: int
    ids: dict[str, list[int]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "at": self.at.astimezone(UTC).isoformat(),
            "space": self.space,
            "operation": self.operation,
            "count": self.count,
            "ids": self.ids,
        }
