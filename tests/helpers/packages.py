"""Where installed data-only packages live, found without importing them."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.submodule_search_locations, f"{module} is not installed"
    return Path(next(iter(spec.submodule_search_locations)))
