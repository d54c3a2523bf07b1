"""``orma proxy`` and ``orma up``: serve the memory proxy with uvicorn."""

from __future__ import annotations

import copy
import ipaddress
import threading
import time
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from orma_proxy.cli.shared_options import DbOption, configured, say, serving_logs, state
from orma_proxy.errors import ConfigError

if TYPE_CHECKING:  # the server (uvicorn, Starlette) loads only when a command serves
    import uvicorn

    from orma_proxy.config import OrmaConfig

app = typer.Typer()

# How long `orma up` waits for the server before giving up on opening the browser.
BROWSER_WAIT_SECONDS = 30.0

# Server options default to None: only what a user passes overrides ORMA_* and config.toml.
UpstreamOption = Annotated[
    str | None,
    typer.Option(
        "--upstream",
        "-u",
        envvar="ORMA_UPSTREAM",
        help="OpenAI-compatible upstream (Ollama, llama-server, vLLM). "
        "[default: configured, else http://127.0.0.1:11434/v1]",
        show_default=False,
    ),
]
ModelOption = Annotated[
    str | None,
    typer.Option("--model", "-m", envvar="ORMA_MODEL", help="Upstream model used by sleep."),
]
HostOption = Annotated[
    str | None,
    typer.Option(
        "--host",
        envvar="ORMA_HOST",
        help="Address to bind. [default: configured, else 127.0.0.1]",
        show_default=False,
    ),
]
PortOption = Annotated[
    int | None,
    typer.Option(
        "--port",
        "-p",
        envvar="ORMA_PORT",
        help="Port. [default: configured, else 8080]",
        show_default=False,
    ),
]
KeysOption = Annotated[
    str | None,
    typer.Option(
        "--api-keys",
        envvar="ORMA_API_KEYS",
        help="Client keys and their spaces: 'key1=alice,bob;key2=*'.",
        show_default=False,
    ),
]
KeysFileOption = Annotated[
    Path | None,
    typer.Option(
        "--api-keys-file",
        envvar="ORMA_API_KEYS_FILE",
        help="File with one 'key=space,space' per line.",
        dir_okay=False,
        show_default=False,
    ),
]
UpstreamKeyOption = Annotated[
    str | None,
    typer.Option(
        "--upstream-api-key",
        envvar="ORMA_UPSTREAM_API_KEY",
        help="Key sent to the upstream (never logged).",
        show_default=False,
    ),
]
InsecureOption = Annotated[
    bool,
    typer.Option(
        "--insecure", envvar="ORMA_INSECURE", help="Allow a public bind without API keys."
    ),
]


def proxy_config(
    *,
    upstream: str | None,
    model: str | None,
    host: str | None,
    port: int | None,
    db: str | None,
    api_keys: str | None,
    api_keys_file: Path | None,
    upstream_api_key: str | None,
    insecure: bool,
) -> OrmaConfig:
    """The server's configuration; refuses a public bind that nothing protects.

    Only the options given override the environment and ``config.toml``;
    ``upstream`` None keeps the configured one (``orma viz`` asks no LLM anything).
    """
    from orma_proxy.server.auth import load_keys_file, parse_keys

    keys = parse_keys(api_keys or "")
    if api_keys_file is not None:
        keys.update(load_keys_file(api_keys_file))
    config = configured(
        db,
        upstream=upstream,
        model=model,
        host=host,
        port=port,
        upstream_api_key=upstream_api_key,
        api_keys=keys or None,
        insecure=insecure or None,
    )
    if not _is_loopback(config.host) and not config.api_keys and not config.insecure:
        raise ConfigError(
            f"refusing to serve memories on {config.host} without API keys: set ORMA_API_KEYS "
            "(or --api-keys-file), or pass --insecure if this network is yours alone"
        )
    return config


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(config: OrmaConfig) -> str:
    """Where a browser on this machine reaches the server."""
    shown_host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host
    return f"http://{shown_host}:{config.port}"


def serve(
    ctx: typer.Context,
    config: OrmaConfig,
    *,
    open_url: str | None,
    background_sleep: bool = True,
    viz_at_root: bool = False,
) -> None:
    """Run the app until Ctrl-C; open ``open_url`` in the browser once it listens."""
    import uvicorn

    from orma_proxy.server import create_app

    serving_logs()
    app_ = create_app(
        config,
        embedder=state(ctx).embedder,
        background_sleep=background_sleep,
        own_process=True,
        viz_at_root=viz_at_root,
    )
    server = uvicorn.Server(
        uvicorn.Config(
            app_,
            host=config.host,
            port=config.port,
            log_level="info",
            ws="none",
            server_header=False,
            timeout_graceful_shutdown=5,
            log_config=_logs_on_stderr(),
        )
    )
    if open_url is not None:
        threading.Thread(target=_open_when_up, args=(server, open_url), daemon=True).start()
    server.run()


def _logs_on_stderr() -> dict[str, Any]:
    """uvicorn's, with its access log moved from stdout to stderr: stdout carries only
    what a script may read (the address `orma up` and `orma viz` print)."""
    from uvicorn.config import LOGGING_CONFIG

    logs = copy.deepcopy(LOGGING_CONFIG)
    logs["handlers"]["access"]["stream"] = "ext://sys.stderr"
    return logs


def _open_when_up(server: uvicorn.Server, url: str) -> None:
    deadline = time.monotonic() + BROWSER_WAIT_SECONDS
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    if server.started:
        webbrowser.open(url)


@app.command(rich_help_panel="Serve")
def proxy(
    ctx: typer.Context,
    upstream: UpstreamOption = None,
    model: ModelOption = None,
    host: HostOption = None,
    port: PortOption = None,
    db: DbOption = None,
    api_keys: KeysOption = None,
    api_keys_file: KeysFileOption = None,
    upstream_api_key: UpstreamKeyOption = None,
    insecure: InsecureOption = False,
) -> None:
    """Serve the memory proxy: point any OpenAI client at http://HOST:PORT/v1.

    Example: orma proxy --upstream http://127.0.0.1:11434/v1 --model llama3.2:3b
    """
    config = proxy_config(
        upstream=upstream, model=model, host=host, port=port, db=db, api_keys=api_keys,
        api_keys_file=api_keys_file, upstream_api_key=upstream_api_key, insecure=insecure,
    )  # fmt: skip
    say(state(ctx).err, f"Orma proxy on {base_url(config)}/v1 -> upstream {config.upstream}")
    serve(ctx, config, open_url=None)


@app.command(rich_help_panel="Serve")
def up(
    ctx: typer.Context,
    upstream: UpstreamOption = None,
    model: ModelOption = None,
    host: HostOption = None,
    port: PortOption = None,
    db: DbOption = None,
    api_keys: KeysOption = None,
    api_keys_file: KeysFileOption = None,
    upstream_api_key: UpstreamKeyOption = None,
    insecure: InsecureOption = False,
    browser: Annotated[
        bool, typer.Option("--browser/--no-browser", help="Open the web UI when ready.")
    ] = True,
) -> None:
    """Serve the proxy and open the upstream's web UI through it (llama-server's UI).

    Prints the web UI's address on stdout, with or without --no-browser.

    Example: orma up --upstream http://127.0.0.1:9931 --model Qwen2.5-3B
    """
    config = proxy_config(
        upstream=upstream, model=model, host=host, port=port, db=db, api_keys=api_keys,
        api_keys_file=api_keys_file, upstream_api_key=upstream_api_key, insecure=insecure,
    )  # fmt: skip
    url = base_url(config)
    typer.echo(f"{url}/")  # the web UI, on stdout as `orma viz` prints its page
    say(state(ctx).err, f"Orma proxy on {url}/v1 -> upstream {config.upstream}; web UI on {url}/")
    serve(ctx, config, open_url=f"{url}/#/" if browser else None)
