"""Exceptions raised by the session store; all derive from StateStoreError.

StateStoreError is a HermesError, so the CLI reports any of them as one
``hermes: error:`` line (exit 1) instead of an internal error: each message
names the file or the session, the cause and the fix.
"""
from __future__ import annotations

from hermes_core.errors import HermesError

#: The fix for a file that cannot be used as the store: the store is only ever created, never repaired in place.
MOVE_ASIDE_FIX = ("move it aside or restore a backup (hermes then starts a new, empty state.db there), "
                  "or point HERMES_HOME elsewhere; the file was not modified")


class StateStoreError(HermesError):
    """Base class for every error the session store raises on purpose."""


class SchemaTooNewError(StateStoreError):
    """The database was written by a newer schema than this code knows; it is left untouched."""

    def __init__(self, path: str, found: int, supported: int) -> None:
        super().__init__(
            f"{path} was written by a newer hermes (session-store schema version {found}; this version "
            f"understands versions up to {supported}) -> upgrade hermes to open it; the file was not modified"
        )
        self.path = path
        self.found = found
        self.supported = supported


class NotAStateDatabaseError(StateStoreError):
    """The file is not an SQLite database, or one this store did not create; it is left untouched."""

    def __init__(self, path: str, cause: str) -> None:
        super().__init__(f"{path} is not a hermes session store ({cause}) -> {MOVE_ASIDE_FIX}")
        self.path = path
        self.cause = cause


class SessionNotFoundError(StateStoreError, KeyError):
    """No session has the given id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session with id {session_id!r} -> 'hermes sessions list' shows the ids")
        self.session_id = session_id

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])


class SessionExistsError(StateStoreError):
    """create_session was given an id that is already taken."""


class TitleInUseError(StateStoreError):
    """Another session already carries this title (titles are unique when set)."""


class StoreBusyError(StateStoreError):
    """The write lock could not be taken within the retry budget."""
