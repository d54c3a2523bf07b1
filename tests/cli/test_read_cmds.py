"""``orma search``, ``orma stats`` and ``orma reindex`` against real databases."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

import pytest

from tests.helpers.cli import Orma

NOTES = [
    "My dentist is Dr. Rao in Kothrud.",
    "I work as a backend engineer and I live in Pune.",
    "My sister Meera is visiting in December.",
]


def _fill(orma: Orma, db: Path, *extra: str) -> None:
    result = orma("add", *NOTES, "--db", db, *extra)
    assert result.exit_code == 0, result.stderr


@pytest.mark.both_backends
def test_search_json_shape(orma: Orma, db: Path) -> None:
    _fill(orma, db)
    result = orma("search", "where do I live?", "-k", "2", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["query"] == "where do I live?"
    assert found["space"] == "default"
    assert len(found["passages"]) == 2
    first = found["passages"][0]
    assert set(first) == {
        "text", "score", "relative", "below_floor", "said_at", "role", "speaker", "episode_id",
        "sentence_id",
    }  # fmt: skip
    assert (first["relative"], first["below_floor"]) == (1.0, False)
    assert first["speaker"] is None
    assert first["text"] == NOTES[1]
    assert isinstance(first["score"], float)
    assert datetime.fromisoformat(first["said_at"]).tzinfo is not None
    scores = [p["score"] for p in found["passages"]]
    assert scores == sorted(scores, reverse=True)


def test_search_prints_a_table(orma: Orma, db: Path) -> None:
    _fill(orma, db)
    result = orma("search", "dentist", "--db", db)
    assert result.exit_code == 0, result.stderr
    assert "Score" in result.stdout and "Said" in result.stdout
    assert "My dentist is Dr. Rao in Kothrud." in result.stdout
    assert datetime.now().strftime("%Y-%m-%d") in result.stdout


PETS = [
    "My dentist is Dr. Rao in Kothrud.",
    "I cooked biryani for the team on Friday.",
    "My manager Priya moved to the Berlin office.",
    "Our dog is called Bruno and he loves the beach.",
]


def test_search_shows_what_is_above_recall_s_floor_scored_against_the_best(
    orma: Orma, db: Path
) -> None:
    assert orma("add", *PETS, "--db", db).exit_code == 0
    found = json.loads(orma("search", "dog name", "-k", "3", "--db", db, "--json").stdout)
    flags = {p["text"]: p["below_floor"] for p in found["passages"]}
    below = sum(flags.values())  # the vectors' own floor already left some out of k
    assert flags[PETS[3]] is False and below == len(flags) - 1 >= 1, flags
    relative = [p["relative"] for p in found["passages"]]
    assert relative[0] == 1.0 and all(0 < r < 1 for r in relative[1:])
    assert found["passages"][0]["score"] < 0.1  # the raw fused score, kept for scripts
    shown = orma("search", "dog name", "-k", "3", "--db", db)
    assert shown.exit_code == 0, shown.stderr
    assert PETS[3] in shown.stdout and " 1.00 " in shown.stdout
    for other in PETS[:3]:  # k is not filled with what the query is not about
        assert other not in shown.stdout, shown.stdout
    said = f"{below} more below the noise floor (--all shows them)."
    assert shown.stdout.rstrip().endswith(said)
    every = orma("search", "dog name", "-k", "3", "--all", "--db", db).stdout
    assert every.count("(below floor)") == below and PETS[3] in every
    asked = orma("search", "who is my dentist?", "--db", db).stdout
    assert PETS[0] in asked and PETS[3] not in asked  # a topic word or the nearest: kept


@pytest.mark.both_backends
def test_spaces_are_isolated(orma: Orma, db: Path) -> None:
    assert orma("add", "Alice likes green tea.", "--space", "alice", "--db", db).exit_code == 0
    assert orma("add", "Bob drinks black coffee.", "-s", "bob", "--db", db).exit_code == 0
    alice = json.loads(orma("search", "tea", "--space", "alice", "--db", db, "--json").stdout)
    assert [p["text"] for p in alice["passages"]] == ["Alice likes green tea."]
    bob = json.loads(orma("search", "green tea", "--space", "bob", "--db", db, "--json").stdout)
    assert [p["text"] for p in bob["passages"]] == ["Bob drinks black coffee."]
    nobody = orma("search", "tea", "--space", "carol", "--db", db)
    assert nobody.exit_code == 0
    assert nobody.stdout == "Nothing in space 'carol' matches 'tea'.\n"


def test_space_names_follow_the_sdk_rule(orma: Orma, db: Path) -> None:
    assert orma("add", "Zhang likes jasmine tea.", "--space", "张三", "--db", db).exit_code == 0
    found = json.loads(orma("search", "tea", "--space", "张三", "--db", db, "--json").stdout)
    assert [p["text"] for p in found["passages"]] == ["Zhang likes jasmine tea."]
    for bad in ("a\x01b", "x" * 201, " "):
        refused = orma("add", "Never stored.", "--space", bad, "--db", db)
        assert refused.exit_code == 2, bad
    stats = json.loads(orma("stats", "--db", db, "--json").stdout)
    assert stats["episodes"] == 1


@pytest.mark.both_backends
def test_stats_json_counts_all_spaces_or_one(orma: Orma, db: Path) -> None:
    _fill(orma, db)
    assert orma("add", "Alice likes green tea.", "--space", "alice", "--db", db).exit_code == 0
    every = json.loads(orma("stats", "--db", db, "--json").stdout)
    assert every["space"] is None
    assert (every["spaces"], every["episodes"], every["sentences"]) == (2, 4, 4)
    assert every["pending_vectors"] == 0
    assert every["path"] == str(db)
    assert every["database_bytes"] > 0
    assert (every["embedder"], every["dim"]) == ("all-MiniLM-L6-v2-int8", 384)
    alice = json.loads(orma("stats", "--space", "alice", "--db", db, "--json").stdout)
    assert (alice["space"], alice["episodes"]) == ("alice", 1)


def test_stats_human_output(orma: Orma, db: Path) -> None:
    _fill(orma, db)
    result = orma("stats", "--db", db)
    assert result.exit_code == 0, result.stderr
    for label in ("Episodes", "Sentences", "Pending vectors", "all-MiniLM-L6-v2-int8"):
        assert label in result.stdout
    assert " kB" in result.stdout


def test_reindex_re_embeds_everything(orma: Orma, db: Path) -> None:
    _fill(orma, db)
    _fill(orma, db, "--space", "work")
    result = orma("reindex", "--db", db, "--json")
    assert result.exit_code == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["sentences"], summary["spaces"]) == (6, 2)
    assert summary["embedder"] == "all-MiniLM-L6-v2-int8"
    assert json.loads(orma("stats", "--db", db, "--json").stdout)["pending_vectors"] == 0
    found = json.loads(orma("search", "tooth doctor", "--db", db, "--json").stdout)
    assert found["passages"][0]["text"] == NOTES[0]
    human = orma("reindex", "--db", db)
    assert human.stdout.startswith("Re-embedded 6 sentences in 2 space(s)")


def test_reading_a_missing_database_is_one_line_exit_1(orma: Orma, db: Path) -> None:
    for args in (["search", "anything"], ["stats"], ["reindex"]):
        result = orma(*args, "--db", db)
        assert result.exit_code == 1
        assert (
            result.stderr
            == f"error: no memory at {db} yet: store something first with `orma add`\n"
        )
    assert not db.exists()


def test_verbose_shows_the_traceback_of_an_expected_error(orma: Orma, db: Path) -> None:
    result = orma("-v", "stats", "--db", db)
    assert result.exit_code == 1
    assert "Traceback" in result.stderr and "StoreError" in result.stderr
    assert result.stderr.endswith("store something first with `orma add`\n")


def test_a_foreign_file_is_refused_without_traceback(orma: Orma, tmp_path: Path) -> None:
    foreign = tmp_path / "notes.db"
    foreign.write_text("not a database at all\n" * 200, encoding="utf-8")
    result = orma("stats", "--db", foreign)
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ")
    assert len(result.stderr.splitlines()) == 1
    assert foreign.read_text(encoding="utf-8") == "not a database at all\n" * 200


def test_help_lists_the_commands(orma: Orma) -> None:
    result = orma("--help")
    assert result.exit_code == 0
    for command in ("add", "search", "stats", "reindex"):
        assert command in result.stdout


def test_log_handler_is_removed_after_each_run(orma: Orma, db: Path) -> None:
    before = list(logging.getLogger("orma_proxy").handlers)
    _fill(orma, db)
    assert logging.getLogger("orma_proxy").handlers == before
