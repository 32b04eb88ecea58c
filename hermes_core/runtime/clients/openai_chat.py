"""Moved to :mod:`hermes_core.models.clients.openai_chat`; this import path keeps working."""

import sys

from hermes_core.models.clients import openai_chat

sys.modules[__name__] = openai_chat
