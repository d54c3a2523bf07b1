"""Configuration sources: code > ORMA_* environment > TOML file > defaults, with origins."""

from __future__ import annotations

from pathlib import Path

import pytest

from orma_proxy.config import OrmaConfig
from orma_proxy.config_load import describe, load_config
from orma_proxy.errors import ConfigError


def write(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_code_beats_environment_beats_file_beats_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "budget_tokens = 1000\nsearch_k = 12\nrrf_k = 30\n")
    env = {"ORMA_DIR": str(tmp_path), "ORMA_SEARCH_K": "20", "ORMA_ENABLE_HAWKES": "false"}
    loaded = load_config(OrmaConfig, {"rrf_k": 90}, environ=env)
    config = loaded.config
    assert (config.budget_tokens, config.search_k, config.rrf_k) == (1000, 20, 90)
    assert config.enable_hawkes is False and config.enable_ebbinghaus is True
    assert loaded.origins["budget_tokens"] == f"file {path}"
    assert loaded.origins["search_k"] == "env ORMA_SEARCH_K"
    assert loaded.origins["rrf_k"] == "code"
    assert loaded.origins["enable_ebbinghaus"] == "default"
    assert loaded.origins["home"] == "env ORMA_DIR"
    rows = {name: (value, origin) for name, value, origin in describe(loaded)}
    assert rows["search_k"] == ("20", "env ORMA_SEARCH_K")


def test_tuples_and_tables_from_the_environment_and_the_file(tmp_path: Path) -> None:
    write(tmp_path, '[api_keys]\nsk-a = ["alice"]\n')
    env = {"ORMA_DIR": str(tmp_path), "ORMA_MULTI_VALUED_ATTRIBUTES": "pet, hobby"}
    config = load_config(OrmaConfig, environ=env).config
    assert config.multi_valued_attributes == ("pet", "hobby")
    assert config.api_keys == {"sk-a": ["alice"]}


def test_orma_api_keys_is_left_to_the_proxy_s_own_format(tmp_path: Path) -> None:
    env = {"ORMA_DIR": str(tmp_path), "ORMA_API_KEYS": "sk-alice=alice,work;sk-admin=*"}
    assert load_config(OrmaConfig, environ=env).config.api_keys == {}


@pytest.mark.parametrize(
    ("toml", "env", "message"),
    [
        ("budget_tokenz = 10\n", {}, "unknown key 'budget_tokenz' (did you mean 'budget_tokens'?)"),
        ("search_k = 0\n", {}, "search_k = 0 (from file"),
        ("", {"ORMA_RRF_K": "sixty"}, "rrf_k = 'sixty' (from env ORMA_RRF_K)"),
        ("budget_share_states = 0.9\n", {}, "must be at most 1"),
        ("search_k = [\n", {}, "cannot read"),
    ],
)
def test_bad_values_and_unknown_keys_say_where_they_came_from(
    tmp_path: Path, toml: str, env: dict[str, str], message: str
) -> None:
    write(tmp_path, toml)
    with pytest.raises(ConfigError) as caught:
        load_config(OrmaConfig, environ={"ORMA_DIR": str(tmp_path), **env})
    assert message in str(caught.value)


def test_unknown_code_keys_and_unknown_variables(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ConfigError, match="unknown configuration key 'serch_k'"):
        load_config(OrmaConfig, {"serch_k": 3}, environ={"ORMA_DIR": str(tmp_path)})
    loaded = load_config(OrmaConfig, environ={"ORMA_DIR": str(tmp_path), "ORMA_BUGDET_TOKENS": "9"})
    assert loaded.ignored_env == ["ORMA_BUGDET_TOKENS"]
    assert "ORMA_BUGDET_TOKENS is not an Orma setting" in caplog.text


def test_orma_config_names_another_file_and_a_missing_file_is_fine(tmp_path: Path) -> None:
    other = write(tmp_path / "elsewhere", "enable_sutra_packing = false\n")
    env = {"ORMA_DIR": str(tmp_path / "home"), "ORMA_CONFIG": str(other)}
    loaded = load_config(OrmaConfig, environ=env)
    assert loaded.config.enable_sutra_packing is False and loaded.file == other
    missing = load_config(OrmaConfig, environ={"ORMA_DIR": str(tmp_path / "none")})
    assert not missing.file_found and missing.config.enable_sutra_packing is True


def test_orma_db_names_the_database_as_db_does(tmp_path: Path) -> None:
    url = "postgresql://orma:secret@db:5432/orma"
    write(tmp_path, f'db_url = "{url}"\n')
    on_file = {"ORMA_DIR": str(tmp_path), "ORMA_DB": str(tmp_path / "other.db")}
    loaded = load_config(OrmaConfig, environ=on_file)
    assert (loaded.config.db_path, loaded.config.db_url) == (tmp_path / "other.db", None)
    assert loaded.origins["db_path"] == loaded.origins["db_url"] == "env ORMA_DB"
    on_server = load_config(OrmaConfig, environ={**on_file, "ORMA_DB": url}).config
    assert (on_server.db_path, on_server.db_url) == (None, url)
    in_code = load_config(OrmaConfig, {"db_path": tmp_path / "code.db"}, environ=on_file).config
    assert in_code.db_path == tmp_path / "code.db"
    for old in ("ORMA_DB_URL", "ORMA_DB_PATH"):
        with pytest.raises(ConfigError, match=f"set ORMA_DB or {old}, not both"):
            load_config(OrmaConfig, environ={**on_file, old: url})
    assert (
        load_config(
            OrmaConfig, environ={"ORMA_DIR": str(tmp_path), "ORMA_DB_URL": url}
        ).config.db_url
        == url
    )


def test_the_database_is_shown_without_its_password(tmp_path: Path) -> None:
    on_server = OrmaConfig(home=tmp_path).with_db("postgresql://orma:s3cret@db:5432/orma")
    assert on_server.shown_db() == "postgresql://orma:***@db:5432/orma"
    assert "s3cret" not in on_server.shown_db()
    no_password = OrmaConfig(home=tmp_path).with_db("postgresql://orma@db/orma")
    assert no_password.shown_db() == "postgresql://orma@db/orma"
    assert OrmaConfig(home=tmp_path).shown_db() == str(tmp_path / "memory.db")


def test_a_setting_documented_as_none_is_off_turns_off_from_env_and_file(tmp_path: Path) -> None:
    write(tmp_path, 'recall_topic_share = "off"\nsleep_context_tokens = "None"\n')
    env = {"ORMA_DIR": str(tmp_path), "ORMA_NOISE_FLOOR_BACKGROUND_QUANTILE": " none "}
    config = load_config(OrmaConfig, environ=env).config
    assert config.recall_topic_share is None and config.sleep_context_tokens is None
    assert config.noise_floor_background_quantile is None
    env = {"ORMA_DIR": str(tmp_path / "empty"), "ORMA_RECALL_TOPIC_SHARE": "OFF"}
    assert load_config(OrmaConfig, environ=env).config.recall_topic_share is None
    # Only numbers: a text setting keeps the word, and a required number refuses it.
    env = {"ORMA_DIR": str(tmp_path / "empty"), "ORMA_MODEL": "none"}
    assert load_config(OrmaConfig, environ=env).config.model == "none"
    with pytest.raises(ConfigError, match="ORMA_SEARCH_K"):
        load_config(OrmaConfig, environ={"ORMA_DIR": str(tmp_path), "ORMA_SEARCH_K": "off"})
