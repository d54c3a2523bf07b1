"""The tests' own rules: what they share comes from ``tests/helpers``, and they reach Orma
through its public names. A conftest.py holds fixtures and a test module tests: neither is
imported by another test. Read from the source with ``ast``, like the import-graph test.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers.trees import write_tree

TESTS = Path(__file__).resolve().parent

# Private names tests still use: the writer's connect function (a full disk is simulated
# through it), its task, the memory's indexing pool, and helpers private to their module.
# A new one fails the test below; remove an entry once its test no longer needs it.
TOLERATED = {
    "cli/test_add_streaming.py: writer_module._connect",
    "helpers/full_disk.py: writer_module._connect",
    "memory/test_indexer.py: mem._index_pool",
    "store/test_writer.py: writer._task",
    "embed/test_graph.py: from orma_proxy.embed.models import _minilm_files",
    "embed/test_onnx.py: from orma_proxy.embed.models import _minilm_files",
}


def _trees(root: Path) -> list[tuple[str, ast.AST]]:
    return [
        (path.relative_to(root).as_posix(), ast.parse(path.read_text("utf-8"), str(path)))
        for path in sorted(root.rglob("*.py"))
    ]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def shared_imports(root: Path = TESTS) -> list[str]:
    """Imports of anything under ``root`` but its helpers package (test modules, conftests)."""
    found = []
    for where, tree in _trees(root):
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            for module in names:
                parts = module.split(".")
                if parts[0] == root.name and parts[1:2] != ["helpers"]:
                    found.append(f"{where}:{node.lineno} imports {module}")
    return found


def private_uses(root: Path = TESTS) -> set[str]:
    """Underscore attributes of anything but ``self``/``cls``, underscore names imported."""
    found = set()
    for where, tree in _trees(root):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                    found.add(f"{where}: {ast.unparse(node)}")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("orma"):
                found |= {
                    f"{where}: from {node.module} import {alias.name}"
                    for alias in node.names
                    if _private(alias.name)
                }
    return found


def test_tests_import_nothing_of_each_other_but_the_helpers() -> None:
    assert shared_imports() == []


def test_tests_reach_orma_through_public_names() -> None:
    assert sorted(private_uses() - TOLERATED) == []


def test_the_rules_catch_what_they_forbid(tmp_path: Path) -> None:
    root = tmp_path / "tests"
    files = {
        "helpers/shared.py": "from tests.helpers.rawdb import rows\n",
        "server/conftest.py": "from tests.helpers import shared\n",
        "server/test_a.py": (
            "import tests.server.conftest\n"
            "from tests.server.test_b import episodes\n"
            "from orma_proxy.recall import _rank, score\n"
            "class A:\n    def f(self):\n        return self._ok, self.__class__\n"
            "def test(mem):\n    return mem._opened().reader\n"
        ),
    }
    write_tree(root, files)
    assert shared_imports(root) == [
        "server/test_a.py:1 imports tests.server.conftest",
        "server/test_a.py:2 imports tests.server.test_b",
    ]
    assert private_uses(root) == {
        "server/test_a.py: from orma_proxy.recall import _rank",
        "server/test_a.py: mem._opened",
    }
