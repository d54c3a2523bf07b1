"""``orma config``: the values in effect and where each came from (env, file, default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orma_proxy.cli.serve_cmds import proxy_config
from orma_proxy.config import OrmaConfig
from tests.helpers.cli import Orma


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
    # Not a terminal: one setting a line (name, value, origin, what it does), never wrapped.
    lines = table.splitlines()[1:]
    assert [line.split("\t")[0] for line in lines] == list(OrmaConfig.model_fields)
    assert all(len(line.split("\t")) == 4 for line in lines)
    assert "search_k\t7\tenv ORMA_SEARCH_K\t" in table and "\nmodel\tNone\tdefault\t" in table
    monkeypatch.setenv("ORMA_DB", "postgresql://orma:secret@db:5432/orma")
    on_server = json.loads(orma("config", "--json").stdout)
    assert (on_server["db_path"], on_server["db_url"]) == (None, "(hidden)")
    assert on_server["origins"]["db_url"] == "env ORMA_DB"
    assert "secret" not in orma("config").stdout


def test_a_bad_config_file_is_one_clear_error(orma: Orma, orma_home: Path) -> None:
    orma_home.mkdir(parents=True)
    (orma_home / "config.toml").write_text("enable_hawks = false\n")
    result = orma("config")
    assert result.exit_code == 2
    assert "unknown key 'enable_hawks' (did you mean 'enable_hawkes'?)" in result.stderr


def test_server_options_left_out_keep_the_file_s_values(orma_home: Path) -> None:
    """`orma proxy` without --upstream/--host/--port must not put its defaults over config.toml."""
    orma_home.mkdir(parents=True)
    (orma_home / "config.toml").write_text(
        'upstream = "http://10.0.0.5:8081/v1"\nport = 9090\nhost = "0.0.0.0"\ninsecure = true\n'
    )
    unset = {
        "model": None, "db": None, "api_keys": None, "api_keys_file": None,
        "upstream_api_key": None, "insecure": False,
    }  # fmt: skip
    quiet = proxy_config(upstream=None, host=None, port=None, **unset)  # type: ignore[arg-type]
    assert (quiet.upstream, quiet.host, quiet.port) == ("http://10.0.0.5:8081/v1", "0.0.0.0", 9090)
    told = proxy_config(upstream="http://127.0.0.1:1/v1", host="127.0.0.1", port=1, **unset)  # type: ignore[arg-type]
    assert (told.upstream, told.host, told.port) == ("http://127.0.0.1:1/v1", "127.0.0.1", 1)
