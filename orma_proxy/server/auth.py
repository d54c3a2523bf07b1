"""API keys, and which spaces each key may use.

With no keys configured the proxy is open (it binds 127.0.0.1 by default). With
keys, a request needs ``Authorization: Bearer <key>``, and a key reaches only its
own spaces, whichever way the space is asked for (header or ``user`` field).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers

from orma_proxy.errors import AuthenticationError, ConfigError, PermissionDeniedError

ANY_SPACE = "*"
DEFAULT_SPACE = "default"


def parse_keys(spec: str) -> dict[str, list[str]]:
    """``"key1=alice,alice-work;key2=*"`` -> {key: spaces}; a bare key may use any space."""
    keys: dict[str, list[str]] = {}
    for item in spec.replace("\n", ";").split(";"):
        key, _, spaces = item.strip().partition("=")
        if not key.strip():
            continue
        listed = [s.strip() for s in spaces.split(",") if s.strip()]
        keys[key.strip()] = listed or [ANY_SPACE]
    return keys


def load_keys_file(path: Path) -> dict[str, list[str]]:
    """Keys from a file in the same ``key=space,space`` format, one key per line."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the API keys file {path}: {exc.strerror}") from exc
    return parse_keys("\n".join(line for line in text.splitlines() if not line.startswith("#")))


@dataclass(frozen=True)
class Access:
    """Who is asking: the spaces their key allows (``None`` when auth is off)."""

    spaces: tuple[str, ...] | None

    def allows(self, space: str) -> bool:
        return self.spaces is None or ANY_SPACE in self.spaces or space in self.spaces


class Guard:
    """Checks keys and spaces for every protected request."""

    def __init__(self, keys: dict[str, list[str]]) -> None:
        self._keys = {k.encode("utf-8"): tuple(v) for k, v in keys.items()}

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def authenticate(self, headers: Headers) -> Access:
        """The caller's access; raises 401 when keys are on and the key is missing or wrong."""
        if not self._keys:
            return Access(None)
        scheme, _, token = headers.get("authorization", "").partition(" ")
        presented = token.strip().encode("utf-8")
        if scheme.lower() == "bearer" and presented:
            for key, spaces in self._keys.items():
                if hmac.compare_digest(key, presented):
                    return Access(spaces)
        raise AuthenticationError("a valid API key is required: Authorization: Bearer <key>")

    @staticmethod
    def space_for(access: Access, requested: str | None) -> str:
        """The space to use: the one asked for if allowed, else the key's first space."""
        if requested is None:
            if access.spaces is None or access.spaces[0] == ANY_SPACE:
                return DEFAULT_SPACE
            return access.spaces[0]
        if not access.allows(requested):
            raise PermissionDeniedError(f"this API key may not use the space {requested!r}")
        return requested


def requested_space(headers: Headers, body: dict[str, object]) -> str | None:
    """The space a request asks for: ``x-orma-space``, Open WebUI's user id, or ``user``."""
    for name in ("x-orma-space", "x-openwebui-user-id"):
        value = headers.get(name, "").strip()
        if value:
            return value
    user = body.get("user")
    if isinstance(user, str) and user.strip():
        return user.strip()
    return None
