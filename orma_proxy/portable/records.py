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
from dataclasses import dataclass, field
from typing import Any

FORMAT = "orma-export"
VERSION = 1


@dataclass(frozen=True)
class Kind:
    """One record type: the table behind it, its columns, its order."""

    name: str
    table: str
    columns: tuple[str, ...]
    order: str = "id"
    json_columns: frozenset[str] = frozenset()
    # Columns computed on export instead of read as they are (SQL expressions).
    computed: dict[str, str] = field(default_factory=dict)

    def select(self, space: str | None) -> tuple[str, tuple[str, ...]]:
        """The export query of this kind and its parameters."""
        exprs = ", ".join(self.computed.get(c, f'"{c}"') for c in self.columns)
        where, args = ("WHERE space = ?", (space,)) if space is not None else ("", ())
        return f"SELECT {exprs} FROM {self.table} {where} ORDER BY {self.order}", args


def _columns(names: str) -> tuple[str, ...]:
    return tuple(names.split())


KINDS = (
    Kind(
        "episode",
        "episodes",
        _columns("id space role text source said_at created_at metadata"),
        json_columns=frozenset({"metadata"}),
    ),
    Kind(
        "sentence",
        "sentences",
        _columns("id episode_id position start end superseded_by released_by"),
        computed={"end": '"start" + length(text)'},
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
        order="entity_id, kind, target_id",
    ),
    Kind("progress", "sleep_progress", _columns("space last_episode_id updated_at"), "space"),
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


def to_record(kind: Kind, row: tuple[Any, ...]) -> dict[str, Any]:
    """A table row as a record: JSON columns parsed, so they nest as JSON."""
    record: dict[str, Any] = {"type": kind.name}
    for column, value in zip(kind.columns, row, strict=True):
        record[column] = json.loads(value) if column in kind.json_columns else value
    return record
