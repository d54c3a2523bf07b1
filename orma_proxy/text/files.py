"""Read a user's file as text, in pieces, or say clearly why it cannot be.

A file is streamed: read in blocks of ``_BLOCK_BYTES``, checked as it goes (a
NUL byte or invalid UTF-8 anywhere refuses the file, with the byte offset), and
cut into pieces of at most ``piece_chars`` characters at the best break near
the end of each (a Markdown heading, a blank line, a line break, a space). So a
200 MB file never sits in memory whole, and each piece can cite where it came
from by byte offset.
"""

from __future__ import annotations

import codecs
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from orma_proxy.errors import UnreadableFileError

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".rst", ".org", ""}
_BLOCK_BYTES = 1 << 20
_BOM = "\ufeff"
# Where a piece may end, best first: before a heading, after a paragraph, a line, a word.
_BREAKS = ("\n#", "\n\n", "\n", " ")


@dataclass(frozen=True)
class FilePiece:
    """A piece of a file: its text and the byte range ``[offset, end)`` it was read from."""

    offset: int
    end: int
    text: str


def check_text_file(path: Path) -> int:
    """Read the whole file once, in blocks; its size in bytes if it is UTF-8 text.

    Raises ``UnreadableFileError`` for a missing, binary, non-UTF-8 or blank file,
    so a caller can refuse it before storing any piece of it.
    """
    size = 0
    blank = True
    for block, read in _decoded(path):
        size += read
        blank = blank and not block.lstrip(_BOM).strip()
    if blank:
        raise UnreadableFileError(f"{path}: is empty")
    return size


def read_pieces(path: Path, piece_chars: int) -> Generator[FilePiece, None, None]:
    """The file's non-blank pieces, in order (UTF-8, BOM removed), each <= ``piece_chars``.

    Checks as it reads: the error comes when the reader reaches the bad byte,
    after the pieces before it were yielded.
    """
    buffer = ""
    offset = 0  # the byte offset of buffer[0] in the file
    first = True
    found = False
    for block, _ in _decoded(path):
        if first and block.startswith(_BOM):
            block, offset = block[1:], len(_BOM.encode("utf-8"))
        first = first and not block
        buffer += block
        while len(buffer) > piece_chars:
            cut = _cut_at(buffer, piece_chars)
            piece, buffer = _piece(buffer[:cut], offset), buffer[cut:]
            offset = piece.end
            if piece.text.strip():
                found = True
                yield piece
    if buffer.strip():
        yield _piece(buffer, offset)
    elif not found:
        raise UnreadableFileError(f"{path}: is empty")


def _piece(text: str, offset: int) -> FilePiece:
    return FilePiece(offset, offset + len(text.encode("utf-8")), text)


def _cut_at(text: str, limit: int) -> int:
    """Where a piece of ``text`` (longer than ``limit``) ends: after its best late break."""
    floor = limit // 2
    for mark in _BREAKS:
        at = text.rfind(mark, floor, limit)
        if at >= 0:
            return at + 1  # the break ends this piece; a heading starts the next
    return limit


def _decoded(path: Path) -> Generator[tuple[str, int], None, None]:
    """(text, bytes read) per block; a NUL byte or invalid UTF-8 anywhere raises."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    with _open(path) as file:
        while block := _read(file, path):
            held = len(decoder.getstate()[0])  # bytes of a character cut by the last block
            nul = block.find(b"\x00")
            if nul >= 0:
                raise UnreadableFileError(
                    f"{path}: looks binary (a NUL byte at offset {offset + nul}); "
                    "only text and Markdown can be added"
                )
            try:
                text = decoder.decode(block)
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, offset - held + exc.start) from exc
            yield text, len(block)
            offset += len(block)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as exc:  # the file ends inside a character
            raise _not_utf8(path, offset - len(exc.object) + exc.start) from exc


def _not_utf8(path: Path, offset: int) -> UnreadableFileError:
    return UnreadableFileError(
        f"{path}: not valid UTF-8 (bad byte at offset {offset}); convert it to UTF-8 first"
    )


def _open(path: Path) -> BinaryIO:
    try:
        return path.open("rb")
    except FileNotFoundError as exc:
        raise UnreadableFileError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise UnreadableFileError(f"{path}: is a directory") from exc
    except OSError as exc:
        raise UnreadableFileError(f"{path}: cannot read ({exc.strerror})") from exc


def _read(file: BinaryIO, path: Path) -> bytes:
    try:
        return file.read(_BLOCK_BYTES)
    except IsADirectoryError as exc:
        raise UnreadableFileError(f"{path}: is a directory") from exc
    except OSError as exc:
        raise UnreadableFileError(f"{path}: cannot read ({exc.strerror})") from exc
