"""Fail fast: a bulk stops early when K chunks in a row fail with the same error at the same pc.

A set-up the game does not accept (a wrong budget, a fault at one address) fails every chunk the
same way; running the other thousands costs hours and says nothing new. The signature of a failed
chunk is (error type, pc): the pc is the machine's (``pc 0x...`` in the message), else the message.
DECISION: for a step-budget stop the function the pc lies in stands for the pc, since a loop
stops at whichever of its instructions the budget runs out on.
"""
from __future__ import annotations

import re
from typing import Optional

DEFAULT_K = 5
_NUM = re.compile(r"0x[0-9a-fA-F]+|\d+")
_PC = re.compile(r"\bpc 0x([0-9a-fA-F]{8})\b(?: \(([^)+]+))?")


def signature(error) -> Optional[tuple]:
    """(type, pc or message) of a chunk record's error dict; None for a chunk without an error."""
    if not error:
        return None
    msg = str(error.get("message", ""))
    m = _PC.search(msg)
    if m is None:        # DECISION: no pc: the message with its numbers masked (sizes, addresses vary)
        return (error.get("type"), _NUM.sub("#", msg))
    if error.get("type") == "StepLimitExceeded" and m.group(2):
        return (error.get("type"), f"pcs in {m.group(2)}")
    return (error.get("type"), f"pc 0x{m.group(1).lower()}")


class FailFast:
    """Feed it each finished chunk's error (in completion order); `stop` says why to stop, or None."""

    def __init__(self, k: int = DEFAULT_K):
        if k < 1:
            raise ValueError(f"fail-fast K must be at least 1, not {k}")
        self.k = k
        self.run = 0
        self.last = None
        self.stop: Optional[str] = None

    def observe(self, error, chunk=None) -> Optional[str]:
        sig = signature(error)
        if sig is None:
            self.run, self.last = 0, None
            return self.stop
        self.run = self.run + 1 if sig == self.last else 1
        self.last = sig
        if self.run >= self.k and self.stop is None:
            where = f"at {sig[1]}" if sig[1].startswith("pc") else "with the same message"
            self.stop = (f"stopped early: {self.k} chunks in a row failed with {sig[0]} {where} "
                         f"(last {chunk}): {str(error.get('message', ''))[:200]}")
        return self.stop
