"""Storing a file as episodes, piece by piece, so memory stays bounded whatever its size.

The whole file is checked first (``text/files.py``), so a binary or non-UTF-8
byte anywhere stores nothing; then each piece is committed as its own episode
whose source is the path and whose metadata holds its byte range.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orma_proxy.offload import in_thread
from orma_proxy.text.files import FilePiece, check_text_file, read_pieces

# Commit one episode (text, source, metadata); its id and how many sentences it has.
StoreEpisode = Callable[[str, str, dict[str, Any]], Awaitable[tuple[int, int]]]


@dataclass(frozen=True)
class StoredPiece:
    """A piece of a file, committed: its episode, byte range in the file and sentence count."""

    episode_id: int
    offset: int
    end: int
    sentences: int


async def store_file(
    path: str | Path,
    piece_chars: int,
    store: StoreEpisode,
    on_piece: Callable[[StoredPiece], None] | None,
    stop: Callable[[], bool] | None,
) -> list[int]:
    """Check ``path``, then ``store`` its pieces in order; the episode ids.

    ``stop()`` returning true ends early, keeping what was committed.
    """
    file = await in_thread(lambda: Path(path).expanduser().resolve())
    await in_thread(lambda: check_text_file(file))
    # A file name need not be UTF-8 (Python keeps such bytes as lone surrogates).
    source = os.fsencode(file).decode("utf-8", "replace")
    pieces = read_pieces(file, piece_chars)
    ids: list[int] = []
    try:
        while stop is None or not stop():
            piece = await in_thread(lambda: _next_piece(pieces))
            if piece is None:
                break
            metadata = {"file_offset": piece.offset, "file_end": piece.end}
            episode_id, count = await store(piece.text, source, metadata)
            ids.append(episode_id)
            if on_piece is not None:
                on_piece(StoredPiece(episode_id, piece.offset, piece.end, count))
    finally:
        pieces.close()
    return ids


def _next_piece(pieces: Iterator[FilePiece]) -> FilePiece | None:
    return next(pieces, None)
