"""The OpenAI-compatible memory proxy: app factory, routes, upstream, relays, capture."""

from orma_proxy.server.app import create_app
from orma_proxy.server.auth import load_keys_file, parse_keys
from orma_proxy.server.state import ProxyState, proxy_state
from orma_proxy.server.viz import PAGE_PATH

__all__ = ["PAGE_PATH", "ProxyState", "create_app", "load_keys_file", "parse_keys", "proxy_state"]
