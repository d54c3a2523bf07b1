"""Issue 21's replica bar, reduced: two ``orma proxy`` processes on one PostgreSQL database.

``bench.replicas`` with 10 users on the session's pgserver: every turn recorded once,
each user's code recalled by the other replica, every episode consolidated by exactly
one batch, and a replica killed with SIGKILL mid-batch whose space the other completes
once the lease expires.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT


@pytest.mark.slow
def test_two_replicas_record_once_recall_across_and_sleep_once_through_a_kill(
    pg_url: str,
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.replicas", "--chats", "10", "--again", "4",
         "--lease", "4", "--db", pg_url],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    out = run.stdout
    assert "errors 0" in out and "bars: all met" in out, out
    assert "turns recorded: 24 user, 24 assistant, recorded twice 0" in out, out
    assert "recalled on the other replica: 10 of 10" in out, out
    assert "twice or more 0, never 0" in out, out
    assert "kill -9 mid-batch: the replica held user" in out, out
