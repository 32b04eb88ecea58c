"""Moved to :mod:`hermes_core.models.clients.sanitize`; this import path keeps working."""

import sys

from hermes_core.models.clients import sanitize

sys.modules[__name__] = sanitize
