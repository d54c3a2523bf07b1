"""Data portability: a versioned JSON Lines export/import, a full index rebuild."""

from orma_proxy.portable.export import export_to
from orma_proxy.portable.load import import_records, read_export
from orma_proxy.portable.rebuild import RebuildReport, rebuild

__all__ = ["RebuildReport", "export_to", "import_records", "read_export", "rebuild"]
