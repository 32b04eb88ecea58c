"""``python -m hermes_core`` runs the ``hermes`` command (useful where the console script is not on PATH)."""

from hermes_core.cli.main import main

raise SystemExit(main())
