"""Plugin distribution: install, update, remove, doctor, the plugins.lock, and ``plugins new``.

Every module here is imported on demand by ``hermes plugins <command>``; nothing in
this package runs when plugins are merely listed, except :mod:`.lockfile` (cheap).
"""
