"""``orma viz``: the memory connectome page in a browser, for the local database.

It serves the same app as ``orma proxy`` (``create_app``), so the page, its API
and the API keys behave exactly as on a running proxy, but it needs no LLM:
recall runs locally and background sleep is off, so looking at memory never
consolidates it behind the user's back.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Annotated
from urllib.parse import quote

import typer

from orma_proxy.cli.serve_cmds import (
    HostOption,
    InsecureOption,
    KeysFileOption,
    KeysOption,
    base_url,
    proxy_config,
    serve,
)
from orma_proxy.cli.shared_options import DbOption, say, state
from orma_proxy.errors import StoreError

app = typer.Typer()

VIZ_PORT = 8765  # beside a proxy on 8080, which serves the same page at /_orma/viz


def can_show_browser(environ: Mapping[str, str], platform: str) -> bool:
    """A browser window can appear: a desktop session, not a bare SSH login or a container."""
    if platform in ("darwin", "win32"):
        return not environ.get("SSH_CONNECTION")
    return bool(environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"))


def page_url(base: str, space: str | None) -> str:
    from orma_proxy.server.viz import PAGE_PATH  # the server loads only when a command serves

    return f"{base}{PAGE_PATH}" + ("" if space is None else f"?space={quote(space, safe='')}")


@app.command(rich_help_panel="Serve")
def viz(
    ctx: typer.Context,
    space: Annotated[
        str | None,
        typer.Option(
            "--space",
            "-s",
            help="Space shown first.  \\[default: the first one]",
            metavar="NAME",
            show_default=False,
        ),
    ] = None,
    host: HostOption = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="Port.")] = VIZ_PORT,
    db: DbOption = None,
    api_keys: KeysOption = None,
    api_keys_file: KeysFileOption = None,
    insecure: InsecureOption = False,
    open_page: Annotated[
        bool | None,
        typer.Option(
            "--open/--no-open",
            help="Open the page in a browser.  \\[default: only when a display is available]",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Look at memory in 3D: states, rules, events and entities, recall and sleep, live.

    Prints the page's URL and serves it until Ctrl-C. No LLM needs to be
    running; a proxy already running serves the same page at /_orma/viz.
    The page answers at / too.

    Example: orma viz --space alice --open
    """
    config = proxy_config(
        upstream=None, model=None, host=host, port=port, db=db, api_keys=api_keys,
        api_keys_file=api_keys_file, upstream_api_key=None, insecure=insecure,
    )  # fmt: skip
    if config.db_url is None and not config.resolved_db_path().exists():
        raise StoreError(
            f"no memory at {config.resolved_db_path()} yet: store something first with `orma add`"
        )
    url = page_url(base_url(config), space)
    typer.echo(url)
    say(state(ctx).err, f"Orma viz of {config.shown_db()} on {url} (no LLM needed; Ctrl-C to stop)")
    show = can_show_browser(os.environ, sys.platform) if open_page is None else open_page
    serve(ctx, config, open_url=url if show else None, background_sleep=False, viz_at_root=True)
