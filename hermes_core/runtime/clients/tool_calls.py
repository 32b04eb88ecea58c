"""Moved to :mod:`hermes_core.models.clients.tool_calls`; this import path keeps working."""

import sys

from hermes_core.models.clients import tool_calls

sys.modules[__name__] = tool_calls
