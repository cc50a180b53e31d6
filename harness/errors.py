"""HarnessError: what the harness raises for bad input or a broken run set-up, always naming what."""


class HarnessError(Exception):
    """A user-facing harness failure (missing symbol, bad image, heap exhausted, bad case id...)."""


class HeapExhausted(HarnessError):
    """The bump allocator ran past HEAP_END (executable-abi.md §6)."""
