"""harness: drives the game's ccAnm functions in eemu_ext and diffs every result against reference.

Entry points: `python -m harness bulk|one|replay|mutants`; in Python, `harness.driver.game.Game` (the
checks.md §8.3 procedures) and `harness.runners.chunk.check_chunk` (every check on one chunk).
"""


class HarnessError(Exception):
    """A user-facing harness failure (missing symbol, bad image, heap exhausted, bad case id...),
    always naming what: the file, symbol or case id."""
