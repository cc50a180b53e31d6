"""The readiness probe: the executable's layout, symbols and structure offsets, checked before a run."""
