"""The real ``orma`` process end to end: its own model load, stdout, stderr and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def _orma(home: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ORMA_DIR": str(home), "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "orma_proxy.cli.app", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_add_then_search_json_in_real_processes(tmp_path: Path) -> None:
    home, db = tmp_path / "home", tmp_path / "memory.db"
    added = _orma(home, "add", "My dentist is Dr. Rao in Kothrud.", "--db", db)
    assert added.returncode == 0, added.stderr
    assert added.stdout == "Added note as episode #1.\n"
    assert added.stderr == ""  # the model is named by `orma stats` (and by -v), not every command

    found = _orma(home, "search", "who is my dentist?", "--db", db, "--json")
    assert found.returncode == 0, found.stderr
    passages = json.loads(found.stdout)["passages"]
    assert passages[0]["text"] == "My dentist is Dr. Rao in Kothrud."
    assert not home.exists()  # --db was used, so the default directory was never made


def test_user_mistake_in_a_real_process_is_one_line(tmp_path: Path) -> None:
    result = _orma(tmp_path / "home", "add", "   ")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == "error: nothing to add: the note is empty\n"
