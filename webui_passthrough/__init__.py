"""A streaming reverse proxy for everything Orma does not own (the upstream's web UI, API).

Kept apart from ``orma_proxy`` because it knows nothing about memory: it relays a
request to another URL and the response back, streaming both ways, keeping
status, headers and bodies.
"""

from webui_passthrough.coalesce import coalesced
from webui_passthrough.proxy import (
    forward,
    relay_response,
    request_headers,
    response_headers,
    wire_headers,
)

__all__ = [
    "coalesced",
    "forward",
    "relay_response",
    "request_headers",
    "response_headers",
    "wire_headers",
]
