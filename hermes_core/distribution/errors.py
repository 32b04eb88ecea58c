"""Errors of installs, updates and removals; each message names the thing, the cause and the fix."""

from __future__ import annotations

from hermes_core.errors import HermesError


class InstallError(HermesError):
    """An install, update or removal failed; whatever it had changed was put back."""

    def __init__(self, subject: str, cause: str, fix: str, *, rolled_back: bool = True) -> None:
        self.subject = subject
        self.cause = cause
        self.fix = fix
        self.rolled_back = rolled_back
        tail = " Nothing was changed." if rolled_back else ""
        super().__init__(f"{subject}: {cause} -> {fix}.{tail}")


class SpecError(HermesError):
    """A SPEC given to ``hermes plugins install`` is none of the forms it accepts."""
