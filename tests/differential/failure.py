"""How a failing differential test reads: the chunk, the count, the first mismatches one line each
and the repro, in a few lines; `-v` adds every recorded mismatch in full and the traceback."""
from harness.compare.show import format_mismatch, one_line

SHOWN = 3           # mismatches shown one line each without -v


class ChunkFailure(AssertionError):
    """A differential check that failed: str() is the long detail, .short the few lines."""

    def __init__(self, short, long):
        super().__init__(long)
        self.short = short


def mismatch_failure(what, mismatches, total, repro, counters=None):
    head = f"{what}: {total} mismatch{'es' if total != 1 else ''}"
    lines = [head] + [f"  {one_line(m)}" for m in mismatches[:SHOWN]]
    if total > SHOWN:
        lines.append(f"  ... and {total - SHOWN} more (-v shows every recorded one)")
    first = mismatches[0].get("repro") if mismatches else None
    lines.append(f"  repro: {first or repro}")
    long = "\n".join([head] + [format_mismatch(m) for m in mismatches]
                     + ([f"counters {counters}"] if counters else []))
    return ChunkFailure("\n".join(lines), long)


def error_failure(what, error, repro):
    text = f"{what}: error {error['type']}: {error['message']}\n  repro: {repro}"
    return ChunkFailure(text, text)
