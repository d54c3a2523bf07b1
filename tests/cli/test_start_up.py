"""What a command that embeds nothing loads: no model runtime, no server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Run the command in this process, then name the heavy packages it imported.
_RUN_AND_LIST = """
import sys
from orma_proxy.cli.app import app
try:
    app(sys.argv[1:])
except SystemExit as done:
    print("exit", done.code)
heavy = ("onnxruntime", "onnx", "huggingface_hub", "uvicorn", "starlette", "mcp")
print("loaded:", [name for name in heavy if name in sys.modules])
"""


@pytest.mark.parametrize(
    "args",
    [["--help"], ["stats"], ["facts"], ["config"], ["export"], ["forget", "7"]],
)
def test_a_command_loads_no_model_and_no_server_unless_it_needs_them(
    tmp_path: Path, args: list[str]
) -> None:
    db = tmp_path / "memory.db"
    env = {**os.environ, "ORMA_DB": str(db), "ORMA_DIR": str(tmp_path / "home")}
    env |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.splitlines()[-1] == "loaded: []", done.stdout
