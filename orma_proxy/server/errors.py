"""The one place errors become OpenAI-style JSON: ``{"error": {message, type, code}}``."""

from __future__ import annotations

import json
import logging

import httpx
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from orma_proxy.errors import (
    AmbiguousDescriptionError,
    InputError,
    NothingMatchedError,
    ProxyError,
    ReadOnlyError,
)

log = logging.getLogger(__name__)


def error_payload(message: str, type_: str, code: str) -> dict[str, dict[str, str]]:
    return {"error": {"message": message, "type": type_, "code": code}}


def error_response(status: int, message: str, type_: str, code: str) -> JSONResponse:
    return JSONResponse(error_payload(message, type_, code), status_code=status)


def upstream_failure(exc: httpx.HTTPError) -> tuple[int, str, str]:
    """(status, message, code) for a transport error talking to the upstream."""
    if isinstance(exc, httpx.TimeoutException):
        return 504, f"the upstream LLM server did not answer in time ({exc!r})", "upstream_timeout"
    if isinstance(exc, httpx.ConnectError):
        return 502, f"cannot connect to the upstream LLM server ({exc})", "upstream_unreachable"
    return 502, f"the upstream LLM server failed ({exc!r})", "upstream_error"


def stream_error_event(exc: httpx.HTTPError, *, ndjson: bool) -> bytes:
    """An error after streaming began: an SSE ``data: {"error"...}`` then ``[DONE]``."""
    _, message, code = upstream_failure(exc)
    payload = error_payload(message, "upstream_error", code)
    if ndjson:
        return json.dumps({"error": message, "done": True}).encode() + b"\n"
    return b"data: " + json.dumps(payload).encode() + b"\n\ndata: [DONE]\n\n"


async def proxy_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProxyError)
    return error_response(exc.status, str(exc), "invalid_request_error", exc.code)


async def input_error(request: Request, exc: Exception) -> Response:
    """Input the memory refused (an empty query, a bad space name): the caller's mistake."""
    return error_response(400, str(exc), "invalid_request_error", "invalid_request")


def _with_candidates(exc: Exception, status: int, code: str) -> Response:
    candidates = getattr(exc, "candidates", [])
    error = {"message": str(exc), "type": "invalid_request_error", "code": code}
    return JSONResponse({"error": {**error, "candidates": candidates}}, status_code=status)


async def ambiguous_error(request: Request, exc: Exception) -> Response:
    """A forgetting request that could mean several things: 409, with what it could mean."""
    assert isinstance(exc, AmbiguousDescriptionError)
    return _with_candidates(exc, 409, "ambiguous_description")


async def nothing_matched_error(request: Request, exc: Exception) -> Response:
    """A forgetting request that matched nothing: 404, with the closest lines."""
    assert isinstance(exc, NothingMatchedError)
    return _with_candidates(exc, 404, "nothing_matched")


async def read_only_error(request: Request, exc: Exception) -> Response:
    """A write to a database this server may only read (``orma viz`` of another's file)."""
    return error_response(403, str(exc), "invalid_request_error", "read_only_database")


async def upstream_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, httpx.HTTPError)
    status, message, code = upstream_failure(exc)
    log.warning("%s %s -> %d: %s", request.method, request.url.path, status, message)
    return error_response(status, message, "upstream_error", code)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return error_response(exc.status_code, str(exc.detail), "invalid_request_error", code)


EXCEPTION_HANDLERS = {
    ProxyError: proxy_error,
    AmbiguousDescriptionError: ambiguous_error,
    NothingMatchedError: nothing_matched_error,
    InputError: input_error,
    ReadOnlyError: read_only_error,
    httpx.HTTPError: upstream_error,
    HTTPException: http_error,
}
