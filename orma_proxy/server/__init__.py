"""The OpenAI-compatible memory proxy: app factory, routes, upstream, relays, capture."""

from orma_proxy.server.app import create_app
from orma_proxy.server.state import ProxyState, proxy_state

__all__ = ["ProxyState", "create_app", "proxy_state"]
