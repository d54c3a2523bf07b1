"""``orma config``: the values in effect and where each came from (env, file, default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Orma


def test_config_says_where_each_value_came_from(
    orma: Orma, orma_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    orma_home.mkdir(parents=True)
    (orma_home / "config.toml").write_text("budget_tokens = 1234\nsearch_k = 9\n")
    monkeypatch.setenv("ORMA_SEARCH_K", "7")
    result = orma("config", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert (shown["budget_tokens"], shown["search_k"], shown["rrf_k"]) == (1234, 7, 60)
    origins = shown["origins"]
    assert origins["budget_tokens"] == f"file {orma_home / 'config.toml'}"
    assert origins["search_k"] == "env ORMA_SEARCH_K"
    assert origins["rrf_k"] == "default"
    table = orma("config").stdout
    assert f"Config file: {orma_home / 'config.toml'}" in table
    assert "env ORMA_SEARCH_K" in table


def test_a_bad_config_file_is_one_clear_error(orma: Orma, orma_home: Path) -> None:
    orma_home.mkdir(parents=True)
    (orma_home / "config.toml").write_text("enable_hawks = false\n")
    result = orma("config")
    assert result.exit_code == 2
    assert "unknown key 'enable_hawks' (did you mean 'enable_hawkes'?)" in result.stderr
