"""The harness's exit statuses (README "Exit statuses"): pytest's numbers where they mean the same."""
from __future__ import annotations

PASS = 0
FAILED = 1                  # mismatches, a chunk the harness could not finish, records left out
BAD_INPUT = 2               # usage or input error
NOTHING_COMPARED = 5        # as pytest's "no tests collected"
INTERRUPTED = 130           # Ctrl-C or SIGTERM

# a run's verdict (summary.json's "status") -> the status the harness exits with
EXIT = {"pass": PASS, "mismatches": FAILED, "errors": FAILED, "bad members": BAD_INPUT,
        "nothing compared": NOTHING_COMPARED, "interrupted": INTERRUPTED, "incomplete": FAILED,
        "left out": FAILED}
