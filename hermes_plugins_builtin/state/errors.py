"""Exceptions raised by the session store; all derive from StateStoreError."""
from __future__ import annotations


class StateStoreError(Exception):
    """Base class for every error the session store raises on purpose."""


class SchemaTooNewError(StateStoreError):
    """The database was written by a newer schema than this code knows; it is left untouched."""

    def __init__(self, path: str, found: int, supported: int) -> None:
        super().__init__(
            f"{path} has session-store schema version {found}, but this version of hermes only "
            f"understands versions up to {supported}. Upgrade hermes to open it; the file was not modified."
        )
        self.path = path
        self.found = found
        self.supported = supported


class NotAStateDatabaseError(StateStoreError):
    """The file is an SQLite database, but not one this store created."""


class SessionNotFoundError(StateStoreError, KeyError):
    """No session has the given id."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no session with id {session_id!r}")
        self.session_id = session_id

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0])


class SessionExistsError(StateStoreError):
    """create_session was given an id that is already taken."""


class TitleInUseError(StateStoreError):
    """Another session already carries this title (titles are unique when set)."""


class StoreBusyError(StateStoreError):
    """The write lock could not be taken within the retry budget."""
