"""Keyword terms for text written without spaces: Chinese, Japanese, Korean.

FTS5's ``unicode61`` tokenizer splits on spaces and punctuation, so "我住在东京"
is one token and a search for "东京" never matches it. Each run of CJK
characters is indexed instead as its overlapping character pairs (a lone
character as itself), as Lucene's CJK analyzer does: "东京" matches, and the
query's own pairs rank a sentence by how many it shares. The same function
makes the indexed terms (a SQL function on every connection, called by the
triggers of migration 0008) and the query's terms, so both sides always agree.
"""

from __future__ import annotations

import re
from functools import cache

# The SQL function's name, as migration 0008's triggers call it.
SQL_FUNCTION = "orma_grams"


@cache
def _cjk_run() -> re.Pattern[str]:
    """A run of Han (with extension A and compatibility ideographs), kana, Hangul syllables
    and jamo. Compiled on first use: its ranges cost a few ms to compile, and ASCII text
    (most of what is stored and asked) never needs it."""
    return re.compile(
        "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u309f\u30a0-\u30ff"
        "\u31f0-\u31ff\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+"
    )


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds Chinese, Japanese or Korean script (written without spaces)."""
    return not text.isascii() and _cjk_run().search(text) is not None


def cjk_grams(text: str | None) -> str:
    """The CJK terms of ``text``, space-separated in order of appearance ("" if none)."""
    if not text or text.isascii():
        return ""
    grams: list[str] = []
    for run in _cjk_run().findall(text):
        if len(run) == 1:
            grams.append(run)
        else:
            grams.extend(run[i : i + 2] for i in range(len(run) - 1))
    return " ".join(grams)


def query_grams(text: str, max_terms: int) -> list[str]:
    """The distinct CJK terms of a query, first ones first, at most ``max_terms``."""
    return list(dict.fromkeys(cjk_grams(text).split()))[:max_terms]
