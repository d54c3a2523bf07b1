"""Reading the benchmarks' data files in ``bench/data/`` (their shapes: its README.md).

Labelled cases are data, not code: a JSONL file holds one case a line, a JSON file
the words a seeded generator draws from. A malformed file fails here, naming the
file and the line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def read_json(path: Path) -> Any:
    """The JSON document at ``path`` (``DATA / name``)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ValueError(f"{path}: line {e.lineno}: {e.msg}") from e


def read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """The records at ``path`` with their line numbers, one JSON object a line (blank: none)."""
    records = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{number}: {e.msg}") from e
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: a line must be a JSON object")
        records.append((number, record))
    return records
