"""Ctrl-C during ``orma add`` of a large file, in a real process: what was committed stays.

Issue 15, item 10: storing stops after the piece being committed and says how
far it got; embedding stops at once and leaves the vectors for later.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.rawdb import scalar

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _paragraphs(count: int) -> str:
    return "".join(
        f"## Note {n}\n\nThe keeper of lamp {n} writes the log. Ships pass at {n % 24} hours.\n\n"
        for n in range(count)
    )


def _start(home: Path, *args: str | Path) -> subprocess.Popen[str]:
    env = {**os.environ, "ORMA_DIR": str(home), "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli", *map(str, args)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_until(db: Path, sql: str, at_least: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if db.exists():
            try:
                if int(str(scalar(db, sql))) >= at_least:
                    return
            except Exception:  # the schema is still being made
                pass
        time.sleep(0.05)
    raise AssertionError(f"never reached {at_least} for {sql!r}")


def test_ctrl_c_while_storing_keeps_the_committed_pieces_and_says_so(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    block = _paragraphs(1500)
    big.write_text(block * (30_000_000 // len(block)), "utf-8")  # ~30 MB
    size = big.stat().st_size
    db = tmp_path / "memory.db"
    process = _start(tmp_path / "home", "add", big, "--no-wait", "--db", db)
    _wait_until(db, "SELECT count(*) FROM episodes", 25, process)  # past a second
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    stopped = re.search(
        rf"Stopped: {re.escape(str(big))} stored bytes 0-(\d+) of {size} as episodes #1-#(\d+); "
        "the rest was not added.",
        " ".join(err.split()),
    )
    assert stopped is not None, err
    end, last = int(stopped[1]), int(stopped[2])
    assert f"Added {big} as episodes #1-#{last} ({end:,} bytes" in out
    assert "Traceback" not in err
    assert re.search(r"[\d,]+ sentences, [\d,]+/s", err)  # the progress bar, past a second
    assert scalar(db, "SELECT count(*) FROM episodes") == last
    assert scalar(db, "SELECT max(metadata ->> 'file_end') FROM episodes") == end
    assert last >= 25 and end < size


def test_ctrl_c_while_embedding_keeps_everything_stored_and_leaves_vectors_pending(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(_paragraphs(2000), "utf-8")  # 6,000 sentences: a minute of embedding
    db = tmp_path / "memory.db"
    process = _start(tmp_path / "home", "add", notes, "--db", db)
    _wait_until(db, "SELECT count(*) FROM sentences WHERE embedded = 1", 1, process)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert out.startswith(f"Added {notes} as episodes #1-#")
    warning = " ".join(err.split())
    assert "warning: indexing is behind (interrupted)" in warning
    assert "Traceback" not in err
    assert scalar(db, "SELECT max(metadata ->> 'file_end') FROM episodes") == notes.stat().st_size
    pending = int(str(scalar(db, "SELECT count(*) FROM sentences WHERE embedded = 0")))
    assert 0 < pending < 6000


def test_reindex_pending_shows_the_bar_only_past_a_second(tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text(_paragraphs(800), "utf-8")  # 2,400 sentences
    db = tmp_path / "memory.db"
    home = tmp_path / "home"
    quick = _start(home, "add", "The gate code is 1912.", "--db", db)
    _, err = quick.communicate(timeout=120)
    assert quick.returncode == 0 and "sentences," not in err  # under a second: no bar

    deferred = _start(home, "add", notes, "--no-wait", "--db", db)
    deferred.communicate(timeout=120)
    assert deferred.returncode == 0
    process = _start(home, "reindex", "--pending", "--db", db)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert out.startswith("Embedded 2,400 pending sentences")
    assert re.search(r"Embedding .*100% .*2,400 sentences, [\d,]+/s", " ".join(err.split()))
