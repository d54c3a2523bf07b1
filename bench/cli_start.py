"""How long ``orma`` commands take from start to exit: old and new code alternating.

    python -m bench.cli_start [--runs 7] [--old-ref main | --old /path/to/checkout]

Each command runs as a new process (``python -m orma_proxy.cli ...``), ``--runs``
times for each code base, the two alternating so a busy machine slows both
alike; the median and the max of the wall time and of the CPU time (user +
system, which a busy machine changes less) are printed, with the new/old ratio
of the median CPU, and the load average before and after. "new" is the code
this module is imported from, "old" the git ref ``--old-ref`` names (its
``orma_proxy`` in a temporary folder) or the checkout ``--old`` names, put
first on PYTHONPATH. Both read one database made for the run (a few notes,
embedded and consolidated) in a temporary ``ORMA_DIR``; ``search`` is a cold
start: a new process loads the model and embeds the query (files the first
run wrote to the user cache, ``XDG_CACHE_HOME`` in the temporary folder, are
kept, as on a user's machine). Bytecode is cached under the temporary
directory (``PYTHONPYCACHEPREFIX``), as an installed package has it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench.latency_workers import old_tree

NEW = Path(__file__).resolve().parents[1]

NOTES = [
    "My dog is called Rex.",
    "My dentist is Dr. Rao in Kothrud.",
    "I moved to Pune in March.",
    "My manager is Priya.",
]

COMMANDS = [
    ["--help"],
    ["stats"],
    ["facts"],
    ["config"],
    ["forget", "999999"],  # no such state: nothing changes, it still opens the memory
    ["export"],
    ["search", "what is my dog called?"],
]


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(tree: Path, args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    start, cpu = time.perf_counter(), _cpu()
    subprocess.run(
        [sys.executable, "-m", "orma_proxy.cli", *args],
        cwd=env["ORMA_DIR"],  # not the current directory: ``-m`` puts it before PYTHONPATH
        env={**env, "PYTHONPATH": str(tree)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start, _cpu() - cpu


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--old-ref", default="main", help="git ref of the old code")
    parser.add_argument("--old", type=Path, help="a checkout of the old code (not --old-ref)")
    args = parser.parse_args()
    with ExitStack() as stack:
        if args.old is not None:
            old, named = args.old.resolve(), str(args.old)
        else:
            old = stack.enter_context(old_tree(args.old_ref))
            named = args.old_ref
        assert old is not None
        _measure({"old": old, "new": NEW}, named, args.runs)


def _measure(trees: dict[str, Path], old_name: str, runs_each: int) -> None:
    with tempfile.TemporaryDirectory(prefix="orma-cli-start-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env |= {"ORMA_DIR": tmp, "PYTHONPYCACHEPREFIX": f"{tmp}/pyc", "XDG_CACHE_HOME": tmp}
        env.pop("ORMA_DB", None)
        for note in NOTES:
            subprocess.run(
                [sys.executable, "-m", "orma_proxy.cli", "add", note],
                cwd=tmp,
                env={**env, "PYTHONPATH": str(NEW)},
                check=True,
                capture_output=True,
            )
        subprocess.run(
            [sys.executable, "-m", "orma_proxy.cli", "sleep"],
            cwd=tmp,
            env={**env, "PYTHONPATH": str(NEW)},
            check=True,
            capture_output=True,
        )
        for tree in trees.values():  # warm: bytecode written, files in the page cache
            for command in COMMANDS:
                _run(tree, command, env)
        print(f"{runs_each} runs each, old = {old_name} ({trees['old']}), new = {trees['new']}")
        print(f"load average (1, 5, 15 min) before: {_load()}")
        print("seconds of each run: wall (median, max), CPU (median, max); cpu n/o: new/old CPU")
        heads = ("wall med", "max", "cpu med", "max") * 2 + ("cpu n/o",)
        print(f"{'':<34} {'old':<35} {'new':<35}")
        print(f"{'command':<34} " + " ".join(f"{h:>8}" for h in heads))
        for command in COMMANDS:
            runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
            for _ in range(runs_each):
                for name, tree in trees.items():
                    runs[name].append(_run(tree, command, env))
            shown = "orma " + " ".join(a if " " not in a else repr(a) for a in command)
            cells = []
            for name in ("old", "new"):
                wall, cpu = [w for w, _ in runs[name]], [c for _, c in runs[name]]
                cells += [statistics.median(wall), max(wall), statistics.median(cpu), max(cpu)]
            cells.append(cells[6] / cells[2])
            print(f"{shown:<34} " + " ".join(f"{c:>8.2f}" for c in cells))
        print(f"load average (1, 5, 15 min) after: {_load()}")


if __name__ == "__main__":
    main()
