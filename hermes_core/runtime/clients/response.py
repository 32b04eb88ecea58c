"""Moved to :mod:`hermes_core.models.clients.response`; this import path keeps working."""

import sys

from hermes_core.models.clients import response

sys.modules[__name__] = response
