"""What a command that embeds nothing loads: no model runtime, no server, no HTTP client.

Each command runs as ``orma`` runs it (``main()``, which builds only the command
named), in a new process, on a memory holding an embedded note.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orma_proxy import Memory
from orma_proxy.cli.app import GROUPS, app, app_for
from tests.helpers.cli import Orma
from tests.helpers.embedders import HashingEmbedder

# Run the command in this process as the console script does, then name what it imported.
_RUN_AND_LIST = """
import sys
from orma_proxy.cli.app import main
sys.argv = ["orma", *sys.argv[1:]]
try:
    main()
except SystemExit as done:
    print("exit", done.code)
import gc
print("frozen:", gc.get_freeze_count() > 0)
heavy = (
    "onnxruntime", "onnx", "tokenizers", "huggingface_hub", "uvicorn", "starlette", "mcp",
    "httpx", "dateparser",
)
light = ("pydantic", "numpy", "sqlite_vec", "orma_proxy.memory", "orma_proxy.store")
print("heavy:", [name for name in heavy if name in sys.modules])
print("light:", [name for name in light if name in sys.modules])
"""


def _loaded(args: list[str], db: Path, home: Path) -> tuple[str, str, str]:
    env = {**os.environ, "ORMA_DB": str(db), "ORMA_DIR": str(home)}
    env |= {"XDG_CACHE_HOME": str(home / "cache"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    *_, heavy, light = done.stdout.splitlines()
    return done.stdout, heavy, light


@pytest.mark.parametrize(
    "args",
    [["--help"], ["stats"], ["facts"], ["config"], ["export"], ["forget", "7"]],
)
def test_a_command_loads_no_model_and_no_server_unless_it_needs_them(
    orma: Orma, tmp_path: Path, orma_home: Path, args: list[str]
) -> None:
    db = tmp_path / "memory.db"
    assert orma("add", "My dog is called Rex.", "--db", db).exit_code == 0
    out, heavy, light = _loaded(args, db, orma_home)
    assert heavy == "heavy: []", out
    assert "frozen: True" in out.splitlines(), out  # the start-up heap, out of the collector
    if args == ["--help"]:  # typer and rich alone: no settings, no memory
        assert light == "light: []", out
    else:  # nothing is embedded: no numpy (sqlite-vec's package would import it)
        assert "numpy" not in light and "sqlite_vec" not in light, out
    if args not in (["--help"], ["config"]):
        wanted = "exit 2" if args[0] == "forget" else "exit 0"  # forget 7: no such state
        assert wanted in out.splitlines(), out
        assert "orma_proxy.memory" in light, out  # it did open the memory


@pytest.mark.parametrize("args", [["stats"], ["export"]])
def test_a_memory_made_with_bge_opens_without_its_files_when_nothing_is_embedded(
    tmp_path: Path, orma_home: Path, args: list[str]
) -> None:
    """The model a database names is looked for when it first embeds: offline, with bge's
    files nowhere, a command that embeds nothing still runs, without huggingface_hub."""
    db = tmp_path / "memory.db"
    with Memory(path=db, embedder=HashingEmbedder(384, "BAAI/bge-small-en-v1.5")) as mem:
        mem.add("My dog is called Rex.")
    out, heavy, _ = _loaded(args, db, orma_home)
    assert "exit 0" in out.splitlines(), out
    assert heavy == "heavy: []", out


def test_a_command_run_in_a_hosts_process_leaves_its_collector_alone(orma: Orma) -> None:
    before = gc.get_freeze_count()
    assert orma("config").exit_code == 0
    assert gc.get_freeze_count() == before


def test_main_builds_only_the_command_named() -> None:
    """``orma stats`` reads one command's signature, not two dozen; anything else, the whole app."""
    names = {
        command.name or command.callback.__name__.replace("_", "-")
        for group in GROUPS
        for command in group.registered_commands
        if command.callback is not None
    }
    assert {"stats", "search", "import", "forget", "add"} <= names
    for name in names:
        for args in ([name], ["-v", name, "--json"], ["--verbose", name]):
            (only,) = app_for(args).registered_commands
            assert only.name == name or only.callback.__name__ == name.replace("-", "_")
    for args in ([], ["--help"], ["--version"], ["stat"], ["--install-completion", "stats"]):
        assert app_for(args) is app


@pytest.mark.parametrize("args", [["stats", "--help"], ["import", "--help"], ["search"]])
def test_a_command_alone_says_what_it_says_in_the_whole_app(args: list[str]) -> None:
    runner = CliRunner()
    alone, whole = runner.invoke(app_for(args), args), runner.invoke(app, args)
    assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output)
    assert alone.output.strip()
