"""Choosing the embedding model offline: fall back fast, never hang, refuse clearly."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from orma_proxy import OrmaConfig
from orma_proxy.embed.models import hub_offline, hub_reachable, load_embedder
from orma_proxy.errors import ModelUnavailableError

# Generous bounds for "never hangs": the fallback takes about a second on an idle
# laptop; huggingface_hub's own retries against a silent hub take minutes.
NEVER_HANGS_SECONDS = 20.0


@pytest.fixture
def silent_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A hub address that accepts TCP connections and never answers (a captive portal)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
        monkeypatch.setenv("HF_ENDPOINT", url)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        yield url


@pytest.fixture
def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"  # nobody listens once closed


class _Hub(BaseHTTPRequestHandler):
    def do_HEAD(self) -> None:
        self.send_response(404)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test output is not the place for access logs."""


@pytest.fixture
def answering_hub() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hub)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def timed_load(config: OrmaConfig, recorded: str | None = None) -> tuple[str, float]:
    start = time.monotonic()
    embedder = load_embedder(config, recorded)
    return embedder.model_id, time.monotonic() - start


def test_auto_with_hf_hub_offline_falls_back_to_minilm_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model, seconds = timed_load(OrmaConfig(home=tmp_path))
    assert model == "all-MiniLM-L6-v2-int8"
    assert seconds < NEVER_HANGS_SECONDS


def test_auto_with_a_hub_that_never_answers_falls_back_within_the_timeout(
    tmp_path: Path, silent_hub: str
) -> None:
    model, seconds = timed_load(OrmaConfig(home=tmp_path, hub_timeout_seconds=1.0))
    assert model == "all-MiniLM-L6-v2-int8"
    assert seconds < NEVER_HANGS_SECONDS


def test_the_model_a_database_was_built_with_wins_without_asking_the_hub(
    tmp_path: Path, silent_hub: str
) -> None:
    config = OrmaConfig(home=tmp_path, hub_timeout_seconds=30.0)
    model, seconds = timed_load(config, recorded="all-MiniLM-L6-v2-int8")
    assert model == "all-MiniLM-L6-v2-int8"
    assert seconds < 30.0  # it never waited for the silent hub's 30 s


@pytest.mark.parametrize("offline", ["1", "0"])
def test_asking_for_bge_without_the_hub_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, closed_port: str, offline: str
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", offline)
    monkeypatch.setenv("HF_ENDPOINT", closed_port)
    config = OrmaConfig(home=tmp_path, embed_model="BAAI/bge-small-en-v1.5")
    start = time.monotonic()
    embedder = load_embedder(config)  # named: its files are looked for when it first embeds
    with pytest.raises(ModelUnavailableError, match=r"bge-small-en-v1\.5 .*cannot be reached"):
        embedder.embed(["hello"])
    assert time.monotonic() - start < NEVER_HANGS_SECONDS


def test_an_unknown_model_name_is_refused_with_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailableError, match=re.escape("auto, BAAI/bge-small-en-v1.5")):
        load_embedder(OrmaConfig(home=tmp_path, embed_model="text-embedding-3-small"))


@pytest.mark.parametrize(
    ("value", "offline"),
    [("1", True), ("true", True), ("YES", True), ("0", False), ("false", False), ("", False)],
)
def test_hf_hub_offline_is_read_like_huggingface_hub_reads_it(
    monkeypatch: pytest.MonkeyPatch, value: str, offline: bool
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert hub_offline() is offline


def test_hub_probe(
    monkeypatch: pytest.MonkeyPatch, silent_hub: str, closed_port: str, answering_hub: str
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", answering_hub)
    assert hub_reachable(5.0)  # any HTTP answer counts, even a 404
    monkeypatch.setenv("HF_ENDPOINT", closed_port)
    start = time.monotonic()
    assert not hub_reachable(60.0)  # refused at once: no reason to sit out the timeout
    assert time.monotonic() - start < NEVER_HANGS_SECONDS
    monkeypatch.setenv("HF_ENDPOINT", silent_hub)
    start = time.monotonic()
    assert not hub_reachable(0.5)
    assert time.monotonic() - start < NEVER_HANGS_SECONDS


_EMBED_IN_A_NEW_PROCESS = """
import sys
import numpy as np
from orma_proxy import OrmaConfig
from orma_proxy.embed.models import load_embedder
embedder = load_embedder(OrmaConfig(home=sys.argv[1], embed_model="all-MiniLM-L6-v2-int8"))
print("onnxruntime" in sys.modules)
vector = embedder.embed(["My dentist is Dr. Rao in Kothrud."])[0]
print("onnx" in sys.modules, np.round(vector[:8], 5).tolist())
"""


def test_the_model_loads_on_first_use_and_its_rewritten_graph_is_made_once(
    tmp_path: Path,
) -> None:
    """Opening costs no onnxruntime; the second process runs the cached graph without ``onnx``."""

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", _EMBED_IN_A_NEW_PROCESS, str(tmp_path / "home")],
            env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return done.stdout.splitlines()

    first, second = run(), run()
    assert first[0] == second[0] == "False"  # nothing loaded before the first embed
    assert first[1].startswith("True ") and second[1].startswith("False ")
    assert first[1].split(" ", 1)[1] == second[1].split(" ", 1)[1]  # the same vector
    assert len(list((tmp_path / "cache" / "orma" / "rewritten").glob("*.onnx"))) == 1
    assert not (tmp_path / "home").exists()


def test_the_offline_models_tokenizer_ships_with_orma() -> None:
    """MiniLM's tokenizer.json comes with the package (no second package to install with
    --no-deps), and it is BERT's uncased WordPiece: the ids the ONNX model was trained on."""
    import gzip

    from tokenizers import Tokenizer

    import orma_proxy.embed

    shipped = Path(orma_proxy.embed.__file__).parent / "minilm" / "tokenizer.json.gz"
    tokenizer = Tokenizer.from_str(gzip.decompress(shipped.read_bytes()).decode("utf-8"))
    tokenizer.no_padding()
    ids = tokenizer.encode("Hello, world! Orma remembers.").ids
    assert ids == [101, 7592, 1010, 2088, 999, 2030, 2863, 17749, 1012, 102]
    assert tokenizer.get_vocab_size() == 30522
