"""API keys: no key -> 401, another key's space -> 403, own space -> served; the
upstream never sees Orma's key; a public bind without keys is refused."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from orma_proxy.cli.serve_cmds import proxy_config
from orma_proxy.errors import ConfigError
from orma_proxy.server.auth import load_keys_file, parse_keys
from tests.helpers.scripted_upstream import Upstream

CHAT = {"model": "m", "messages": [{"role": "user", "content": "What is my secret?"}]}


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


@pytest.mark.both_backends
def test_requests_without_a_valid_key_get_401(guarded: str, upstream: Upstream) -> None:
    for headers in ({}, bearer("wrong"), {"authorization": "Basic a2V5LWFsaWNl"}):
        response = httpx.post(f"{guarded}/v1/chat/completions", json=CHAT, headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_api_key"
    assert httpx.get(f"{guarded}/v1/models").status_code == 401
    assert httpx.get(f"{guarded}/_orma/last").status_code == 401
    assert httpx.post(f"{guarded}/completion", json={}).status_code == 401
    assert not upstream.recorded.requests
    assert httpx.get(f"{guarded}/health").status_code == 200  # for HEALTHCHECK


@pytest.mark.both_backends
def test_a_key_only_reaches_its_own_spaces(guarded: str, upstream: Upstream) -> None:
    url = f"{guarded}/v1/chat/completions"
    own = httpx.post(url, json=CHAT, headers=bearer("key-alice"))
    assert own.status_code == 200 and own.headers["x-orma-space"] == "alice"
    assert "blue door" in upstream.recorded.requests[-1]["json"]["messages"][0]["content"]
    sent_headers = upstream.recorded.requests[-1]["headers"]
    assert sent_headers["authorization"] == "Bearer sk-upstream"
    for headers, body in (
        ({**bearer("key-alice"), "x-orma-space": "bob"}, CHAT),
        (bearer("key-alice"), {**CHAT, "user": "bob"}),
    ):
        denied = httpx.post(url, json=body, headers=headers)
        assert denied.status_code == 403 and denied.json()["error"]["code"] == "space_forbidden"
    assert "red car" not in str([r["json"] for r in upstream.recorded.requests])
    admin = httpx.post(url, json={**CHAT, "user": "bob"}, headers=bearer("key-admin"))
    assert admin.status_code == 200 and admin.headers["x-orma-space"] == "bob"
    last = httpx.get(f"{guarded}/_orma/last", params={"space": "bob"}, headers=bearer("key-alice"))
    assert last.status_code == 403


def test_public_bind_needs_keys_or_insecure(tmp_path: Path) -> None:
    common = {
        "upstream": "http://127.0.0.1:11434/v1", "model": None, "port": 8080,
        "db": tmp_path / "m.db", "api_keys_file": None, "upstream_api_key": None,
    }  # fmt: skip
    with pytest.raises(ConfigError, match="ORMA_API_KEYS"):
        proxy_config(host="0.0.0.0", api_keys=None, insecure=False, **common)  # type: ignore[arg-type]
    assert proxy_config(host="0.0.0.0", api_keys="k=a", insecure=False, **common).api_keys
    assert proxy_config(host="0.0.0.0", api_keys=None, insecure=True, **common).insecure
    assert proxy_config(host="127.0.0.1", api_keys=None, insecure=False, **common).host


def test_keys_file_and_spec_parsing(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys"
    keys_file.write_text("# comment\nk1=alice, alice-work\nk2\n")
    assert load_keys_file(keys_file) == {"k1": ["alice", "alice-work"], "k2": ["*"]}
    assert parse_keys(" a=x ; ;b=*") == {"a": ["x"], "b": ["*"]}
