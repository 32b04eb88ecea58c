"""Moved to :mod:`hermes_core.models.clients.anthropic_messages`; this import path keeps working."""

import sys

from hermes_core.models.clients import anthropic_messages

sys.modules[__name__] = anthropic_messages
