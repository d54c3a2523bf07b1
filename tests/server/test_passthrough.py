"""Everything Orma doesn't own passes through unchanged: models, embeddings, completions,
and the upstream's web UI (HTML, assets, /props) served from its root."""

from __future__ import annotations

import httpx

from tests.helpers.proxy import Proxy


def test_openai_endpoints_pass_through_untouched(proxy: Proxy) -> None:
    models = httpx.get(f"{proxy.url}/v1/models")
    assert models.status_code == 200 and models.json()["data"][0]["id"] == "test-model"
    for path in ("/v1/embeddings", "/v1/completions"):
        body = {"model": "m", "input": "hello", "prompt": "once upon", "extra": [1, 2]}
        response = httpx.post(f"{proxy.url}{path}", json=body, params={"a": "b"})
        assert response.json() == {"echo": body, "path": path, "query": "a=b"}
    assert not any(r["path"] == "/v1/chat/completions" for r in proxy.upstream.recorded.requests)


def test_web_ui_and_server_routes_come_from_the_upstream_root(proxy: Proxy) -> None:
    page = httpx.get(f"{proxy.url}/")
    assert page.status_code == 200 and "test web ui" in page.text
    assert page.headers["x-upstream"] == "webui"
    script = httpx.get(f"{proxy.url}/assets/app.js")
    assert script.headers["content-type"].startswith("application/javascript")
    assert "chat/completions" in script.text
    props = httpx.get(f"{proxy.url}/props")
    assert props.json()["default_generation_settings"]["n_ctx"] == 8192
    missing = httpx.get(f"{proxy.url}/no/such/page")
    assert missing.status_code == 404  # the upstream's own 404, relayed


def test_bare_chat_completions_path_gets_memory_too(proxy: Proxy) -> None:
    """llama-server's web UI posts to /chat/completions (no /v1)."""
    response = httpx.post(
        f"{proxy.url}/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert response.status_code == 200 and response.headers["x-orma-space"] == "default"
    assert proxy.upstream.recorded.requests[-1]["path"] == "/v1/chat/completions"
