"""Tally: the counters, quirk coverage counts, mismatches and worst keyed deviation of one chunk."""
from collections import Counter

MISMATCHES_KEPT_PER_CHUNK = 200   # past it a chunk's mismatches are counted, not recorded


class Tally:
    def __init__(self, max_mismatches=MISMATCHES_KEPT_PER_CHUNK):
        self.counters = Counter()
        self.quirks = Counter()
        self.mismatches = []
        self.dropped = 0
        self.max_mismatches = max_mismatches
        self.worst_keyed = None      # {d, bound, chunk, track, time}
        self.rotation_samples = []   # (passed, d, bound) of every keyed comparison
        self.checks = []             # the checks that ran
        self.applicable = []         # the checks the chunk's content calls for (selected or not)

    def count(self, name, n=1):
        self.counters[name] += n

    def quirk(self, name, n=1):
        if n:
            self.quirks[name] += n

    def fail(self, rec):
        self.counters["failures"] += 1
        if len(self.mismatches) < self.max_mismatches:
            self.mismatches.append(rec)
        else:
            self.dropped += 1

    def keyed(self, d, bound, chunk, track, time, where, passed=0):
        self.rotation_samples.append((passed, d, bound))
        if self.worst_keyed is None or d > self.worst_keyed["d"]:
            self.keyed_worst(d, bound, chunk, track, time, where)

    def keyed_worst(self, d, bound, chunk, track, time, where):
        """A new worst keyed deviation (the caller has added its samples)."""
        self.worst_keyed = {"d": d, "bound": bound, "chunk": chunk, "track": track,
                            "time": time, "check": where}

    def merge(self, other):
        self.counters.update(other.counters)
        self.quirks.update(other.quirks)
        for rec in other.mismatches:
            if len(self.mismatches) < self.max_mismatches:
                self.mismatches.append(rec)
            else:
                self.dropped += 1
        self.dropped += other.dropped
        self.rotation_samples.extend(other.rotation_samples)
        if other.worst_keyed and (self.worst_keyed is None or other.worst_keyed["d"] > self.worst_keyed["d"]):
            self.worst_keyed = other.worst_keyed

    def rotation_deviation(self, keep=200):
        """[[passed, d], ...] for the report's drift plot: at most `keep`, the largest d/bound first."""
        s = self.rotation_samples
        if len(s) > keep:
            s = sorted(s, key=lambda x: x[1] / x[2] if x[2] else 0.0, reverse=True)[:keep]
        return [[p, d] for p, d, _ in s]
