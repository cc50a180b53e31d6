"""reference: (being built)."""
