"""The OpenAI-compatible memory proxy: app factory, routes, upstream, relays, capture."""

from orma_proxy.server.app import create_app

__all__ = ["create_app"]
