"""When recall showed each item: its access times, one packed value per item.

``recall_history.times`` holds an item's newest accesses as big-endian int64
milliseconds, oldest first (migration 0007), so reading an item's history is
one row however often it was recalled. Items are named by (kind, id): kind is
``passage``, ``state`` or ``event``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from orma_proxy.store.connect import Connection

if TYPE_CHECKING:
    pass

_TIME = ">i8"  # numpy dtype of one packed time
_TIME_BYTES = 8

Key = TypeVar("Key", bound=tuple[str, int])


class Access(NamedTuple):
    """Recall showed item (``kind``, ``item_id``) of ``space`` at ``at`` (Unix seconds)."""

    space: str
    kind: str
    item_id: int
    at: float


def pack_times(times: Iterable[float]) -> bytes:
    """Access times (Unix seconds) as ``recall_history.times`` stores them."""
    import numpy as np

    return np.round(np.asarray(sorted(times), dtype=np.float64) * 1000).astype(_TIME).tobytes()


def unpack_times(blob: bytes) -> tuple[float, ...]:
    """The Unix seconds packed by ``pack_times`` (sorted: a rebuild may append out of order)."""
    return unpack_many([blob])[0]


def unpack_many(blobs: list[bytes]) -> list[tuple[float, ...]]:
    """``unpack_times`` of each blob, converted together.

    A recall reads the histories of ~60 items: numpy's fixed cost per call made
    one conversion each ~7 µs, more than the arithmetic of all of them together.
    """
    import numpy as np

    values = (np.frombuffer(b"".join(blobs), dtype=_TIME) / 1000.0).tolist()
    out, at = [], 0
    for blob in blobs:
        end = at + len(blob) // _TIME_BYTES
        out.append(tuple(sorted(values[at:end])))
        at = end
    return out


def access_times(conn: Connection, space: str, keys: Iterable[Key]) -> dict[Key, tuple[float, ...]]:
    """The kept access times of each item (oldest first); items never recalled are absent."""
    wanted: dict[tuple[str, int], Key] = {key: key for key in keys}  # the caller's keys return
    by_kind: dict[str, list[int]] = {}
    for kind, item_id in wanted:
        by_kind.setdefault(kind, []).append(item_id)
    if not by_kind:
        return {}
    selects: list[str] = []
    args: list[object] = []
    for kind, ids in by_kind.items():
        selects.append(
            "SELECT kind, item_id, times FROM recall_history WHERE space = ? AND kind = ? "
            f"AND item_id IN ({','.join('?' * len(ids))})"
        )
        args += [space, kind, *ids]
    rows = conn.execute(" UNION ALL ".join(selects), args).fetchall()
    times = unpack_many([r[2] for r in rows])
    return {
        wanted[kind, int(item_id)]: t for (kind, item_id, _), t in zip(rows, times, strict=True)
    }


def add_accesses(conn: Connection, accesses: Sequence[Access], keep: int) -> None:
    """Add the accesses to their items' histories, each trimmed to its ``keep`` newest.

    A write job's step (``Writer.execute_write_fn``).
    """
    added: dict[tuple[str, str, int], list[float]] = {}
    for space, kind, item_id, at in accesses:
        added.setdefault((space, kind, item_id), []).append(at)
    old: dict[tuple[str, str, int], tuple[float, ...]] = {}
    for space, kind in sorted({(space, kind) for space, kind, _ in added}):
        ids = [item_id for s, k, item_id in added if (s, k) == (space, kind)]
        found = conn.execute(
            "SELECT item_id, times FROM recall_history WHERE space = ? AND kind = ? "
            "AND item_id IN (SELECT value FROM json_each(?))",
            (space, kind, json.dumps(ids)),
        ).fetchall()
        for (item_id, _), times in zip(found, unpack_many([r[1] for r in found]), strict=True):
            old[space, kind, int(item_id)] = times
    merged = [
        (*key, pack_times(sorted([*old.get(key, ()), *times])[-keep:]))
        for key, times in added.items()
    ]
    conn.executemany(
        "INSERT INTO recall_history (space, kind, item_id, times) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (space, kind, item_id) DO UPDATE SET times = excluded.times",
        merged,
    )
