"""The ``orma-export`` format, version 1: one JSON object per line.

The first line is the header::

    {"format":"orma-export","version":1,"space":null,"counts":{"episode":2,...}}

(``space`` is the one space exported, or null for all; ``counts`` lets an import
notice a truncated file). Then one line per record, ``{"type": ..., <columns>}``,
grouped by type in the order of ``KINDS`` and sorted by key within a type, keys
in the order listed here, so the same memory always exports to the same bytes.
JSON text stays UTF-8 (no ``\\u`` escapes) and floats are written exactly.

Sentences carry offsets, not text: a sentence is ``episode.text[start:end]``.
Vectors, the FTS index, noise floors, sleep's batch log and recall's access log
are not exported: they are derived, or machine-local, and rebuilt on import.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

FORMAT = "orma-export"
VERSION = 1


@dataclass(frozen=True)
class Kind:
    """One record type: the table behind it, its columns, the columns it is sorted by."""

    name: str
    table: str
    columns: tuple[str, ...]
    key: tuple[str, ...] = ("id",)
    json_columns: frozenset[str] = frozenset()


def _columns(names: str) -> tuple[str, ...]:
    return tuple(names.split())


KINDS = (
    Kind(
        "episode",
        "episodes",
        _columns("id space role text source said_at created_at metadata"),
        json_columns=frozenset({"metadata"}),
    ),
    Kind(  # ``end``: the store reads it as start + length (store/tables.py)
        "sentence",
        "sentences",
        _columns("id episode_id position start end superseded_by released_by"),
    ),
    Kind("release", "releases", _columns("id space query created_at restored_at")),
    Kind("entity", "entities", _columns("id space name kind created_at")),
    Kind(
        "state",
        "states",
        _columns(
            "id space entity_id attribute value condition prohibited active superseded_by "
            "since stated_at valid_from valid_to end_reason rehearsals rehearsed_at "
            "sentence_id episode_id created_at released_by"
        ),
    ),
    Kind(
        "event",
        "events",
        _columns(
            "id space what when_text date precision who sentence_id episode_id created_at "
            "released_by"
        ),
        json_columns=frozenset({"who"}),
    ),
    Kind(
        "link",
        "entity_links",
        _columns("entity_id kind target_id space"),
        key=_columns("entity_id kind target_id"),
    ),
    Kind("progress", "sleep_progress", _columns("space last_episode_id updated_at"), ("space",)),
    Kind(
        "audit",
        "audit",
        _columns("id at space operation ids count"),
        json_columns=frozenset({"ids"}),
    ),
)
BY_NAME = {kind.name: kind for kind in KINDS}


def dump(record: dict[str, Any]) -> str:
    """One line of the format (without its newline)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def header(space: str | None, counts: dict[str, int]) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "space": space, "counts": counts}


def to_record(kind: Kind, row: Mapping[str, Any]) -> dict[str, Any]:
    """A table row as a record: JSON columns parsed, so they nest as JSON."""
    record: dict[str, Any] = {"type": kind.name}
    for column in kind.columns:
        value = row[column]
        record[column] = json.loads(value) if column in kind.json_columns else value
    return record
