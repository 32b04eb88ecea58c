"""The turn runtime an integrator drives: system prompt assembly (and, growing, the session loop)."""
