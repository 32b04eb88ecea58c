"""Exception types the host raises; each message names the thing, the cause and the fix."""

from __future__ import annotations


class HermesError(Exception):
    """Base class for every error the host reports to a user.

    The CLI prints ``str(error)`` without a traceback; ``--debug`` shows it.
    """


class ConfigError(HermesError):
    """config.yaml or .env cannot be read, parsed or written."""


class ManifestError(HermesError):
    """A plugin.yaml is missing, malformed or violates the schema.

    ``problems`` holds every problem found, not just the first.
    """

    def __init__(self, problems: list) -> None:  # list[ManifestProblem]; avoids an import cycle
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class PluginLoadError(HermesError):
    """A plugin could not be imported or its ``register(ctx)`` failed."""


class RegistrationError(HermesError):
    """A plugin asked ``ctx`` to register something invalid or clashing."""


class ToolOverrideError(RegistrationError):
    """A plugin tried to replace another plugin's tool without being allowed to."""


class HookCallbackTimeout(HermesError):
    """A hook callback ran longer than ``plugins.hook_callback_timeout``."""


_OPENING, _CLOSING = "([{", ")]}"


def split_cause_and_fix(message: str) -> tuple[str, str]:
    """``"cause -> fix"`` as ``(cause, fix)``; ``fix`` is empty when the message has none.

    The split is at the first arrow outside brackets: a message quoting another error in
    parentheses (``"cannot be read (X -> Y) -> restore it"``) keeps the quoted one whole in its cause.
    A lone bracket in the text (a quoted ``"("``) leaves no arrow outside: then the first arrow.
    """
    depth = 0
    for index, char in enumerate(message):
        if char in _OPENING:
            depth += 1
        elif char in _CLOSING:
            depth = max(depth - 1, 0)
        elif depth == 0 and message.startswith(" -> ", index):
            return message[:index], message[index + 4:]
    cause, _, fix = message.partition(" -> ")
    return cause, fix
