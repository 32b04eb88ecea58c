"""Moved to :mod:`hermes_core.models.clients.from_config`; this import path keeps working."""

import sys

from hermes_core.models.clients import from_config

sys.modules[__name__] = from_config
