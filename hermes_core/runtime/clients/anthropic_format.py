"""Moved to :mod:`hermes_core.models.clients.anthropic_format`; this import path keeps working."""

import sys

from hermes_core.models.clients import anthropic_format

sys.modules[__name__] = anthropic_format
