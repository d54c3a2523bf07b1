"""bench.threads_vs_aiosqlite: aiosqlite is measured against, never depended on."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from bench import threads_vs_aiosqlite

ROOT = Path(__file__).resolve().parents[2]


def test_without_aiosqlite_the_bench_says_so_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "aiosqlite", None)  # an import of it raises ImportError
    assert threads_vs_aiosqlite.main(["--rounds", "1"]) == 2
    said = capsys.readouterr()
    assert said.out == "" and "not an Orma dependency" in said.err
    assert "pip install aiosqlite" in said.err


def test_aiosqlite_is_no_dependency_and_the_architecture_says_why() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project["dependencies"]]
    declared += [d for group in project.get("optional-dependencies", {}).values() for d in group]
    assert not [d for d in declared if d.lower().startswith("aiosqlite")]
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "python -m bench.threads_vs_aiosqlite" in architecture
    assert "What would bring it back" in architecture
