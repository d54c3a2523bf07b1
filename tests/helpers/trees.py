"""Small source trees for the tests that read code: the import graph, the tests' own rules."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Write each file (path under ``root``: text), making its folders."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
