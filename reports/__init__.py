"""reports: (being built)."""
