"""Moved to :mod:`hermes_core.models.clients.errors`; this import path keeps working."""

import sys

from hermes_core.models.clients import errors

sys.modules[__name__] = errors
