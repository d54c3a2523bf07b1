"""Fixtures for the ``orma`` command line: real databases under tmp_path, the shared model."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from orma_proxy.cli.app import app
from orma_proxy.cli.shared_options import CliState
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.cli import Orma


@pytest.fixture(autouse=True)
def orma_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the default data directory at tmp_path so nothing touches ~/.orma."""
    home = tmp_path / "home"
    monkeypatch.setenv("ORMA_DIR", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home


@pytest.fixture
def orma(embedder: OnnxEmbedder) -> Orma:
    """Run ``orma ARGS...`` in-process with the session's already loaded model."""
    runner = CliRunner()

    def run(*args: str | Path) -> Result:
        return runner.invoke(app, [str(arg) for arg in args], obj=CliState(embedder=embedder))

    return run
