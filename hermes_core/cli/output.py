"""Output helpers the command groups share."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    """``--json`` output: indented, non-ASCII kept, values JSON cannot hold (timestamps, paths) as text."""
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
