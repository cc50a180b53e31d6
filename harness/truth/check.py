"""A model's answers against the game's words of a truth file, as mismatch records (interfaces.md §4).

The comparison of each query kind is its check's own (harness/checks: the QueryKind its Check
declares), the one the in-process run calls with the built-in reference's answer; here a query
(with the game's words under "game") and a model's answer go to it by the query's kind, and the
ledger is marked as in process (checks.answered). The model is the expected side ("reference" in
a printed mismatch), the game the got side, as in every other record.

DECISION: a bound is never taken from the answer being judged. A 3x3's keys passed and scale
come from the query's `bound` (the export's, from the chunk's own records at the pose time: the
values the in-process checks bound with); a count, a skip or a stop comes from the query or from a
comparison of the two sides, never from one answer's word alone.
"""
from __future__ import annotations

from harness import checks
from harness.checks import answered
from ground import vocabulary
from harness.compare.mismatch import CaseContext
from corpus.names import shell_word



class TruthContext(CaseContext):
    """A case of a truth file: its repro is the check-truth command narrowed to the chunk and check."""

    def __init__(self, chunk, seed, profile, float_model, file, model=None, image=None, data=None, disc=None,
                 defaults=None):
        super().__init__(chunk, seed, profile, float_model, image, data, disc, defaults=defaults)
        self.file, self.model = file, model

    def repro(self, check=None, time=None):  # noqa: ARG002  (CaseContext.repro's signature: record() passes time=)
        parts = [".venv/bin/python", "-m", "harness", "check-truth", shell_word(self.file),
                 "--case", shell_word(self.chunk)]
        if check:
            parts += ["--check", shell_word(check)]
        if self.model:
            parts += ["--model", shell_word(self.model)]
        for flag, key, val in (("--image", "IMAGE", self.image), ("--data", "DATA", self.data),
                               ("--disc", "DISC", self.disc)):
            if val and val != self.defaults.get(key):
                parts += [flag, shell_word(val)]
        return " ".join(parts)




def comparisons():
    """query kind -> its comparison (q, a, ctx, tally, anim): the checks' declarations
    (checks.query_kinds()); an ImportError unless they are the vocabulary's query kinds exactly."""
    out = {k: kind.compare for k, (_, kind) in checks.query_kinds().items()}
    if set(out) != set(vocabulary.QUERY_KINDS):
        raise ImportError(f"harness/truth/check.py: the checks declare the query kinds {sorted(out)}, not "
                          f"ground/vocabulary.py's QUERY_KINDS {sorted(vocabulary.QUERY_KINDS)}")
    return out


comparisons()             # at import: a kind without its comparison is an ImportError (no table kept: the registry may grow)


def compare(q, a, ctx, tally, anim):
    """Compare the answer `a` to query `q` of the chunk whose parse is `anim` by its kind's
    comparison (the chunk's parse says what the check counts of what it compared) and mark the
    records it covers in the ledger when it was compared to its end (checks.answered): the ledger
    of a model's run is the checks' (harness/compare/ledger.py)."""
    return answered(comparison(q["kind"]), q, a, ctx, tally, anim)


def comparison(kind):
    """The comparison of query kind `kind`: its check's declaration; KeyError."""
    return checks.query_kinds()[kind][1].compare


def check_of(kind, default=None):
    """The check whose query kind `kind` is (ground/vocabulary.py's QUERY_KINDS), or `default`."""
    return vocabulary.QUERY_KINDS.get(kind, default)
