"""A package's public names imported on first use (PEP 562), not when the package loads.

``orma --help`` and the commands that embed nothing start in a fraction of a
second only if importing ``orma_proxy.memory.sync`` does not also import every
module that ``orma_proxy.sleep`` or ``orma_proxy.recall`` names (httpx, the
rule tables, tokenizers). A package lists its names twice: under
``TYPE_CHECKING`` for the type checker and the import-graph test, and in the
``homes`` given here (name -> module), which tests/test_exports.py checks agree.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from types import MappingProxyType
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` finding each public name in its home module.

    ``homes`` maps a name to the module that defines it, relative to ``package``.
    A name must not also be a submodule's (``forget.purge``): importing the
    submodule would bind the module under that name before the name is asked for.
    """
    table = MappingProxyType(dict(homes))

    def attribute(name: str) -> Any:
        home = table.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{home}"), name)
        # Bound as an eager ``from home import name`` would bind it: asked once.
        setattr(sys.modules[package], name, value)
        return value

    def names() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return attribute, names
