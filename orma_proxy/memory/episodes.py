"""A new episode before it is stored: its checks, its time, its speaker and sentences.

``add()``, ``add_file()`` and the proxy's ``add_exchange()`` all prepare their
episodes here, so a note and a chat turn are checked and split one way, and
nothing half-valid reaches the writer (a bad value fails before the
transaction, not in the middle of it).
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from functools import partial
from typing import Any

from orma_proxy.errors import InputError
from orma_proxy.inputs import ROLES, check_space, check_text
from orma_proxy.offload import in_thread
from orma_proxy.store.episodes import NewEpisode
from orma_proxy.text.segment import Segment
from orma_proxy.text.speaker import split_said

__all__ = ["When", "check_metadata", "prepare", "timestamp"]

When = datetime | str | float | int | None

# Texts longer than this are split into sentences in a worker thread.
SPLIT_IN_THREAD_CHARS = 64_000


async def prepare(
    text: str,
    space: str,
    role: str,
    *,
    said_at: float,
    created_at: float,
    max_chars: int,
    source: str | None = None,
    metadata: dict[str, Any] | None = None,
    speaker: str | None = None,
    detect_speaker: bool = True,
) -> tuple[NewEpisode, list[Segment]]:
    """The checked episode and its sentences, a leading ``Name:`` kept as its speaker.

    A document's first line is a heading, never a speaker (the caller says so
    with ``detect_speaker``).
    """
    space = check_space(space)
    if not isinstance(text, str) or len(text) <= SPLIT_IN_THREAD_CHARS:
        text = check_text(text, "text")
    else:  # reading it whole holds the event loop: in a thread, with the split below
        text = await in_thread(partial(check_text, text, "text"))
    if role not in ROLES:
        raise InputError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if source is not None:
        source = check_text(source, "source")
    metadata = check_metadata(metadata)
    split = partial(split_said, text, max_chars, speaker, detect=detect_speaker)
    if len(text) > SPLIT_IN_THREAD_CHARS:
        speaker, segments = await in_thread(split)
    else:
        speaker, segments = split()
    if speaker:
        metadata = {**metadata, "speaker": speaker}
    episode = NewEpisode(
        space=space,
        role=role,
        text=text,
        said_at=said_at,
        created_at=created_at,
        source=source,
        metadata=metadata,
    )
    return episode, segments


def check_metadata(metadata: object) -> dict[str, Any]:
    """Metadata that will serialise to valid JSON (checked here, not mid-transaction)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InputError(f"metadata must be a dict, not {type(metadata).__name__}")
    try:
        json.dumps(metadata, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:  # unserialisable value, NaN, lone surrogate
        raise InputError(f"metadata cannot be stored as JSON: {exc}") from exc
    return metadata


def timestamp(at: When, *, default: float) -> float:
    """Unix seconds from a datetime (naive = local time), ISO string or number."""
    if at is None:
        return default
    if isinstance(at, int | float) and not isinstance(at, bool):
        if not math.isfinite(at):
            raise InputError(f"at must be a finite number of seconds, not {at!r}")
        return float(at)
    if isinstance(at, str):
        try:
            at = datetime.fromisoformat(at)
        except ValueError as exc:
            raise InputError(f"at must be an ISO 8601 date or time, not {at!r}") from exc
    if not isinstance(at, datetime):
        raise InputError(f"at must be a datetime, ISO string or Unix seconds, not {at!r}")
    return at.timestamp()
