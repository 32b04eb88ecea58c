"""Moved to :mod:`hermes_core.models.clients.sse`; this import path keeps working."""

import sys

from hermes_core.models.clients import sse

sys.modules[__name__] = sse
