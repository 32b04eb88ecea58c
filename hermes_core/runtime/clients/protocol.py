"""Moved to :mod:`hermes_core.models.clients.protocol`; this import path keeps working."""

import sys

from hermes_core.models.clients import protocol

sys.modules[__name__] = protocol
