"""Tally: the counters, quirk coverage counts, mismatches and worst keyed deviation of one chunk."""
from collections import Counter

from reports.records import is_maximum

MISMATCHES_KEPT_PER_CHUNK = 200   # past it a chunk's mismatches are counted, not recorded
ROTATION_SAMPLES_KEPT = 200       # the keyed-rotation samples a chunk record keeps (the drift plot)


class Tally:
    def __init__(self, max_mismatches=MISMATCHES_KEPT_PER_CHUNK):
        self.counters = Counter()
        self.quirks = Counter()
        self.mismatches = []
        self.dropped = 0
        self.max_mismatches = max_mismatches
        self.worst_keyed = None      # {d, bound, chunk, track, time}
        self.rotation_samples = []   # (passed, d, bound) of keyed comparisons: every one, or a superset
                                     # of the ROTATION_SAMPLES_KEPT that rotation_deviation keeps
        self.rotation_count = 0      # keyed comparisons made (samples added, kept or not)
        self.checks = []             # the checks that ran
        self.applicable = []         # the checks the chunk's content calls for (selected or not)
        self.by_check = {}           # check -> the counters that check added
        self.ledger = {}             # kind -> {record key: weight} compared (harness/compare/ledger.py)

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
        self.rotation_count += 1
        if self.worst_keyed is None or d > self.worst_keyed["d"]:
            self.keyed_worst(d, bound, chunk, track, time, where)

    def keyed_worst(self, d, bound, chunk, track, time, where):
        """A new worst keyed deviation (the caller has added its samples)."""
        self.worst_keyed = {"d": d, "bound": bound, "chunk": chunk, "track": track,
                            "time": time, "check": where}

    def merge(self, other):
        for name, n in other.counters.items():      # a maximum stays one (reports.records.is_maximum)
            self.counters[name] = max(self.counters.get(name, n), n) if is_maximum(name) else self.counters[name] + n
        self.quirks.update(other.quirks)
        for rec in other.mismatches:
            if len(self.mismatches) < self.max_mismatches:
                self.mismatches.append(rec)
            else:
                self.dropped += 1
        self.dropped += other.dropped
        self.rotation_samples.extend(other.rotation_samples)
        self.rotation_count += other.rotation_count
        for kind, marks in other.ledger.items():
            self.ledger.setdefault(kind, {}).update(marks)
        if other.worst_keyed and (self.worst_keyed is None or other.worst_keyed["d"] > self.worst_keyed["d"]):
            self.worst_keyed = other.worst_keyed

    def rotation_deviation(self, keep=ROTATION_SAMPLES_KEPT):
        """[[passed, d], ...] for the report's drift plot: every sample when there are at most
        `keep`, else the `keep` largest d/bound (in the order they were added among equals)."""
        s = self.rotation_samples
        if self.rotation_count > keep or len(s) > keep:
            s = sorted(s, key=lambda x: x[1] / x[2] if x[2] else 0.0, reverse=True)[:keep]
        return [[p, d] for p, d, _ in s]
