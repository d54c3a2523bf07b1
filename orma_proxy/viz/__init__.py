"""What the viz page shows, read from the store: the graph, a node, a recall preview, the feed.

Each module answers one of the page's JSON endpoints (``orma_proxy/server/viz.py``)
with plain dicts. They only read, through the public recall, sleep and store
functions, so the page shows exactly what recall and sleep see.
"""
