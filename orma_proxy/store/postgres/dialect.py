"""The store's portable statements, written in SQLite's dialect, as PostgreSQL runs them.

Each distinct statement is translated once (cached) by a few fixed rules, so the
store keeps one text per statement for both engines (docs/postgresql.md has the
table). Only the parts outside string literals and quoted names are rewritten.
A JSON list bound for ``json_each`` becomes an array: ``bigint[]`` when it
holds integers (or nothing), else ``text[]``, so each statement has at most one
variant per such parameter kind.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# A string literal, a quoted name, or a run of anything else.
_SEGMENT = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^'\"]+")
_PLACEHOLDER = re.compile(r"\?(\d+)?|(?<!:):([A-Za-z_]\w*)")
_JSON_EACH = re.compile(
    r"json_each\(\s*(\?\d*|:[A-Za-z_]\w*)\s*\)"
    r"(?:\s+(?:AS\s+)?(?!(?:WHERE|JOIN|CROSS|ON|ORDER|GROUP|LIMIT|UNION)\b)([A-Za-z_]\w*))?",
    re.IGNORECASE,
)
_WORDS = (
    # SQLite's unary ``+column`` (keeps an index out of the plan) is no operator on text here.
    (re.compile(r"(\b(?:WHERE|AND|OR|ON|NOT)\s+|[(,=]\s*)\+(?=[A-Za-z_])", re.IGNORECASE), r"\1"),
    (re.compile(r"\bBEGIN\s+IMMEDIATE\b", re.IGNORECASE), "BEGIN"),
    (re.compile(r"\bCROSS\s+JOIN\b", re.IGNORECASE), "JOIN"),
    (re.compile(r"\bLIKE\b", re.IGNORECASE), "ILIKE"),
)
_SCALAR = re.compile(r"\b(max|min)\(", re.IGNORECASE)
_ARRAY = "\x00{}\x00"  # where a JSON list's array type goes, filled per call
Params = Sequence[Any] | Mapping[str, Any]


@dataclass(frozen=True)
class Statement:
    """A translated statement: its text with ``_ARRAY`` slots, and how its parameters bind."""

    sql: str
    numbered: bool  # ``?N``: a positional tuple is bound as ``p1``, ``p2``...
    arrays: tuple[int | str, ...]  # the parameters that are JSON lists for ``unnest``

    def bind(self, params: Params) -> tuple[str, Params]:
        """The statement's text and its parameters for psycopg, for these values."""
        if self.numbered and not isinstance(params, Mapping):
            params = {f"p{i}": value for i, value in enumerate(params, start=1)}
        values: Any = dict(params) if isinstance(params, Mapping) else list(params)
        kinds = []
        for key in self.arrays:
            items = json.loads(values[key])
            kinds.append("bigint[]" if all(isinstance(i, int) for i in items) else "text[]")
            values[key] = items
        if isinstance(values, dict):
            values = {k: int(v) if isinstance(v, bool) else v for k, v in values.items()}
        else:
            values = [int(v) if isinstance(v, bool) else v for v in values]
        return (_typed(self.sql, tuple(kinds)) if kinds else self.sql), values


@functools.lru_cache(maxsize=4096)
def _typed(sql: str, kinds: tuple[str, ...]) -> str:
    parts = sql.split(_ARRAY)
    return "".join(p + (kinds[i] if i < len(kinds) else "") for i, p in enumerate(parts))


@functools.lru_cache(maxsize=4096)
def translate(sql: str) -> Statement:
    """``sql`` (SQLite's dialect, ``?``/``?N``/``:name`` parameters) as PostgreSQL's."""
    numbered = re.search(r"\?\d", _outside_literals(sql)) is not None
    binding = _Binding()
    out = []
    for segment in _SEGMENT.findall(sql):
        if segment[0] in "'\"":
            out.append(segment.replace("%", "%%"))
            continue
        segment = segment.replace("%", "%%")
        for pattern, word in _WORDS:
            segment = pattern.sub(word, segment)
        segment = _scalar_extremes(segment)
        segment = _JSON_EACH.sub(_unnest, segment)
        segment = _PLACEHOLDER.sub(binding.placeholder, segment)
        out.append(segment.replace("@array", "::" + _ARRAY))
    return Statement("".join(out), numbered, tuple(binding.arrays))


def _unnest(match: re.Match[str]) -> str:
    """``json_each(P) alias`` as ``unnest(P@array) AS alias(value)`` (typed when bound)."""
    return f"unnest({match[1]}@array) AS {match[2] or 'json_each'}(value)"


class _Binding:
    """Numbers the ``?`` placeholders of one statement and notes which bind JSON lists."""

    def __init__(self) -> None:
        self.position = 0
        self.arrays: list[int | str] = []

    def placeholder(self, match: re.Match[str]) -> str:
        key: int | str
        if match[0].startswith("?"):
            key = f"p{match[1]}" if match[1] else self.position
            self.position += 0 if match[1] else 1
        else:
            key = match[2]
        if match.string[match.end() : match.end() + 6] == "@array":
            self.arrays.append(key)
        return "%s" if isinstance(key, int) else f"%({key})s"


def _outside_literals(sql: str) -> str:
    return "".join(s for s in _SEGMENT.findall(sql) if s[0] not in "'\"")


def _scalar_extremes(segment: str) -> str:
    """``max(a, b)`` and ``min(a, b)`` (SQLite's scalar forms) as ``greatest`` and ``least``."""
    out, last = [], 0
    for match in _SCALAR.finditer(segment):
        depth, comma = 0, False
        for char in segment[match.end() :]:
            if char == "(":
                depth += 1
            elif char == ")":
                if depth == 0:
                    break
                depth -= 1
            elif char == "," and depth == 0:
                comma = True
        if comma:
            name = "greatest" if match[1].lower() == "max" else "least"
            out.append(segment[last : match.start()] + name + "(")
            last = match.end()
    return "".join(out) + segment[last:]
