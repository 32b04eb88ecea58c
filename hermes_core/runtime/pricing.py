"""Moved to :mod:`hermes_core.models.pricing`; this import path keeps working for plugins."""

import sys

from hermes_core.models import pricing

sys.modules[__name__] = pricing
