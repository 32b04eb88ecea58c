"""Moved to :mod:`hermes_core.models.clients.visible`; this import path keeps working."""

import sys

from hermes_core.models.clients import visible

sys.modules[__name__] = visible
