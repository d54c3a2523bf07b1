"""Forgetting on request: correct (supersede), hide (release), erase (purge), each audited."""

from orma_proxy.forget.results import Affected, AuditEntry, ForgetResult, Operation

__all__ = ["Affected", "AuditEntry", "ForgetResult", "Operation"]
