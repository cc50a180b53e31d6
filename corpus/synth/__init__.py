"""The synthetic DATA.BIN: the disc's format and statistics, the named role cases (corpus-stats.md)."""
from .writer import synthesize

__all__ = ["synthesize"]
