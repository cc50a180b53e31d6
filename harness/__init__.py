"""harness: drives the game's ccAnm functions in eemu_ext and diffs every result against reference.

Entry points: `python -m harness bulk|one|replay|mutants`; in Python, `harness.game.Game` (the
checks.md §8.3 procedures) and `harness.chunk.check_chunk` (every check on one chunk).
"""
