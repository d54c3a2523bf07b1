"""What a hostile but ordinary client tries: key-less paths to the upstream, odd space
names, lone surrogates, deep nesting and huge numbers. Never a 500, never a dropped
connection, never the upstream's key for a caller without a valid key."""

from __future__ import annotations

import json
from urllib.parse import unquote

import httpx
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.cli.serve_cmds import proxy_config
from orma_proxy.embed.onnx import OnnxEmbedder
from orma_proxy.errors import ConfigError
from orma_proxy.server.auth import parse_keys
from orma_proxy.server.paths import normal_path
from tests.helpers.proxy import UPSTREAM_KEY, Proxy, episodes, wait_for_episodes
from tests.helpers.scripted_upstream import Upstream

CHAT = {"model": "m", "messages": [{"role": "user", "content": "What is my secret?"}]}


def bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}


def raw_get(url: str, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """A GET whose path goes on the wire exactly as written (no client-side clean-up)."""
    with httpx.Client() as client:
        request = client.build_request("GET", url, headers=headers)
        request.url = request.url.copy_with(raw_path=path.encode("ascii"))
        return client.send(request)


def test_without_a_key_nothing_but_the_web_ui_page_reaches_the_upstream(
    guarded: str, upstream: Upstream
) -> None:
    for path in ("/anything", "/props", "/slots", "//v1/models", "/V1/models", "/v1//models",
                 "/x/../v1/models", "/%2Fv1/models", "/%76%31/models", "/v1/./models"):  # fmt: skip
        answer = raw_get(guarded, path)
        assert answer.status_code == 401, path
        assert UPSTREAM_KEY not in answer.text
    assert not upstream.recorded.requests
    page = httpx.get(f"{guarded}/")
    assert page.status_code == 200 and "test web ui" in page.text
    (loaded,) = upstream.recorded.requests
    assert "authorization" not in loaded["headers"]  # neither the client's nor the upstream's
    with_key = httpx.get(f"{guarded}/", headers=bearer("key-alice"))
    assert with_key.status_code == 200
    assert upstream.recorded.requests[-1]["headers"]["authorization"] == f"Bearer {UPSTREAM_KEY}"


def test_odd_spellings_of_a_path_reach_the_upstream_as_one(
    guarded: str, upstream: Upstream
) -> None:
    for path in ("//v1/models", "/v1//models", "/x/../v1/models", "/%2Fv1/models"):
        answer = raw_get(guarded, path, bearer("key-alice"))
        assert answer.status_code == 200, path
        assert upstream.recorded.requests[-1]["path"] == "/v1/models"
    assert normal_path("/a//b/./c/../d/") == "/a/b/d/"
    assert normal_path("/../../etc") == "/etc"
    assert normal_path("/") == "/"


def test_control_characters_in_a_path_are_a_400(guarded: str, upstream: Upstream) -> None:
    answer = raw_get(guarded, "/v1/models%00x", bearer("key-admin"))
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert not upstream.recorded.requests


def test_slots_show_every_spaces_prompt_so_only_an_admin_key_reads_them(
    guarded: str, upstream: Upstream
) -> None:
    denied = httpx.get(f"{guarded}/slots", headers=bearer("key-alice"))
    assert denied.status_code == 403 and denied.json()["error"]["code"] == "space_forbidden"
    assert httpx.get(f"{guarded}/slots/0", headers=bearer("key-alice")).status_code == 403
    assert not upstream.recorded.requests
    assert httpx.get(f"{guarded}/slots", headers=bearer("key-admin")).status_code == 200


@pytest.mark.parametrize("spec", ["sk-guest=", "sk-bob= , ", "a=x;sk-bob=", "a=x\n=bob"])
def test_a_key_with_an_empty_space_list_is_refused_by_position(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"API key #\d") as caught:
        parse_keys(spec)
    assert "sk-guest" not in str(caught.value) and "sk-bob" not in str(caught.value)
    common = {
        "upstream": "http://127.0.0.1:11434/v1", "model": None, "port": 8080, "host": None,
        "db": None, "api_keys_file": None, "upstream_api_key": None, "insecure": False,
    }  # fmt: skip
    with pytest.raises(ConfigError, match=r"API key #\d"):
        proxy_config(api_keys=spec, **common)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="API key #1"):
        OrmaConfig(api_keys={"k": []})
    with pytest.raises(ValueError, match="API key #1"):
        OrmaConfig(api_keys={"k": [" "]})
    assert parse_keys("bare; k=*") == {"bare": ["*"], "k": ["*"]}


@pytest.mark.both_backends
def test_health_without_a_key_says_only_the_status(guarded: str, config: OrmaConfig) -> None:
    bare = httpx.get(f"{guarded}/health")
    assert bare.status_code == 200 and bare.json() == {"status": "ok"}
    alice = httpx.get(f"{guarded}/health", headers=bearer("key-alice")).json()
    assert alice["database"]["spaces"] == {"alice": 1}
    assert "path" not in alice["database"] and "url" not in alice["upstream"]
    assert "bob" not in json.dumps(alice)
    admin = httpx.get(f"{guarded}/health", headers=bearer("key-admin")).json()
    where = config.db_url or str(config.resolved_db_path())  # a URL has no password here
    assert admin["database"]["episodes"] == 2 and admin["database"]["path"] == where
    assert admin["upstream"]["url"].endswith("/v1")


NAMES = ["张三", "Ω", "🙂", "Zoë Å"]


@pytest.mark.both_backends
@pytest.mark.parametrize("route", ["/v1/chat/completions", "/chat/completions", "/api/chat"])
def test_any_unicode_space_name_goes_through_and_is_kept_exactly(
    proxy: Proxy, embedder: OnnxEmbedder, route: str
) -> None:
    stream = {"stream": False}
    for number, name in enumerate(NAMES):
        chat = {**CHAT, **stream, "messages": [{"role": "user", "content": f"Note {number}."}]}
        ways: list[tuple[dict[str, bytes], dict[str, object]]] = [
            ({}, {**chat, "user": name}),
            ({"x-orma-space": name.encode()}, chat),  # UTF-8 bytes, as clients send them
            ({"x-openwebui-user-id": name.encode()}, chat),
        ]
        for headers, body in ways:
            answer = httpx.post(f"{proxy.url}{route}", json=body, headers=headers)
            assert answer.status_code == 200, (name, headers)
            echoed = answer.headers["x-orma-space"]
            assert echoed.isascii() and unquote(echoed) == name
        rows = wait_for_episodes(proxy.config, 6, space=name)
        assert [text for role, text, _ in rows if role == "user"] == [f"Note {number}."] * 3


@pytest.mark.parametrize("name", ["a\x00b", "line\nbreak", "x" * 201, "a\u2028b"])
def test_a_space_name_with_control_characters_is_a_400(proxy: Proxy, name: str) -> None:
    for route in ("/v1/chat/completions", "/api/chat"):
        answer = httpx.post(f"{proxy.url}{route}", json={**CHAT, "user": name})
        assert answer.status_code == 400, name
        assert answer.json()["error"]["type"] == "invalid_request_error"
    assert not [r for r in proxy.upstream.recorded.requests if r["path"] != "/props"]


@pytest.mark.both_backends
def test_lone_surrogates_are_carried_not_a_500_and_the_turn_is_recorded(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    with Memory(config=proxy.config, embedder=embedder) as mem:
        mem.add("The spare key is under the blue flowerpot.")
    raw = (
        '{"model": "m\\ud800", "vendor_field": "x\\udfff", "stream": false, "messages": '
        '[{"role": "user", "content": "Where is the spare key \\ud83d?"}]}'
    )
    answer = httpx.post(
        f"{proxy.url}/v1/chat/completions",
        content=raw.encode(),
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 200
    sent = proxy.upstream.recorded.requests[-1]["json"]
    assert sent["model"] == "m\ud800" and sent["vendor_field"] == "x\udfff"
    assert sent["messages"][-1]["content"] == "Where is the spare key \ud83d?"
    assert "blue flowerpot" in sent["messages"][0]["content"]
    rows = wait_for_episodes(proxy.config, 3)
    assert ("user", "Where is the spare key \ufffd?") in [(r[0], r[1]) for r in rows]


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_deeply_nested_json_is_a_400_everywhere(proxy: Proxy) -> None:
    nested = '{"model": "m", "messages": [], "x": ' + deep(5000) + "}"
    for route in ("/v1/chat/completions", "/api/chat", "/_orma/forget", "/_orma/api/recall"):
        answer = httpx.post(f"{proxy.url}{route}", content=nested.encode())
        assert answer.status_code == 400, route
        assert "nested too deeply" in answer.json()["error"]["message"]


@pytest.mark.both_backends
def test_huge_numbers_and_surrogates_on_orma_endpoints_are_400s(
    proxy: Proxy, embedder: OnnxEmbedder
) -> None:
    with Memory(config=proxy.config, embedder=embedder) as mem:
        mem.add("I live in Pune.")
    huge = "99999999999999999999999"
    tries = [
        ("POST", "/_orma/api/recall", '{"query": "\\ud800"}'),
        ("POST", "/_orma/api/recall", '{"query": "Pune", "space": "\\ud800"}'),
        ("GET", f"/_orma/api/node/state:{huge}", None),
        ("GET", "/_orma/api/node/state:\u00b2", None),
        ("GET", "/_orma/api/graph?limit=\u00b2", None),
        ("POST", f"/_orma/api/state/{huge}/forget", None),
        ("POST", "/_orma/forget", '{"operation": "supersede", "old": ' + huge + ', "new": "x"}'),
        ("POST", "/_orma/forget", '{"operation": "purge", "ids": [' + huge + "]}"),
        ("POST", "/_orma/forget", '{"operation": "unrelease", "release_id": ' + huge + "}"),
        ("POST", "/_orma/forget", '{"operation": "release", "query": "\\udc00"}'),
        ("GET", "/_orma/last?space=%00", None),
    ]
    for method, path, body in tries:
        answer = httpx.request(method, f"{proxy.url}{path}", content=body)
        assert answer.status_code == 400, (path, body, answer.text)
        assert answer.json()["error"]["type"] == "invalid_request_error"
    assert episodes(proxy.config)[0][1] == "I live in Pune."
