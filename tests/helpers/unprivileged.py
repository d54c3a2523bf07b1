"""Running a process as a user who may read a database but not write it.

Tests run as root, and root writes through any file mode. A child started
through ``without_override`` loses the capabilities that let root ignore
file modes (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so ``chmod 444`` or a
read-only folder stops it exactly as it stops an ordinary user; started as
another user, the child is one already. ``on_read_only_mount`` runs it where
a folder is a read-only bind mount, in a mount namespace of its own.

``python -m tests.helpers.unprivileged DB OUT`` opens DB with the SDK and prints, as
JSON, what reading gave and what each kind of write said.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from orma_proxy import AsyncMemory, OrmaConfig
from orma_proxy.errors import OrmaError
from orma_proxy.sleep.scheduler import SleepScheduler
from tests.helpers.embedders import HashingEmbedder

# prctl(PR_CAPBSET_DROP) of both capabilities, then exec: the new program starts without them.
_DROP_THEN_EXEC = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
    if libc.prctl(24, capability, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")
os.execv(sys.argv[1], sys.argv[1:])
"""


def without_override(argv: list[str]) -> list[str]:
    """``argv`` run so that file modes bind it (as root: without the capabilities above)."""
    if os.geteuid() != 0:
        return argv
    return [sys.executable, "-c", _DROP_THEN_EXEC, *argv]


def on_read_only_mount(source: Path, target: Path, argv: list[str]) -> list[str]:
    """``argv`` run where ``target`` shows ``source`` read-only (in its own mount namespace)."""
    namespace = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "-rm"]
    script = 'mount --bind -o ro "$0" "$1" && shift && exec "$@"'
    return [*namespace, "sh", "-c", script, str(source), str(target), *argv]


def child(db: Path, *args: str) -> list[str]:
    """The command line of this module's reader on ``db`` (``args``: OUT)."""
    return [sys.executable, "-m", "tests.helpers.unprivileged", str(db), *args]


async def _read_and_try_writes(db: Path, out: Path) -> dict[str, object]:
    config = OrmaConfig(home=out.parent, db_path=db)
    report: dict[str, object] = {}
    try:
        mem = await AsyncMemory(config=config, embedder=HashingEmbedder()).open()
    except OrmaError as exc:
        return {"open": f"{type(exc).__name__}: {exc}"}
    try:
        found = await mem.search("dentist")
        report["search"] = [p.text for p in found.passages]
        report["recall"] = (await mem.recall("who is my dentist?")).text
        report["facts"] = [fact.value for fact in await mem.facts()]
        report["episodes"] = (await mem.stats()).episodes
        report["export"] = await mem.export_jsonl(out)
        scheduler = SleepScheduler(mem.sleeper(), mem.config)
        scheduler.start()  # as the proxy's lifespan does
        report["background_sleep"] = scheduler.running
        await scheduler.close()
        writes: dict[str, Callable[[], Awaitable[object]]] = {
            "add": lambda: mem.add("A new note."),
            "forget": lambda: mem.forget(1),
            "flush": mem.flush,
            "supersede": lambda: mem.supersede("Pune", "Bangalore"),
        }
        for name, write in writes.items():
            try:
                await write()
                report[name] = "written"
            except OrmaError as exc:
                report[name] = f"{type(exc).__name__}: {exc}"
    finally:
        await mem.close()
    return report


if __name__ == "__main__":
    print(json.dumps(asyncio.run(_read_and_try_writes(Path(sys.argv[1]), Path(sys.argv[2])))))
