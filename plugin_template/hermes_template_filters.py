"""Jinja filters of the plugin template, loaded by cookiecutter through ``_extensions``.

Values such as the description and the author name are typed by people and may hold
quotes, backslashes or line breaks; written into the generated files unescaped they
would break the TOML, YAML and Python they land in.
"""

from __future__ import annotations

from jinja2 import Environment
from jinja2.ext import Extension

# Quote and backslash take a backslash; the others have a short escape in all three languages.
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def quoted(value: object) -> str:
    """``value`` as one double-quoted string that TOML, YAML and Python all read back exactly.

    The three agree on ``"..."`` with ``\\"``, ``\\\\``, ``\\n``, ``\\t``, ``\\r``, ``\\uXXXX``
    and ``\\UXXXXXXXX``; every character that is not printable is written as such an escape.
    """
    parts = ['"']
    for char in str(value):
        if char in _SHORT_ESCAPES:
            parts.append(_SHORT_ESCAPES[char])
        elif char.isprintable():
            parts.append(char)
        elif 0xD800 <= ord(char) <= 0xDFFF:  # a lone surrogate (undecodable input) is no character at all
            parts.append("\\ufffd")
        elif ord(char) <= 0xFFFF:
            parts.append(f"\\u{ord(char):04x}")
        else:
            parts.append(f"\\U{ord(char):08x}")
    parts.append('"')
    return "".join(parts)


def docstring(value: object) -> str:
    """``value`` as a Python docstring: ``\"\"\"text\"\"\"``, escaped as :func:`quoted` does."""
    # An escaped quote cannot end the string, so even a text ending in '"' stays inside it.
    return f'""{quoted(value)}""'


class QuotedStrings(Extension):
    """Adds the filters ``quoted`` (``description = {{ cookiecutter.description | quoted }}``) and ``docstring``."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters["quoted"] = quoted
        environment.filters["docstring"] = docstring
