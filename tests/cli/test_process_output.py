"""What a real ``orma`` process says on stderr: nothing routine, and where to find it when served.

Also a database its user may read but not write, through the real command line.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.serving import free_port
from tests.helpers.unprivileged import without_override

pytestmark = pytest.mark.slow


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "ORMA_DIR": str(home), "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}


def _argv(*args: str | Path) -> list[str]:
    return [sys.executable, "-m", "orma_proxy.cli.app", *map(str, args)]


def _run(home: Path, argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, env=_env(home), timeout=120, check=False
    )


@pytest.fixture
def db(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Path | str:
    """A memory holding one note: a file, or on ``both_backends`` a PostgreSQL database."""
    db = request.getfixturevalue("pg_url") if backend == "postgres" else tmp_path / "memory.db"
    added = _run(tmp_path / "home", _argv("add", "My dentist is Dr. Rao in Kothrud.", "--db", db))
    assert added.returncode == 0, added.stderr
    return db


def test_routine_commands_and_their_refusals_say_nothing_on_stderr(
    tmp_path: Path, db: Path
) -> None:
    home = tmp_path / "home"
    added = _run(home, _argv("add", "I live in Pune.", "--db", db))
    assert (added.returncode, added.stderr) == (0, "")  # was "INFO embedding model: ..."
    stats = _run(home, _argv("stats", "--db", db))
    assert stats.returncode == 0 and stats.stderr == ""
    assert "all-MiniLM-L6-v2-int8 (384 dims)" in stats.stdout  # where the model is told
    found = _run(home, _argv("search", "dentist", "--db", db, "--json"))
    assert found.returncode == 0 and found.stderr == ""
    assert json.loads(found.stdout)["passages"][0]["text"] == "My dentist is Dr. Rao in Kothrud."
    blank = _run(home, _argv("search", "  ", "--db", db))
    assert (blank.returncode, blank.stdout, blank.stderr) == (2, "", "error: query is empty\n")
    huge = _run(home, _argv("forget", "99999999999999999999999", "--db", db))
    assert (huge.returncode, huge.stderr) == (
        2,
        "error: no state #99999999999999999999999: ids run from 1 to 9223372036854775807\n",
    )
    told = _run(home, _argv("-v", "search", "dentist", "--db", db))  # for whoever asks
    assert "embedding model: all-MiniLM-L6-v2-int8 (384 dims, from " in told.stderr


@pytest.mark.both_backends
def test_orma_up_without_a_browser_prints_where_the_web_ui_is(
    tmp_path: Path, db: Path | str
) -> None:
    port = free_port()
    env = {**_env(tmp_path / "home"), "ORMA_UPSTREAM": f"http://127.0.0.1:{free_port()}/v1"}
    argv = _argv("up", "--no-browser", "--db", db, "--port", str(port))
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    health = None
    try:
        deadline = time.monotonic() + 120
        while health is None and proc.poll() is None and time.monotonic() < deadline:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)
            except httpx.TransportError:
                time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert health is not None and health.status_code == 200, err
    assert health.json()["database"] == {"path": str(db), "episodes": 1, "ok": True}
    assert out == f"http://127.0.0.1:{port}/\n"  # printed before serving, so it is there by now
    assert f"web UI on http://127.0.0.1:{port}/" in err


def test_a_read_only_database_through_the_command_line(tmp_path: Path, db: Path) -> None:
    home = tmp_path / "home"
    db.chmod(0o444)
    try:
        found = _run(home, without_override(_argv("search", "dentist", "--db", db, "--json")))
        assert (found.returncode, found.stderr) == (0, "")
        assert json.loads(found.stdout)["passages"][0]["text"].startswith("My dentist")
        recalled = _run(home, without_override(_argv("recall", "my dentist?", "--db", db)))
        assert (recalled.returncode, recalled.stderr) == (0, "")
        assert "Dr. Rao" in recalled.stdout
        added = _run(home, without_override(_argv("add", "A new note.", "--db", db)))
        assert (added.returncode, added.stdout) == (1, "")
        assert added.stderr == (
            f"error: {db} is read-only (this user may not write the file): search, recall, "
            "facts, stats and export work, but nothing can be stored or changed\n"
        )
    finally:
        db.chmod(0o644)


def test_orma_viz_shows_a_read_only_database(tmp_path: Path, db: Path) -> None:
    port = free_port()
    argv = without_override(_argv("viz", "--db", db, "--port", str(port), "--no-open"))
    db.chmod(0o444)
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(tmp_path / "h")
    )
    base = f"http://127.0.0.1:{port}"
    page = None
    try:
        deadline = time.monotonic() + 120
        while page is None and proc.poll() is None and time.monotonic() < deadline:
            try:
                page = httpx.get(f"{base}/_orma/viz", timeout=5)
            except httpx.TransportError:
                time.sleep(0.2)
        assert page is not None and page.status_code == 200
        graph = httpx.get(f"{base}/_orma/api/graph", params={"space": "default"}, timeout=30)
        assert graph.status_code == 200
        preview = httpx.post(f"{base}/_orma/api/recall", json={"query": "my dentist?"}, timeout=30)
        assert preview.status_code == 200 and "Dr. Rao" in preview.json()["block"]
        forget = httpx.post(f"{base}/_orma/api/state/1/forget", timeout=30)
        assert forget.status_code == 403, forget.text  # a refusal, not a crash (500)
        assert forget.json()["error"]["message"].startswith(f"{db} is read-only (")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            err = proc.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            proc.kill()
            err = proc.communicate()[1]
        db.chmod(0o644)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "could not record" not in err
