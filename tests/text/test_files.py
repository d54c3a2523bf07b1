"""Reading a user's file: text and Markdown in, everything else out with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from orma_proxy.errors import InputError, UnreadableFileError
from orma_proxy.text.files import read_text_file


def test_utf8_text_is_read_and_a_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(b"\xef\xbb\xbf# Notes\n\nCaf\xc3\xa9 at nine.\n")
    assert read_text_file(path) == "# Notes\n\nCafé at nine.\n"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks binary"),
        ("caf\xe9 in Latin-1".encode("latin-1"), "not valid UTF-8"),
        (b"\xff\xfeu\x00t\x00f\x00-\x001\x006\x00", "looks binary"),
        (b" \n\t\n", "is empty"),
    ],
)
def test_unreadable_files_say_why(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "file.txt"
    path.write_bytes(content)
    with pytest.raises(UnreadableFileError, match=reason) as caught:
        read_text_file(path)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)


def test_missing_files_and_directories_say_why(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFileError, match="no such file"):
        read_text_file(tmp_path / "nope.md")
    with pytest.raises(UnreadableFileError, match="is a directory"):
        read_text_file(tmp_path)
