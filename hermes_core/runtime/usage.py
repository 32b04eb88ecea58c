"""Moved to :mod:`hermes_core.models.usage`; this import path keeps working for plugins."""

import sys

from hermes_core.models import usage

sys.modules[__name__] = usage
