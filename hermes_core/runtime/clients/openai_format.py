"""Moved to :mod:`hermes_core.models.clients.openai_format`; this import path keeps working."""

import sys

from hermes_core.models.clients import openai_format

sys.modules[__name__] = openai_format
