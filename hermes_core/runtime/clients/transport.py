"""Moved to :mod:`hermes_core.models.clients.transport`; this import path keeps working."""

import sys

from hermes_core.models.clients import transport

sys.modules[__name__] = transport
