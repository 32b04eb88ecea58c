"""Memory contracts: the provider base class, the records that move memories between backends (and, with the memory layer, the manager and fencing)."""

from hermes_core.memory.fallback_import import ImportUnsupported
from hermes_core.memory.provider import MemoryProvider
from hermes_core.memory.records import MemoryExportUnsupported, MemoryRecord, RecordError, record_from_dict

__all__ = ["ImportUnsupported", "MemoryExportUnsupported", "MemoryProvider", "MemoryRecord", "RecordError", "record_from_dict"]
