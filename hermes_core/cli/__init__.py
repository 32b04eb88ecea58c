"""The ``hermes`` command line: one module per command group, imported on demand."""
