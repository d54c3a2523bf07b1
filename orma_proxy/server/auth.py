"""API keys, and which spaces each key may use.

With no keys configured the proxy is open (it binds 127.0.0.1 by default). With
keys, a request needs ``Authorization: Bearer <key>``, and a key reaches only its
own spaces, whichever way the space is asked for (header or ``user`` field).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from starlette.datastructures import Headers

from orma_proxy.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigError,
    InputError,
    PermissionDeniedError,
)
from orma_proxy.inputs import DEFAULT_SPACE, check_space

ANY_SPACE = "*"
# Header-safe ASCII kept as is in ``header_value``; everything else is percent-encoded.
_HEADER_SAFE = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '%"\\')


def parse_keys(spec: str) -> dict[str, list[str]]:
    """``"key1=alice,alice-work;key2=*"`` -> {key: spaces}; a bare key may use any space.

    ``key=`` with nothing (or only commas and blanks) after it is refused: read as
    "no spaces listed" it would have become an admin key. Errors name the key by
    its position, never by its text (it would end up in logs).
    """
    keys: dict[str, list[str]] = {}
    items = [item.strip() for item in spec.replace("\n", ";").split(";")]
    for position, item in enumerate((item for item in items if item), start=1):
        key, has_spaces, spaces = item.partition("=")
        if not key.strip():
            raise ConfigError(f"API key #{position} is empty (before its '=')")
        listed = [s.strip() for s in spaces.split(",") if s.strip()]
        if has_spaces and not listed:
            raise ConfigError(
                f"API key #{position} lists no spaces after its '=': name them, "
                "or write '=*' for a key that may use every space"
            )
        for space in listed:
            if space != ANY_SPACE:
                try:
                    check_space(space)
                except InputError as exc:
                    raise ConfigError(f"API key #{position}: {exc}") from exc
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

    @property
    def admin(self) -> bool:
        """Whether every space is open to this caller (auth off, or a ``*`` key)."""
        return self.spaces is None or ANY_SPACE in self.spaces


class Guard:
    """Checks keys and spaces for every protected request."""

    def __init__(self, keys: dict[str, list[str]]) -> None:
        self._keys = {k.encode("utf-8"): tuple(v) for k, v in keys.items()}

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def authenticate(self, headers: Headers) -> Access:
        """The caller's access; raises 401 when keys are on and the key is missing or wrong."""
        access = self.identify(headers)
        if access is None:
            raise AuthenticationError("a valid API key is required: Authorization: Bearer <key>")
        return access

    def identify(self, headers: Headers) -> Access | None:
        """The caller's access, or None when keys are on and no valid key came."""
        if not self._keys:
            return Access(None)
        scheme, _, token = headers.get("authorization", "").partition(" ")
        # Headers arrive as Latin-1 text; the bytes are what the client sent.
        presented = token.strip().encode("latin-1")
        if scheme.lower() == "bearer" and presented:
            for key, spaces in self._keys.items():
                if hmac.compare_digest(key, presented):
                    return Access(spaces)
        return None

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
        asked = space_name(header_text(headers.get(name, "")))
        if asked is not None:
            return asked
    user = body.get("user")
    return space_name(user) if isinstance(user, str) else None


def asked_space(given: object, headers: Headers) -> str | None:
    """The space named by ``given`` (a body field, a query parameter), else ``x-orma-space``."""
    return space_name(given) or space_name(header_text(headers.get("x-orma-space", "")))


def space_name(value: object) -> str | None:
    """A space asked for (stripped), None when absent or blank.

    A name that is not a valid space (control characters, lone surrogates, too
    long, not a string) is a 400, never a space of its own.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        return check_space(value.strip() if isinstance(value, str) else value)
    except InputError as exc:
        raise BadRequestError(str(exc)) from exc


def header_value(space: str) -> str:
    """The space for a response header: percent-encoded UTF-8 (``张三`` -> ``%E5%BC%A0...``).

    Header values are bytes a client reads as Latin-1; a plain ASCII name stays
    readable, anything else decodes with ``urllib.parse.unquote``.
    """
    return quote(space, safe=_HEADER_SAFE)


def header_text(value: str) -> str:
    """A header's text: UTF-8 when its bytes are (clients send names as UTF-8), else Latin-1."""
    raw = value.encode("latin-1")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return value
