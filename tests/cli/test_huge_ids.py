"""Ids and counts past SQLite's 64-bit integers: one line and exit 2, or capped; no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import Orma

HUGE = "99999999999999999999999"  # past 2**63 - 1: SQLite's driver raises OverflowError


@pytest.fixture
def stored(orma: Orma, db: Path) -> Path:
    assert orma("add", "I live in Pune.", "--db", db).exit_code == 0
    return db


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("forget", HUGE), f"no state #{HUGE}"),
        (("forget", "0"), "no state #0"),
        (("unrelease", HUGE), f"no release #{HUGE}"),
        (("supersede", f"#{HUGE}", "Bangalore"), f"no state #{HUGE}"),
        (("supersede", f"#{HUGE}", "Bangalore", "--dry-run"), f"no state #{HUGE}"),
    ],
)
def test_an_id_sqlite_cannot_hold_is_one_line_and_exit_2(
    orma: Orma, stored: Path, args: tuple[str, ...], said: str
) -> None:
    result = orma(*args, "--db", stored)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {said}: ids run from 1 to 9223372036854775807\n"
    assert result.exception is None or isinstance(result.exception, SystemExit)
    # Nothing was stored on the way: the correction's note would be a second episode.
    exported = orma("export", "--db", stored)
    assert [json.loads(line).get("type") for line in exported.stdout.splitlines()].count(
        "episode"
    ) == 1


def test_the_largest_id_sqlite_holds_is_looked_up_as_usual(orma: Orma, stored: Path) -> None:
    largest = str(2**63 - 1)
    result = orma("forget", largest, "--db", stored)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: no state #{largest} in space 'default'\n",
    )
    undo = orma("unrelease", largest, "--db", stored)
    assert undo.exit_code == 2 and undo.stderr.startswith(f"error: no release #{largest}")


@pytest.mark.parametrize(
    "args", [("audit", "--limit", HUGE), ("release", "Pune", "--max-items", HUGE, "--dry-run")]
)
def test_a_count_past_sqlite_means_all_of_them(
    orma: Orma, stored: Path, args: tuple[str, ...]
) -> None:
    result = orma(*args, "--db", stored, "--json")
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)
