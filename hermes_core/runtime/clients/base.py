"""Moved to :mod:`hermes_core.models.clients.base`; this import path keeps working."""

import sys

from hermes_core.models.clients import base

sys.modules[__name__] = base
