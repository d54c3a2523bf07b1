"""Background embedding yields the CPU to chat: the indexing thread runs at a lower priority.

On a laptop or a 2-core home server, the proxy's event loop, the local LLM and
the client share the cores with the indexer embedding every recorded turn
(hundreds of sentences after a burst of chats). Nobody waits for those vectors
(search finds new text by BM25 at once), so their thread gets a higher nice
value and the scheduler serves everything else first. Linux only: elsewhere a
thread's id is not something ``setpriority`` takes, and nothing changes.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger(__name__)


def lower_thread_priority(increment: int) -> None:
    """Raise the calling thread's nice value by ``increment`` (a thread-pool initializer)."""
    if increment <= 0 or not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + increment)
    except OSError as exc:  # a container may forbid it; indexing just keeps its priority
        log.info("could not lower the indexing thread's priority: %s", exc)
