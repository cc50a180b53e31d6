"""harness: (being built)."""
