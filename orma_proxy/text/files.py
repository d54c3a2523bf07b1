"""Read a user's file as text, or say clearly why it cannot be."""

from __future__ import annotations

from pathlib import Path

from orma_proxy.errors import UnreadableFileError

TEXT_SUFFIXES = {".md", ".markdown", ".txt", ".text", ".rst", ".org", ""}
_SNIFF_BYTES = 8192


def read_text_file(path: Path) -> str:
    """The file's text (UTF-8, BOM removed). Binary and non-UTF-8 files are refused."""
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise UnreadableFileError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise UnreadableFileError(f"{path}: is a directory") from exc
    except OSError as exc:
        raise UnreadableFileError(f"{path}: cannot read ({exc.strerror})") from exc
    if b"\x00" in data[:_SNIFF_BYTES]:
        raise UnreadableFileError(f"{path}: looks binary; only text and Markdown can be added")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(
            f"{path}: not valid UTF-8 (bad byte at offset {exc.start}); convert it to UTF-8 first"
        ) from exc
    if not text.strip():
        raise UnreadableFileError(f"{path}: is empty")
    return text
