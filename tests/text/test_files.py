"""Reading a user's file: text and Markdown in, in pieces; everything else out with a reason."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from orma_proxy.errors import InputError, UnreadableFileError
from orma_proxy.text.files import FilePiece, check_text_file, read_pieces


def test_utf8_text_is_read_and_a_bom_dropped(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes(b"\xef\xbb\xbf# Notes\n\nCaf\xc3\xa9 at nine.\n")
    assert check_text_file(path) == 27
    assert list(read_pieces(path, 1000)) == [FilePiece(3, 27, "# Notes\n\nCafé at nine.\n")]


def test_pieces_cover_the_file_cite_their_bytes_and_start_at_headings(tmp_path: Path) -> None:
    sections = [f"## Part {n}\n\n" + "Ünïcode line of the part.\n" * 40 for n in range(30)]
    text = "".join(sections)
    path = tmp_path / "book.md"
    path.write_text(text, "utf-8")
    data = path.read_bytes()
    pieces = list(read_pieces(path, 3000))
    assert len(pieces) > 10
    assert "".join(p.text for p in pieces) == text
    for piece, following in itertools.pairwise(pieces):
        assert len(piece.text) <= 3000
        assert data[piece.offset : piece.end].decode("utf-8") == piece.text
        assert following.offset == piece.end
        assert following.text.startswith("## Part ")


def test_a_file_without_breaks_is_cut_at_the_size(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_text("x" * 2500, "utf-8")
    assert [len(p.text) for p in read_pieces(path, 1000)] == [1000, 1000, 500]


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
        check_text_file(path)
    assert isinstance(caught.value, InputError) and isinstance(caught.value, ValueError)
    with pytest.raises(UnreadableFileError, match=reason):
        list(read_pieces(path, 1000))


# Item 12 of issue 15: the old check looked at the first 8 KB only.
@pytest.mark.parametrize(
    ("bad", "reason"),
    [(b"\x00", "looks binary \\(a NUL byte at offset 3000000\\)"), (b"\xc3(", "offset 3000000")],
    ids=["nul", "invalid-utf8"],
)
def test_a_bad_byte_deep_in_the_file_is_found_with_its_offset(
    tmp_path: Path, bad: bytes, reason: str
) -> None:
    path = tmp_path / "long.txt"
    path.write_bytes(b"a" * 3_000_000 + bad + b"b" * 1000)
    with pytest.raises(UnreadableFileError, match=reason):
        check_text_file(path)
    pieces = read_pieces(path, 1_000_000)
    assert next(pieces).offset == 0  # what came before the bad byte streams first
    with pytest.raises(UnreadableFileError, match=reason):
        list(pieces)


def test_a_file_ending_inside_a_character_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "cut.txt"
    path.write_bytes(b"Price: 5 " + "€".encode()[:2])
    with pytest.raises(UnreadableFileError, match="offset 9"):
        check_text_file(path)


def test_missing_files_and_directories_say_why(tmp_path: Path) -> None:
    with pytest.raises(UnreadableFileError, match="no such file"):
        check_text_file(tmp_path / "nope.md")
    with pytest.raises(UnreadableFileError, match="is a directory"):
        check_text_file(tmp_path)
