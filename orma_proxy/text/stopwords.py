"""Words that match almost every sentence.

Search drops them from a query (unless it has nothing else), recall and
forgetting from the words they compare, and sleep from the words a value must
share with its line: one list, so all of them agree on what carries meaning.
"""

from __future__ import annotations

__all__ = ["STOPWORDS"]

STOPWORDS = frozenset(
    """a an and are as at be but by do does did for from had has have i if in into is it its
    me my of on or so than that the their them then there these they this to was we were
    what when where which who whom why will with you your""".split()  # noqa: SIM905
)
