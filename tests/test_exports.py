"""Packages whose names load on first use (``orma_proxy.exports``) give what an eager import would.

A lazy package lists each name twice, under ``TYPE_CHECKING`` and in the homes
given to ``lazy_exports``: the two must agree with ``__all__``, and asking the
package for a name must give the object its home module defines, even after the
submodule of the same name (``store.backup``) has been imported and bound on the
package by Python's import system.
"""

from __future__ import annotations

import ast
import pkgutil
from importlib import import_module
from pathlib import Path
from types import ModuleType

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "orma_proxy"


def _lazy_inits() -> list[Path]:
    return sorted(
        path
        for path in PACKAGE.rglob("__init__.py")
        if "lazy_exports(" in path.read_text("utf-8") and path.parent != PACKAGE.parent
    )


def _name(path: Path) -> str:
    return ".".join(path.parent.relative_to(PACKAGE.parent).parts)


def _declared(path: Path) -> tuple[dict[str, str], dict[str, str], set[str], set[str]]:
    """(homes given to lazy_exports, TYPE_CHECKING name -> module, names bound when the
    package loads, ``__all__``)."""
    tree = ast.parse(path.read_text("utf-8"))
    homes: dict[str, str] = {}
    checked: dict[str, str] = {}
    eager: set[str] = set()
    listed: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in node.body:
                if isinstance(inner, ast.ImportFrom) and inner.module:
                    checked |= {alias.name: inner.module for alias in inner.names}
        elif isinstance(node, ast.ImportFrom) and node.module not in ("__future__", "typing"):
            eager |= {alias.asname or alias.name for alias in node.names} - {"lazy_exports"}
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            listed = set(ast.literal_eval(node.value))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if ast.unparse(node.value.func) == "lazy_exports":
                homes = ast.literal_eval(node.value.args[1])
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            eager.add(node.targets[0].id)  # defined in the package itself (``MAX_ROW_ID``)
    return homes, checked, {name for name in eager if not name.startswith("__")}, listed


def _import_every_submodule(package: ModuleType) -> None:
    for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if not found.name.endswith("__main__"):
            import_module(found.name)


def test_there_are_lazy_packages() -> None:
    names = {_name(path) for path in _lazy_inits()}
    assert {"orma_proxy.store", "orma_proxy.facts", "orma_proxy.text"} <= names


@pytest.mark.parametrize("path", _lazy_inits(), ids=_name)
def test_the_lists_of_a_lazy_package_agree(path: Path) -> None:
    package = _name(path)
    homes, checked, eager, listed = _declared(path)
    assert set(homes) | eager == listed, "__all__ is the lazy names and the eager ones"
    assert not set(homes) & eager
    for name, home in homes.items():
        assert checked.get(name) == f"{package}.{home}", name


@pytest.mark.parametrize("path", _lazy_inits(), ids=_name)
def test_a_lazy_name_is_what_its_home_defines_even_after_every_submodule_loaded(
    path: Path,
) -> None:
    package = import_module(_name(path))
    homes, _, _, listed = _declared(path)
    _import_every_submodule(package)
    for name in sorted(listed):
        value = getattr(package, name)
        assert not isinstance(value, ModuleType), f"{package.__name__}.{name} is a module"
        if name in homes:
            assert value is getattr(import_module(f"{package.__name__}.{homes[name]}"), name)
    with pytest.raises(AttributeError):
        package.no_such_name  # noqa: B018
    assert set(listed) <= set(dir(package))
