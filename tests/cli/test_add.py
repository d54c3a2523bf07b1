"""``orma add``: notes, files, and the ways a file can be refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import Orma


def _search(orma: Orma, db: Path, query: str, *extra: str) -> list[dict[str, object]]:
    result = orma("search", query, "--db", db, "--json", *extra)
    assert result.exit_code == 0, result.stderr
    passages: list[dict[str, object]] = json.loads(result.stdout)["passages"]
    return passages


def test_add_note_then_search_finds_it_by_meaning(orma: Orma, db: Path) -> None:
    result = orma("add", "My dentist is Dr. Rao in Kothrud.", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Added note as episode #1.\n"
    # add flushed before exiting, so the vector channel already knows this sentence.
    stats = json.loads(orma("stats", "--db", db, "--json").stdout)
    assert stats["pending_vectors"] == 0
    passages = _search(orma, db, "tooth doctor")
    assert passages[0]["text"] == "My dentist is Dr. Rao in Kothrud."
    assert passages[0]["role"] == "note"


def test_add_role_option_is_stored(orma: Orma, db: Path) -> None:
    assert orma("add", "I prefer aisle seats.", "--role", "user", "--db", db).exit_code == 0
    assert _search(orma, db, "aisle seats")[0]["role"] == "user"


def test_add_markdown_and_text_files_as_documents(orma: Orma, db: Path, tmp_path: Path) -> None:
    md = tmp_path / "handbook.md"
    md.write_text("# Handbook\n\nThe office opens at nine.\n", encoding="utf-8")
    txt = tmp_path / "gym.txt"
    txt.write_text("\ufeffGym sessions are on Tuesdays.\n", encoding="utf-8")
    result = orma("add", md, txt, "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["failed"] == []
    assert [entry["source"] for entry in report["added"]] == [str(md), str(txt)]
    assert {entry["role"] for entry in report["added"]} == {"document"}
    assert _search(orma, db, "office opens")[0]["text"] == "The office opens at nine."
    assert _search(orma, db, "gym")[0]["text"] == "Gym sessions are on Tuesdays."


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "looks binary"),
        (b"caf\xe9 au lait\n", "not valid UTF-8"),
    ],
    ids=["binary", "latin-1"],
)
def test_unreadable_file_is_one_line_and_exit_2_but_good_files_are_added(
    orma: Orma, db: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(content)
    good = tmp_path / "good.md"
    good.write_text("The spare key is under the blue pot.\n", encoding="utf-8")
    result = orma("add", bad, good, "--db", db, "--json")
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1
    assert message in errors[0] and str(bad) in errors[0]
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert [entry["source"] for entry in report["added"]] == [str(good)]
    assert report["failed"][0]["source"] == str(bad)
    assert _search(orma, db, "spare key")[0]["text"] == "The spare key is under the blue pot."


def test_missing_file_is_an_error_not_a_note(orma: Orma, db: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "notes.md"
    result = orma("add", missing, "--db", db)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(f"error: {missing}: no such file")
    assert json.loads(orma("stats", "--db", db, "--json").stdout)["episodes"] == 0


def test_text_flag_stores_a_file_like_word_as_a_note(orma: Orma, db: Path) -> None:
    result = orma("add", "--text", "README.md", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["added"][0]["role"] == "note"


def test_a_note_too_long_for_a_file_name_is_a_note(orma: Orma, db: Path) -> None:
    note = "I keep the passport in the grey folder. " * 20
    result = orma("add", note, "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["added"][0]["role"] == "note"


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_note_exits_2_before_creating_anything(orma: Orma, db: Path, text: str) -> None:
    result = orma("add", text, "--db", db)
    assert result.exit_code == 2
    assert result.stderr == "error: nothing to add: the note is empty\n"
    assert result.stdout == ""
    assert not db.exists()


def test_bad_role_is_a_usage_error(orma: Orma, db: Path) -> None:
    result = orma("add", "hello there", "--role", "boss", "--db", db)
    assert result.exit_code == 2
    assert "'boss' is not one of" in result.stderr
    assert not db.exists()


def test_default_database_lives_in_orma_dir(orma: Orma, orma_home: Path) -> None:
    assert orma("add", "The wifi password is on the fridge.").exit_code == 0
    assert (orma_home / "memory.db").is_file()


def test_add_speaker_option_keeps_who_said_it_out_of_the_words(orma: Orma, db: Path) -> None:
    said = orma("add", "Ravi: I love filter coffee.", "--db", db)
    assert said.exit_code == 0, said.stderr
    given = orma("add", "I grow jasmine on the balcony.", "--speaker", "Meera", "--db", db)
    assert given.exit_code == 0, given.stderr
    coffee, jasmine = _search(orma, db, "filter coffee")[0], _search(orma, db, "jasmine")[0]
    assert (coffee["speaker"], coffee["text"]) == ("Ravi", "I love filter coffee.")
    assert (jasmine["speaker"], jasmine["text"]) == ("Meera", "I grow jasmine on the balcony.")
    assert orma("add", "Never stored.", "--speaker", " ", "--db", db).exit_code == 2
