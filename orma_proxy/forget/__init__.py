"""Forgetting on request: correct (supersede), hide (release), erase (purge), each audited.

What to forget is a description ("Meera's employer", "my previous address", an
email in any spelling), resolved exactly (``forget/resolve.py``); ``naming``
re-asks an ambiguous one about a single person.
"""

from orma_proxy.forget.audit import read_audit
from orma_proxy.forget.describe import describe, naming
from orma_proxy.forget.meaning import Described
from orma_proxy.forget.purge import purge
from orma_proxy.forget.rank import names_said
from orma_proxy.forget.release import release, unrelease
from orma_proxy.forget.results import Affected, AuditEntry, ForgetResult, Operation
from orma_proxy.forget.supersede import supersede
from orma_proxy.forget.tombstones import add_unless_purged

__all__ = [
    "Affected",
    "AuditEntry",
    "Described",
    "ForgetResult",
    "Operation",
    "add_unless_purged",
    "describe",
    "names_said",
    "naming",
    "purge",
    "read_audit",
    "release",
    "supersede",
    "unrelease",
]
