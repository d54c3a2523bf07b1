"""Where configuration comes from: code > ``ORMA_*`` environment > TOML file > defaults.

Each field ``x`` is read from ``ORMA_X`` (``home`` from ``ORMA_DIR``) and from
the key ``x`` of ``<home>/config.toml`` (or the file ``ORMA_CONFIG`` names).
``ORMA_DB`` names the database as ``--db`` does (a SQLite file or a PostgreSQL
URL): it sets ``db_path`` and clears ``db_url``, and the model moves a URL to
``db_url``; it cannot be set beside ``ORMA_DB_PATH`` or ``ORMA_DB_URL``.
Values are validated by ``OrmaConfig`` itself; an unknown TOML key or a bad
value anywhere is a ``ConfigError`` naming where it came from. The origin of
every value is kept so ``orma config`` can say why a value is what it is.

The model is a parameter (``OrmaConfig.load`` passes itself): this module
knows where values come from, ``config/`` what they are, and only the
config module imports the other.
"""

from __future__ import annotations

import difflib
import json
import logging
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import NoneType
from typing import Any, Generic, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from orma_proxy.errors import ConfigError

__all__ = ["LoadedConfig", "default_home", "describe", "load_config"]

log = logging.getLogger(__name__)

ENV_PREFIX = "ORMA_"
HOME_ENV = "ORMA_DIR"
DB_ENV = "ORMA_DB"
DB_FIELDS = ("db_path", "db_url")
FILE_ENV = "ORMA_CONFIG"
FILE_NAME = "config.toml"
# Read by their own commands in their own formats, not as OrmaConfig fields.
OTHER_ENV = frozenset(
    {HOME_ENV, FILE_ENV, DB_ENV, "ORMA_API_KEYS", "ORMA_API_KEYS_FILE", "ORMA_MCP_SPACE"}
)
# Fields a variable cannot set: the proxy reads ORMA_API_KEYS as 'key=space,...;...'.
NOT_FROM_ENV = frozenset({"api_keys"})
# What sets a number documented as "None = off" (or "None asks ...") to None: neither a
# variable nor TOML can write None, and no number is spelled so.
NONE_WORDS = frozenset({"none", "off"})

DEFAULT = "default"
CODE = "code"

Model = TypeVar("Model", bound=BaseModel)


def default_home() -> Path:
    """``$ORMA_DIR`` if set, else ``~/.orma``."""
    env = os.environ.get(HOME_ENV)
    return Path(env).expanduser() if env else Path.home() / ".orma"


@dataclass(frozen=True)
class LoadedConfig(Generic[Model]):
    """The effective configuration, the origin of each value, and what was ignored."""

    config: Model
    origins: dict[str, str]
    file: Path
    file_found: bool
    ignored_env: list[str] = field(default_factory=list)


def env_name(name: str) -> str:
    return HOME_ENV if name == "home" else ENV_PREFIX + name.upper()


def load_config(
    model: type[Model],
    overrides: Mapping[str, Any] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> LoadedConfig[Model]:
    """Merge the sources into ``model``, validate once, and record where values came from."""
    environ = os.environ if environ is None else environ
    overrides = dict(overrides or {})
    fields = model.model_fields
    unknown = sorted(set(overrides) - set(fields))
    if unknown:
        raise ConfigError(f"unknown configuration key {_suggest(unknown[0], fields)}")
    from_env = _from_env(fields, environ)
    home = overrides.get("home") or from_env.get("home") or default_home()
    path = Path(environ.get(FILE_ENV) or Path(home).expanduser() / FILE_NAME).expanduser()
    from_file = _from_file(fields, path)
    origins = dict.fromkeys(fields, DEFAULT)
    values: dict[str, Any] = {}
    for source, origin in (
        (from_file, f"file {path}"),
        (from_env, "env"),
        (overrides, CODE),
    ):
        for key, value in source.items():
            values[key] = value
            origins[key] = f"env {env_name(key)}" if origin == "env" else origin
    if DB_ENV in environ and set(DB_FIELDS) <= set(fields):
        _db_from_env(environ, overrides, values, origins)
    try:
        config = model(**values)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, origins)) from None
    ignored = sorted(
        k
        for k in environ
        if k.startswith(ENV_PREFIX)
        and k not in OTHER_ENV
        and k[len(ENV_PREFIX) :].lower() not in fields
    )
    for name in ignored:
        log.warning("%s is not an Orma setting; ignored", name)
    return LoadedConfig(config, origins, path, path.is_file(), ignored)


def _db_from_env(
    environ: Mapping[str, str],
    overrides: Mapping[str, Any],
    values: dict[str, Any],
    origins: dict[str, str],
) -> None:
    """``ORMA_DB`` as ``--db``: the file or URL replaces what the file said (code still wins)."""
    for key in DB_FIELDS:
        if env_name(key) in environ:
            raise ConfigError(f"set {DB_ENV} or {env_name(key)}, not both")
    if not set(DB_FIELDS) & set(overrides):
        values.update(zip(DB_FIELDS, (environ[DB_ENV], None), strict=True))
        origins.update(dict.fromkeys(DB_FIELDS, f"env {DB_ENV}"))


def _from_env(fields: Mapping[str, FieldInfo], environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name, info in fields.items():
        raw = environ.get(env_name(name))
        if raw is None or name in NOT_FROM_ENV:
            continue
        values[name] = (
            None if _means_none(info, raw) else _env_value(name, raw, get_origin(info.annotation))
        )
    return values


def _means_none(info: FieldInfo, value: object) -> bool:
    """``none``/``off`` for a number that may be None: only numbers, so no text is taken."""
    kinds = set(get_args(info.annotation))
    return (
        NoneType in kinds
        and kinds - {NoneType} <= {int, float}
        and isinstance(value, str)
        and value.strip().lower() in NONE_WORDS
    )


def _env_value(name: str, raw: str, origin: object) -> Any:
    """A variable's text as the field wants it; pydantic converts numbers and booleans."""
    if origin is tuple:
        stripped = raw.strip()
        if stripped.startswith("["):
            return _json(name, stripped)
        return tuple(p.strip() for p in stripped.split(",") if p.strip())
    if origin is dict:
        return _json(name, raw)
    return raw


def _json(name: str, raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"{env_name(name)} is not valid JSON: {exc}") from None


def _from_file(fields: Mapping[str, FieldInfo], path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{path}: unknown key {_suggest(unknown[0], fields)}")
    return {key: None if _means_none(fields[key], v) else v for key, v in data.items()}


def _suggest(key: str, known: Mapping[str, object]) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def _explain(exc: ValidationError, origins: Mapping[str, str]) -> str:
    """One line per bad value: its key, where it came from, and what is wrong."""
    lines = []
    for error in exc.errors():
        key = str(error["loc"][0]) if error["loc"] else ""
        where = f" (from {origins.get(key, DEFAULT)})" if key else ""
        value = f" = {error['input']!r}" if key and not isinstance(error["input"], dict) else ""
        lines.append(f"{key or 'configuration'}{value}{where}: {error['msg']}")
    return "invalid configuration: " + "; ".join(lines)


def describe(loaded: LoadedConfig[Model]) -> list[tuple[str, str, str]]:
    """``(key, value, origin)`` for every field, secrets hidden, for ``orma config``."""
    rows = []
    data = loaded.config.model_dump(mode="json")
    for name, info in type(loaded.config).model_fields.items():
        value = data[name]
        if not info.repr and value:
            shown = "(set, hidden)"
        else:
            shown = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
        rows.append((name, shown, loaded.origins[name]))
    return rows
