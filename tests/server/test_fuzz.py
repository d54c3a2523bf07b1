"""A bounded, seeded fuzz run of the HTTP surface against a real ``orma proxy`` process:
no 5xx the proxy made itself, no dropped connection, ``/health`` after every 100."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers.processes import ROOT


@pytest.mark.slow
def test_a_seeded_fuzz_run_gets_no_orma_made_5xx_and_no_dropped_connection() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "bench.fuzz", "--requests", "600", "--seed", "7"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "Orma-made 5xx: 0" in run.stdout and "dropped connections: 0" in run.stdout
    assert "600 requests" in run.stdout and "/health every 100: 6 ok, 0 failed" in run.stdout
