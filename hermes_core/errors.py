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
