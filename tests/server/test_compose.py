"""``docker-compose.yml``: what it says is what the app reads, and its replicas share one memory.

No Docker engine runs here: the file is read as YAML, its names are checked
against what Orma reads, and its replicas' command and environment are run as
processes on the tests' PostgreSQL, the way the containers would run them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from typer.main import get_command

from orma_proxy.cli.app import app
from orma_proxy.config import OrmaConfig
from orma_proxy.config_load import load_config
from orma_proxy.server.auth import parse_keys
from tests.helpers.rawdb import rows
from tests.helpers.scripted_upstream import Upstream
from tests.helpers.serving import free_port, wait_until_healthy

ROOT = Path(__file__).resolve().parents[2]
REPLICAS = ("orma-1", "orma-2")
KEY = "sk-team"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text("utf-8"))
    return loaded


def dockerfile_env() -> dict[str, str]:
    """The ``ENV`` the image sets for the ``orma`` user (its last ``ENV`` block)."""
    text = (ROOT / "Dockerfile").read_text("utf-8")
    block = re.findall(r"^ENV ((?:.*\\\n)*.*)$", text, re.MULTILINE)[-1]
    return dict(pair.split("=", 1) for pair in block.replace("\\\n", " ").split())


def substituted(value: str, given: Mapping[str, str]) -> str:
    """Compose's ``${NAME:-default}`` and ``${NAME:?error}`` with ``given`` as the shell's."""

    def one(match: re.Match[str]) -> str:
        name, how, fallback = match.group(1), match.group(2), match.group(3)
        if given.get(name):
            return given[name]
        assert how == ":-", f"{name} must be set: {fallback}"
        return fallback

    return re.sub(r"\$\{(\w+)(:[-?])([^}]*)\}", one, value)


def test_the_compose_file_names_what_the_image_and_the_app_read() -> None:
    services = compose()["services"]
    assert set(services) == {"db", *REPLICAS}
    assert services["db"]["image"] == "pgvector/pgvector:pg16"
    assert "pg_isready" in services["db"]["healthcheck"]["test"]
    cmd = re.search(r"^CMD (\[.*\])$", (ROOT / "Dockerfile").read_text("utf-8"), re.MULTILINE)
    assert cmd is not None
    image_port = dockerfile_env()["ORMA_PORT"]
    ports = []
    for name in REPLICAS:
        replica = services[name]
        assert replica["build"] == "." and (ROOT / "Dockerfile").is_file()
        assert replica["command"] == json.loads(cmd.group(1))  # the image's own command
        assert replica["depends_on"]["db"]["condition"] == "service_healthy"
        assert f"127.0.0.1:{image_port}/health" in " ".join(replica["healthcheck"]["test"])
        ports += [port.split(":") for port in replica["ports"]]
        env = {
            k: substituted(v, {"ORMA_API_KEYS": "sk-me=*"})
            for k, v in replica["environment"].items()
        }
        assert set(env) <= {*dockerfile_env(), "ORMA_DB", "ORMA_API_KEYS", "ORMA_EMBED_MODEL"}
        config = load_config(OrmaConfig, environ={**dockerfile_env(), **env}).config
        assert config.db_url == "postgresql://orma:orma@db:5432/orma" and config.db_path is None
        assert config.upstream == "http://host.docker.internal:11434/v1"
        assert (config.host, config.port) == ("0.0.0.0", int(image_port))
        assert parse_keys(env["ORMA_API_KEYS"]) == {"sk-me": ["*"]}
        with pytest.raises(AssertionError, match="ORMA_API_KEYS must be set"):
            substituted(replica["environment"]["ORMA_API_KEYS"], {})
        # The command parses with the CLI's real options.
        group = get_command(app)
        with group.make_context("orma", list(replica["command"][1:])) as parent:
            sub = group.get_command(parent, replica["command"][1])
            assert sub is not None
            sub.make_context(replica["command"][1], list(replica["command"][2:]), parent=parent)
    assert sorted(host for host, _ in ports) == ["8081", "8082"]
    assert {inside for _, inside in ports} == {image_port}


@contextmanager
def replica(name: str, pg_url: str, upstream: Upstream, home: Path) -> Iterator[str]:
    """One replica as its container runs it: the compose command and environment."""
    service = compose()["services"][name]
    env = {
        k: substituted(v, {"ORMA_API_KEYS": f"{KEY}=*"}) for k, v in service["environment"].items()
    }
    port = free_port()
    env |= {
        "ORMA_DB": pg_url,  # the tests' server instead of the host `db`
        "ORMA_UPSTREAM": f"{upstream.url}/v1",
        "ORMA_DIR": str(home / name),
        "ORMA_HOST": "127.0.0.1",
        "ORMA_PORT": str(port),
        "HF_HUB_OFFLINE": "1",
    }
    orma, *args = service["command"]
    assert orma == "orma"  # the console script is `python -m orma_proxy.cli`
    process = subprocess.Popen(
        [sys.executable, "-m", "orma_proxy.cli", *args], cwd=ROOT,
        env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(url, process, name)
        yield url
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=60)[0].decode()
    assert "Traceback" not in output, output


@pytest.mark.slow
def test_the_compose_replicas_share_one_memory(
    pg_url: str, upstream: Upstream, tmp_path: Path
) -> None:
    key = {"authorization": f"Bearer {KEY}", "x-orma-space": "sam"}

    def chat(url: str, text: str) -> None:
        body = {"model": "m", "messages": [{"role": "user", "content": text}]}
        answer = httpx.post(f"{url}/v1/chat/completions", json=body, headers=key, timeout=60)
        assert answer.status_code == 200, answer.text

    with ExitStack() as stack:
        first, second = (
            stack.enter_context(replica(n, pg_url, upstream, tmp_path)) for n in REPLICAS
        )
        chat(first, "I keep the spare key under the blue flowerpot.")
        deadline = time.monotonic() + 30
        while len(rows(pg_url, "SELECT id FROM episodes WHERE space = 'sam'")) < 2:
            assert time.monotonic() < deadline, "the first replica never recorded the turn"
            time.sleep(0.1)
        chat(second, "Where is the spare key?")
        system = upstream.recorded.requests[-1]["json"]["messages"][0]
        assert system["role"] == "system" and "blue flowerpot" in system["content"]
        health = httpx.get(f"{second}/health", headers=key, timeout=30).json()
        assert health["database"]["episodes"] == 4  # both turns, both answers, one database
