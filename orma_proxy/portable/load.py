"""``orma import``: an ``orma-export`` file into an empty database, ids kept.

The file is checked whole before anything is written (header, every record's
type and keys, the counts against the header, sentence offsets), then written
in one transaction with foreign keys checked before it commits, so a damaged
file leaves the database as empty as it was. Keeping ids makes export, import,
export give the same bytes. Sentences get their FTS rows at once; vectors
follow from the indexer, with whatever model the importing memory uses.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from orma_proxy.errors import InputError, UnreadableFileError
from orma_proxy.portable.records import BY_NAME, FORMAT, KINDS, VERSION, Kind
from orma_proxy.store import (
    Connection,
    NewSentence,
    broken_reference,
    defer_foreign_keys,
    has_rows,
    insert_rows,
    insert_sentences,
    space_tag,
)

Parsed = dict[str, list[dict[str, Any]]]
# Tables that must be empty to import (everything else is derived from them).
_OWN_TABLES = ("episodes", "entities", "releases", "audit")


def parse(lines: Iterable[str]) -> Parsed:
    """Every record of an export, by type; raises ``InputError`` naming the bad line."""
    records: Parsed = {kind.name: [] for kind in KINDS}
    expected: dict[str, int] | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise InputError(f"line {number} is not JSON: {exc}") from exc
        if not isinstance(record, dict):
            raise InputError(f"line {number} is not a JSON object")
        if expected is None:
            expected = _check_header(record)
            continue
        kind = BY_NAME.get(str(record.get("type")))
        if kind is None:
            raise InputError(f"line {number}: unknown record type {record.get('type')!r}")
        if set(record) != {"type", *kind.columns}:
            raise InputError(f"line {number}: a {kind.name} record has the keys {list(record)}")
        records[kind.name].append(record)
    if expected is None:
        raise InputError("the file is empty: no orma-export header")
    found = {name: len(rows) for name, rows in records.items()}
    if found != expected:
        raise InputError(f"the file holds {found} records, its header says {expected}: truncated?")
    return records


def read_export(source: Path | TextIO) -> Parsed:
    """Parse an export from a file or an open text stream."""
    if not isinstance(source, Path):
        return parse(source)
    try:
        with source.open(encoding="utf-8") as lines:
            return parse(lines)
    except (OSError, UnicodeDecodeError) as exc:
        raise UnreadableFileError(f"cannot read {source}: {exc}") from exc


def _check_header(record: dict[str, Any]) -> dict[str, int]:
    if record.get("format") != FORMAT:
        raise InputError(f'not an {FORMAT} file (its first line has no "format": "{FORMAT}")')
    if record.get("version") != VERSION:
        raise InputError(
            f"{FORMAT} version {record.get('version')!r} is not supported "
            f"(this Orma reads version {VERSION})"
        )
    counts = record.get("counts")
    if not isinstance(counts, dict) or set(counts) != set(BY_NAME):
        raise InputError("the header's counts do not name every record type")
    return {str(k): int(v) for k, v in counts.items()}


def import_records(conn: Connection, records: Parsed) -> int:
    """Write parsed records (a sync write job); returns how many were written."""
    for table in _OWN_TABLES:
        if has_rows(conn, table):
            raise InputError(f"import needs an empty database; this one has {table}")
    defer_foreign_keys(conn)
    texts = {int(r["id"]): (str(r["space"]), str(r["text"])) for r in records["episode"]}
    for kind in KINDS:
        if kind.name == "sentence":
            insert_sentences(conn, _sentences(records["sentence"], texts))
        else:
            insert_rows(conn, kind.table, kind.columns, _values(kind, records[kind.name]))
    broken = broken_reference(conn)
    if broken is not None:
        raise InputError(
            f"{broken.table} row {broken.rowid} refers to a missing {broken.parent} row; "
            "nothing imported"
        )
    return sum(len(rows) for rows in records.values())


def _values(kind: Kind, rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """Each record's values in the order of its columns, JSON columns as JSON text."""
    return [
        tuple(
            json.dumps(r[c], ensure_ascii=False) if c in kind.json_columns else r[c]
            for c in kind.columns
        )
        for r in rows
    ]


def _sentences(rows: list[dict[str, Any]], texts: dict[int, tuple[str, str]]) -> list[NewSentence]:
    """Sentences cut from their episode's text by offset, ids and marks kept."""
    sentences = []
    for r in rows:
        space, text = texts.get(int(r["episode_id"]), ("", ""))
        start, end = int(r["start"]), int(r["end"])
        if not 0 <= start < end <= len(text):
            raise InputError(f"sentence #{r['id']} lies outside its episode's text")
        sentences.append(
            NewSentence(
                int(r["episode_id"]), space, space_tag(space), r["position"], start,
                text[start:end], r["superseded_by"], r["released_by"], id=r["id"],
            )
        )  # fmt: skip
    return sentences
