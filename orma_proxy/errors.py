"""The exception tree. Every error Orma raises on purpose is an ``OrmaError``.

The proxy maps these to OpenAI-style JSON in one place (``server/errors.py``);
the CLI turns them into one line and a non-zero exit.
"""

from __future__ import annotations

__all__ = [
    "AmbiguousDescriptionError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigError",
    "DatabaseUnavailableError",
    "EmbedderError",
    "EmbedderMismatchError",
    "ExtractionError",
    "InputError",
    "LeaseHeldError",
    "ModelUnavailableError",
    "NotAnOrmaDatabaseError",
    "NothingMatchedError",
    "OrmaError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ProxyError",
    "ReadOnlyError",
    "SchemaTooNewError",
    "SleepError",
    "StoreError",
    "UnreadableFileError",
    "UnsureWriteError",
    "UpstreamUnavailableError",
]


class OrmaError(Exception):
    """Base of every error Orma raises on purpose."""


class ConfigError(OrmaError, ValueError):
    """A configuration value is unknown or invalid."""


class InputError(OrmaError, ValueError):
    """The caller gave input Orma cannot store or search (empty text, bad role...)."""


class AmbiguousDescriptionError(InputError):
    """A forgetting request names several people or facts; nothing was changed.

    ``candidates`` says what it could mean, so the caller can ask again more exactly.
    """

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class NothingMatchedError(InputError):
    """A forgetting request matched nothing, so nothing was changed (never a silent success).

    ``candidates``: the stored lines closest to the description, by meaning and by
    words, so the caller can say again what was meant.
    """

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class UnreadableFileError(InputError):
    """A file is missing, binary, or not valid UTF-8."""


class StoreError(OrmaError):
    """The SQLite store cannot be opened or used."""


class DatabaseUnavailableError(StoreError):
    """The database could not take a write just now (down, unreachable, disk full, locked):
    nothing of it was stored, and the same write may well succeed later."""


class UnsureWriteError(DatabaseUnavailableError):
    """The connection broke while the write was being committed: it may or may not be stored."""


class NotAnOrmaDatabaseError(StoreError):
    """The file at the database path is not SQLite, or is someone else's SQLite."""


class SchemaTooNewError(StoreError):
    """The database was written by a newer Orma; opening it would risk damage."""


class ReadOnlyError(StoreError):
    """This process may read the database but not write it (the file, its folder or mount)."""


class EmbedderMismatchError(StoreError):
    """The database's vectors were made by another embedding model than the one in use."""


class SleepError(OrmaError):
    """Sleep consolidation could not run or could not finish a batch."""


class UpstreamUnavailableError(SleepError):
    """The LLM upstream cannot be reached; sleep falls back to the rule-based extractor."""


class ExtractionError(SleepError):
    """The LLM's answer was unusable (not JSON, wrong shape, an error response)."""


class LeaseHeldError(SleepError):
    """Another consolidation (in this process or another) holds the space's lease."""


class EmbedderError(OrmaError):
    """The embedding model cannot be loaded or run."""


class ModelUnavailableError(EmbedderError):
    """The requested embedding model is neither installed nor downloadable."""


class ProxyError(OrmaError):
    """A request to the proxy that cannot be served; carries its HTTP status."""

    status = 400
    code = "invalid_request"


class BadRequestError(ProxyError):
    status = 400
    code = "invalid_request"


class PayloadTooLargeError(ProxyError):
    status = 413
    code = "payload_too_large"


class AuthenticationError(ProxyError):
    status = 401
    code = "invalid_api_key"


class PermissionDeniedError(ProxyError):
    status = 403
    code = "space_forbidden"
