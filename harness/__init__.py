"""harness: drives the game's ccAnm functions in eemu_ext and diffs every result against reference.

Entry points: `python -m harness bulk|one|replay|mutants`; in Python, `harness.driver.game.Game` (the
checks.md §8.3 procedures) and `harness.runners.cases.chunk.check_chunk` (every check on one chunk).
"""


class HarnessError(Exception):
    """A user-facing harness failure (missing symbol, bad image, heap exhausted, bad case id...),
    always naming what: the file, symbol or case id."""


def _explained():
    from eemu_ext.errors import EemuError
    return (HarnessError, EemuError)


# DECISION: an error of a type the harness or the machine defines (HarnessError; EemuError: the
# emulated code's, the engines' or the host's, eemu_ext/errors.py) says in its message what went
# wrong and where (a pc, a symbol, a file); any other type is a defect of ours, and its record keeps
# the source line that raised it. Decided by type, never by a name in the error's module.
EXPLAINED = _explained()
