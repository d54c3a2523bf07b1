"""``orma supersede``, ``release``, ``unrelease``, ``purge``, ``audit``, ``export``, ``import``,
``rebuild`` and ``backup`` on real databases."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from orma_proxy.cli.app import app
from orma_proxy.cli.shared_options import CliState
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.cli import Orma
from tests.helpers.rawdb import scalar
from tests.helpers.serving import free_port

SECRET = "My locker code is 4417zeta."
NOTES = ["I live in Pune.", "My dentist is Dr. Rao in Kothrud.", "I quit my job at Acme.", SECRET]


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")


def _ok(orma: Orma, *args: str | Path) -> str:
    result = orma(*args)
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def answering(embedder: OnnxEmbedder) -> Callable[..., Result]:
    """``orma ARGS...`` with ``stdin`` typed at its prompt."""
    runner = CliRunner()

    def run(*args: str | Path, stdin: str) -> Result:
        argv = [str(arg) for arg in args]
        return runner.invoke(app, argv, input=stdin, obj=CliState(embedder=embedder))

    return run


@pytest.fixture
def stored(orma: Orma, db: Path) -> Path:
    _ok(orma, "add", *NOTES, "--db", db)
    _ok(orma, "sleep", "--db", db, "-u", f"http://127.0.0.1:{free_port()}/v1")
    return db


def test_supersede_release_unrelease_and_audit(orma: Orma, stored: Path) -> None:
    db = stored
    assert _ok(orma, "supersede", "Pune", "Bangalore", "--dry-run", "--db", db) == (
        "Would correct 1 passage, 1 state in space 'default':\n  - I live in Pune.\n"
        "  - fact user · home city: Pune\n"
    )
    done = _ok(orma, "supersede", "Pune", "Bangalore", "--db", db)
    assert done.startswith("Corrected 1 passage, 1 state in space 'default'; the correction is")
    home = json.loads(_ok(orma, "facts", "--db", db, "--json"))["facts"]
    (dentist,) = [f for f in home if f["attribute"] == "dentist"]
    assert [f["value"] for f in home if f["attribute"] == "home_city"] == ["Bangalore"]
    fixed = json.loads(
        _ok(orma, "supersede", f"#{dentist['id']}", "Dr. Shah", "--db", db, "--json")
    )
    assert fixed["affected"]["states"] == [dentist["id"]]
    assert "Dr. Shah" in _ok(orma, "recall", "Who is my dentist?", "--db", db)

    released = json.loads(_ok(orma, "release", "my old job", "--db", db, "--json"))
    assert released["preview"] == ["I quit my job at Acme."]
    assert "Acme" not in _ok(orma, "recall", "Where did I work?", "--db", db)
    assert _ok(orma, "unrelease", str(released["release_id"]), "--db", db) == (
        f"Release #{released['release_id']} undone: 1 passage, 1 state recalled again.\n"
    )
    assert "Acme" in _ok(orma, "recall", "Where did I work?", "--db", db)

    table = _ok(orma, "audit", "--db", db).splitlines()
    assert [line.split()[4] for line in table[3:] if line.strip()] == [
        "unrelease", "release", "supersede", "supersede",
    ]  # fmt: skip
    audit = json.loads(_ok(orma, "audit", "--db", db, "--json", "--limit", "1"))
    assert [(a["operation"], a["ids"]["releases"]) for a in audit] == [
        ("unrelease", [released["release_id"]])
    ]
    missing = orma("unrelease", "99", "--db", db)
    assert missing.exit_code == 2 and "no release #99" in missing.stderr


def test_purge_asks_first_unless_yes(
    orma: Orma, answering: Callable[..., Result], stored: Path
) -> None:
    db = stored
    dry = _ok(orma, "purge", "locker code", "--dry-run", "--db", db)
    assert dry == f"Would erase 1 episode, 1 passage, 1 state from space 'default':\n  - {SECRET}\n"
    declined = answering("purge", "locker code", "--db", db, stdin="n\n")
    assert declined.exit_code == 1 and "Nothing was erased." in declined.stderr
    assert SECRET in _ok(orma, "export", "--db", db)
    confirmed = answering("purge", "locker code", "--db", db, stdin="y\n")
    assert confirmed.exit_code == 0, confirmed.stderr
    assert confirmed.stdout.startswith("This erases 1 episode, 1 passage, 1 state for good:")
    assert "Erased 1 episode, 1 passage, 1 state (audit #" in confirmed.stdout
    assert "4417zeta" not in _ok(orma, "export", "--db", db)
    assert b"4417zeta" not in db.read_bytes()
    again = _ok(orma, "purge", "--episode", "1", "--yes", "--db", db)
    assert again.startswith("Erased 1 episode")
    both = orma("purge", "x", "--episode", "2", "--db", db)
    assert both.exit_code == 2 and "either QUERY or --episode" in both.stderr


def test_nothing_matched_is_an_error_on_one_line_naming_the_closest(
    orma: Orma, stored: Path
) -> None:
    """A purge, release or supersede that matches nothing exits 2 and says so; a real purge
    still leaves its tombstone (it binds turns in flight)."""
    before = _ok(orma, "export", "--db", stored)
    for args in (
        ("purge", "no such words", "--yes"),
        ("purge", "no such words", "--dry-run", "--json"),
        ("release", "my passport scan", "--dry-run"),
        ("release", "my passport scan"),
        ("supersede", "my passport scan", "x"),
    ):
        result = orma(*args, "--db", stored)
        assert result.exit_code == 2, (args, result.stdout)
        assert result.stderr.count("\n") == 1 and "nothing was" in result.stderr, result.stderr
        assert "closest lines:" in result.stderr and "My locker code is 4417zeta." in result.stderr
    assert _ok(orma, "export", "--db", stored) == before
    assert scalar(stored, "SELECT count(*) FROM purge_tombstones") == 1


def test_export_import_rebuild_backup(orma: Orma, stored: Path, tmp_path: Path) -> None:
    dump = tmp_path / "memory.jsonl"
    _ok(orma, "export", "--db", stored, "-o", dump)
    assert _ok(orma, "export", "--db", stored) == dump.read_text("utf-8")
    copy = tmp_path / "copy.db"
    imported = json.loads(_ok(orma, "import", dump, "--db", copy, "--json"))
    assert imported["records"] == len(dump.read_text("utf-8").splitlines()) - 1
    assert _ok(orma, "export", "--db", copy) == dump.read_text("utf-8")
    refused = orma("import", dump, "--db", copy)
    assert refused.exit_code == 2 and "import needs an empty database" in refused.stderr

    rebuilt = json.loads(_ok(orma, "rebuild", "--db", copy, "--json"))
    assert (rebuilt["episodes"], rebuilt["resplit"], rebuilt["sentences"]) == (4, 0, 4)
    assert "Dr. Rao" in _ok(orma, "recall", "who looks after my teeth?", "--db", copy)

    backup = tmp_path / "backup.db"
    said = _ok(orma, "backup", backup, "--db", stored)
    assert said.startswith(f"Backed up {stored} to {backup} (")
    assert _ok(orma, "export", "--db", backup) == dump.read_text("utf-8")
    nested = tmp_path / "backups" / "2024" / "memory.db"  # folders that do not exist yet
    _ok(orma, "backup", nested, "--db", stored)
    assert _ok(orma, "export", "--db", nested) == dump.read_text("utf-8")
    refused = orma("backup", backup / "inside-a-file.db", "--db", stored)
    assert refused.exit_code == 2 and "is not a folder" in refused.stderr


def test_a_shared_first_name_lists_the_people_and_changes_nothing(orma: Orma, db: Path) -> None:
    for note in ("Zara Quint lives in Hove.", "Zara Marsh lives in Ely.", "Zara Quint sings."):
        _ok(orma, "add", note, "--db", db)
    before = _ok(orma, "export", "--db", db)
    for args in (
        ("release", "where Zara lives"),
        ("purge", "Zara's address", "--yes"),
        ("supersede", "Zara's city", "Zara lives in Rye."),
    ):
        result = orma(*args, "--db", db)
        assert result.exit_code == 2, result.stderr
        assert "- Zara Quint" in result.stderr and "- Zara Marsh" in result.stderr
    assert _ok(orma, "export", "--db", db) == before


def test_all_acts_on_each_person_a_first_name_stood_for(orma: Orma, db: Path) -> None:
    for note in ("Zara Quint lives in Hove.", "Zara Marsh lives in Ely.", "Zara Quint sings."):
        _ok(orma, "add", note, "--db", db)
    _ok(orma, "release", "where Zara lives", "--all", "--db", db)
    shown = _ok(orma, "search", "Zara", "--db", db)
    assert "Hove" not in shown and "Ely" not in shown
    assert "sings" in shown  # her other line is not where she lives
    _ok(orma, "purge", "Zara's singing", "--all", "--yes", "--db", db)
    assert "sings" not in _ok(orma, "search", "Zara", "--db", db)


def test_supersede_all_corrects_each_person_a_first_name_stood_for(orma: Orma, db: Path) -> None:
    for note in ("Zara Quint lives in Hove.", "Zara Marsh lives in Ely."):
        _ok(orma, "add", note, "--db", db)
    said = _ok(orma, "supersede", "Zara's city", "Zara moved to Rye.", "--all", "--db", db)
    assert said.count("Corrected 1 passage") == 2
    shown = _ok(orma, "search", "Where does Zara live?", "--db", db)
    assert "Hove" not in shown and "Ely" not in shown and "Rye" in shown
