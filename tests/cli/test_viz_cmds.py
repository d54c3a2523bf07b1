"""``orma viz``: a real process serves the page for the local database with no LLM running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from orma_proxy import Memory, OrmaConfig
from orma_proxy.cli.viz_cmds import can_show_browser, page_url
from orma_proxy.embed.onnx import OnnxEmbedder
from tests.helpers.cli import Orma
from tests.helpers.serving import free_port


def _wait_for(url: str, proc: subprocess.Popen[str], timeout: float = 120.0) -> httpx.Response:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"orma viz exited {proc.returncode}")
        try:
            return httpx.get(url, timeout=5)
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError(f"{url} never answered")


@pytest.mark.slow
@pytest.mark.both_backends
def test_orma_viz_serves_the_page_without_an_llm_and_never_consolidates(
    tmp_path: Path, embedder: OnnxEmbedder, config: OrmaConfig
) -> None:
    db = config.db_url or config.resolved_db_path()
    with Memory(config=config, embedder=embedder) as mem:
        mem.forbid("Never chain PowerShell commands with semicolons.", space="alice")
        mem.add("I live in Pune.", space="alice")
    port = free_port()
    env = {
        **os.environ,
        "ORMA_DIR": str(tmp_path / "home"),
        "HF_HUB_OFFLINE": "1",
        "ORMA_UPSTREAM": f"http://127.0.0.1:{free_port()}/v1",  # nothing listens there
        "ORMA_SLEEP_IDLE_SECONDS": "0",  # a proxy would consolidate the note at once
        "ORMA_SLEEP_POLL_SECONDS": "0.2",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli.app", "viz", "--db", str(db), "--port", str(port),
         "--space", "alice", "--no-open"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url == f"http://127.0.0.1:{port}/_orma/viz?space=alice"
        page = _wait_for(url, proc)
        assert page.status_code == 200 and "<title>Orma · memory</title>" in page.text
        root = httpx.get(f"http://127.0.0.1:{port}/")  # not the absent upstream's 502
        assert root.status_code == 200 and root.text == page.text
        assert root.headers["content-security-policy"] == page.headers["content-security-policy"]
        for asset in ("viz.js", "viz.css", "vendor/3d-force-graph.min.js"):
            answer = httpx.get(f"http://127.0.0.1:{port}/_orma/viz/static/{asset}")
            assert answer.status_code == 200 and len(answer.content) > 1000, asset
        api = f"http://127.0.0.1:{port}/_orma/api"
        graph = httpx.get(f"{api}/graph", params={"space": "alice"}).json()
        labels = {node["label"]: node["kind"] for node in graph["nodes"]}
        assert labels["FORBIDDEN: chain PowerShell commands with semicolons"] == "rule"
        preview = httpx.post(f"{api}/recall", json={"query": "Where do I live?", "space": "alice"})
        # The fact was drawn as the note was stored; the episodes still wait for sleep.
        assert preview.status_code == 200 and "[user.home city: Pune]" in preview.json()["block"]
        time.sleep(1.0)
        feed = httpx.get(f"{api}/pending", params={"space": "alice"}).json()
        assert feed["sleep_running"] is False
        assert feed["pending"] == len(feed["episodes"]) == 2  # the rule's note and the fact
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            err = proc.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            proc.kill()
            err = proc.communicate()[1]
    assert proc.returncode == 130, err  # Ctrl-C, after a clean shutdown:
    assert "Application shutdown complete." in err
    assert f"Orma viz of {db} on {url}" in err
    assert "orma viz: database" in err and "orma proxy" not in err  # it names itself


def test_orma_viz_refuses_a_database_that_is_not_there(orma: Orma, tmp_path: Path) -> None:
    result = orma("viz", "--db", tmp_path / "typo.db", "--no-open")
    assert result.exit_code == 1
    assert "no memory at" in result.output and "typo.db" in result.output
    assert not (tmp_path / "typo.db").exists()


def test_the_browser_opens_only_where_a_window_can_appear() -> None:
    assert can_show_browser({"DISPLAY": ":0"}, "linux")
    assert can_show_browser({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert not can_show_browser({}, "linux")  # a server, a container, CI
    assert can_show_browser({}, "darwin") and can_show_browser({}, "win32")
    assert not can_show_browser({"SSH_CONNECTION": "10.0.0.2 5 10.0.0.1 22"}, "darwin")


def test_the_printed_url_names_the_space() -> None:
    assert page_url("http://127.0.0.1:8765", None) == "http://127.0.0.1:8765/_orma/viz"
    assert page_url("http://h:1", "bob's notes") == "http://h:1/_orma/viz?space=bob%27s%20notes"
