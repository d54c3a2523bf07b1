"""What the viz page shows, read from the store: the graph, a node, a recall preview, the feed.

Each module answers one of the page's JSON endpoints (``orma_proxy/server/viz.py``)
with plain dicts. They only read, through the public facts, recall and store
functions (which hold the SQL), so the page shows exactly what recall and sleep
see. The graph, a node and the feed are chains of reads, plain ``fn(conn)`` the
server runs in its reader's thread in one trip; the preview runs recall itself.
"""

from orma_proxy.viz.detail import NODE_KINDS, node_detail, parse_node_id, state_detail
from orma_proxy.viz.feed import feed, list_spaces
from orma_proxy.viz.graph import build_graph
from orma_proxy.viz.preview import recall_preview

__all__ = [
    "NODE_KINDS",
    "build_graph",
    "feed",
    "list_spaces",
    "node_detail",
    "parse_node_id",
    "recall_preview",
    "state_detail",
]
